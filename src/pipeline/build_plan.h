// The plan of a project: its build graph (a node per model × stage) with each
// node's static key ingredients, plus the [build] settings the CLI needs.
//
// Making a plan means parsing and resolving winml.toml, which for a project
// with a thousand models takes far longer than checking every node (toml11
// parses ~0.4 MB/s). So the plan is stored in <output_dir>/.winml-make/plan
// under a memo key made of everything it is derived from — the config file's
// content, the rule overlays, the environment variables stages read, the
// files stages probed to declare themselves (an ONNX Runtime library), this
// binary and its stage registry — and reused while that key matches.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "graph/node.h"
#include "pipeline/plan_contexts.h"
#include "pipeline/registry.h"
#include "store/disk.h"
#include "store/stat_cache.h"

namespace winml::pipeline {

namespace fs = std::filesystem;

struct BuildPlan {
  graph::Graph graph;
  fs::path output_dir;  // absolute
  config::BuildConfig build;
  std::vector<std::string> env_names;  // environment variables whose values enter keys or the plan
  // Files the stages' declarations were computed from (Declarations::plan_files).
  std::vector<std::string> plan_files;
  // Per graph.models: the digest of the model's resolved configuration,
  // which its reports (winml_build_config.json, the manifest) describe.
  std::vector<store::Digest> model_settings_digests;
  store::Digest memo_key;
  // Made with the graph; stored in a file of their own (plan_contexts.h), so
  // a plan read back from disk has none until a stage runs.
  PlanContexts contexts;
};

// The graph for `project` (output_dir: absolute).
BuildPlan make_plan(const config::ProjectConfig& project, const StageRegistry& registry, const fs::path& output_dir);

// The stage that runs `node` (registered under node.kind).
std::shared_ptr<Stage> stage_for(const graph::Node& node, const StageRegistry& registry);

struct PlanSource {
  fs::path project_dir;              // absolute
  fs::path config_file;              // absolute; the project's winml.toml when -c is not given
  fs::path output_dir_override;      // -o, absolute or empty
  std::vector<std::string> defines;  // -D SECTION.KEY=VALUE, in order
};

store::Digest plan_memo_key(const PlanSource& source, const StageRegistry& registry, store::StatCache& stats,
                            const std::vector<std::string>& env_names, const std::vector<std::string>& plan_files = {},
                            const store::DiskInterface& disk = store::real_disk());

std::string serialize_plan(const BuildPlan& plan);
std::optional<BuildPlan> parse_plan(std::string_view text);

// The output directory a project uses: -o, else [build] output_dir. Throws
// InputError when it is the project directory or contains it, or is a file.
// Looked at through `disk`.
fs::path output_dir_of(const store::DiskInterface& disk, const config::ProjectConfig& project,
                       const fs::path& override_dir);
// That check alone; `named` says where the directory came from ("-o").
void check_output_dir(const store::DiskInterface& disk, const fs::path& project_dir, const fs::path& config_file,
                      const fs::path& out, const std::string& named);

}  // namespace winml::pipeline
