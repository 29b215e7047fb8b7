// Everything a stage's output depends on besides its input artifact, in one
// value. The engine hashes exactly this into the stage's key (pipeline/build_plan.cpp)
// and builds the StageContext from it alone (stages/stage_runner.cpp): the
// stage sees the declared config keys (every other key comes back empty), the
// declared rules files (others read as absent), the declared files resolved,
// the declared environment variables, and save options only when it declared
// that it writes models. So an incremental build cannot see anything a clean
// build would not, and a key cannot miss anything the stage reads.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/rules.h"
#include "config/config.h"
#include "graph/node.h"

namespace winml::pipeline {

struct Declarations {
  // Config keys: a whole section ("quantize") or one key ("compile.ep").
  std::vector<std::string> config;
  // Of those, the keys that only say where a file is whose identity the
  // stage puts in `values` (a library's digest and version): the stage sees
  // them, but they are not key ingredients, so the same library installed
  // elsewhere (another machine, another folder) shares results.
  std::vector<std::string> located;
  // Files besides the input model (calibration data, export scripts), paths
  // relative to the project: their contents enter the key.
  std::vector<graph::InputDecl> files;
  // Environment variables by name: their values enter the key.
  std::vector<std::string> environment;
  // rules/ files by path ("ep/cpu.toml", "optimize/presets.toml"): their text
  // (shipped or from an overlay) enters the key.
  std::vector<std::string> rules;
  // Code units (pipeline/code_digest.h) whose build-time digest of the sources
  // enters the key: editing them invalidates exactly this stage. A unit that
  // computes with the CPU runtime brings the machine's arithmetic too
  // (value:runtime.arithmetic, base/instruction_set.h): AVX2 and AVX-512
  // share it, the generic variant does not, so no cache serves one's bytes
  // to the other; no stage has to remember to declare it.
  std::vector<std::string> code;
  // Anything else by name (e.g. a vendor compiler's version).
  std::map<std::string, std::string> values;
  // What declare() itself read to compute `values`: a library it loaded to
  // ask its version (absolute paths), the environment variables that locate
  // it. They are not key ingredients (the values are), but the plan is made
  // again when one changes, so a stored plan's values are never stale.
  std::vector<std::string> plan_files;
  std::vector<std::string> plan_environment;
  // Why the stage cannot run on this machine, found while declaring (a
  // library it needs is missing): a build stops with it before any stage
  // runs, `status` shows the stage would fail with it, and commands that run
  // no stage (graph, clean) go on. The key is then incomplete; plan_files
  // name where the missing file was looked for, so installing it makes the
  // plan again.
  std::string cannot_run;
  // Saves ONNX models: the stage gets save options, and the external-data
  // threshold they carry enters the key.
  bool writes_models = false;

  // Union with `other` (wrappers such as the auto loop run several stages).
  void merge(const Declarations& other);
  // The config keys the context holds: `config`, plus the threshold when
  // the stage writes models; sorted, without duplicates.
  std::vector<std::string> config_keys() const;
};

// The static key ingredients of a stage that declared `d`, for a model
// configured as `config` (canonical JSON, config::to_json):
//   implementation, config:<section>.<key>, env:<name>, rules:<path>,
//   code:<unit> (stages/stage is every stage's), value:<name> (with
//   value:runtime.arithmetic when a code unit computes with the runtime).
std::vector<graph::Ingredient> key_ingredients(const Declarations& d, const std::string& implementation,
                                               const nlohmann::json& config);

// What a stage that declared `d` may see of its model, fixed when the plan
// is made and stored with it (pipeline/plan_contexts.h): running a node
// neither reads winml.toml nor asks the stage to declare itself again.
struct DeclaredContext {
  nlohmann::json config = nlohmann::json::object();  // canonical JSON of the declared keys only
  std::vector<std::string> rules;                    // Declarations::rules
  std::vector<std::string> environment;              // Declarations::environment
  bool writes_models = false;
  friend bool operator==(const DeclaredContext&, const DeclaredContext&) = default;
};
DeclaredContext declared_context(const Declarations& d, const config::ModelSettings& full);

// What the stage sees when it runs.
struct DeclaredView {
  config::ModelSettings config;                    // only the declared keys (config/subset.h)
  rules::Rules rules;                              // only the declared rules files
  std::map<std::string, std::string> environment;  // only the declared variables that are set
};
// `base_dir` and `config_file`: where the model's relative paths resolve,
// and the file its configuration came from (for messages).
DeclaredView declared_view(const DeclaredContext& c, const std::filesystem::path& base_dir,
                           const std::filesystem::path& config_file);
// Both steps at once (for tests and subcommands).
DeclaredView declared_view(const Declarations& d, const config::ModelSettings& full);

}  // namespace winml::pipeline
