// One build (or status, clean, graph) of a project: finds or makes the plan,
// takes the output directory's lock, loads the build state, and at the end
// writes each model's build_manifest.json and winml_build_config.json and
// saves the state.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "config/config.h"
#include "graph/builder.h"
#include "pipeline/build_plan.h"
#include "pipeline/layout.h"
#include "store/build_state.h"
#include "store/disk.h"
#include "store/ingredient_log.h"
#include "store/lock.h"

namespace winml::pipeline {

struct BuildSessionOptions {
  PlanSource source;
  bool write = true;  // takes the lock and may write; false for status, graph and dry runs
  // Where the config, the plan, the state and the reports are read and
  // written (tests give a fake disk).
  store::DiskInterface* disk = &store::real_disk();
  // The lock is flock(2) on a real file: a session on another disk, which no
  // other process can see, takes none.
  bool take_lock = true;
  double lock_timeout_seconds = -1;
  const std::atomic<bool>* cancel = nullptr;
  // Stat every file the last build looked up on other threads while the plan
  // is read (StatCache::start_prefetch). For a build of every model: one of
  // a few models would stat files it never looks at.
  bool prefetch_stats = false;
  // Told when another process holds the lock (it is then waited for).
  std::function<void(const fs::path& lock_file, const std::string& holder)> on_lock_wait;
};

class BuildSession {
 public:
  BuildSession(BuildSessionOptions options, const StageRegistry& registry);
  ~BuildSession();

  // False when interrupted while waiting for the lock. Throws InputError for
  // a bad config.
  bool open();

  const BuildPlan& plan() const { return *plan_; }
  const StageRegistry& registry() const { return registry_; }
  store::BuildState& state() { return *state_; }
  store::IngredientLog& ingredients() { return *ingredients_; }
  fs::path state_dir() const { return plan_->output_dir / kStateDir; }
  fs::path model_dir(const std::string& model) const { return plan_->output_dir / model; }
  const BuildSessionOptions& options() const { return options_; }
  // The previous build into this output directory was killed (its lock file
  // still says "working"); its temporaries here are already swept.
  bool after_crash() const { return after_crash_; }

  // The parsed configuration, loaded on first use: to make a plan (a
  // reused plan needs it never, unless its contexts file was damaged).
  // Thread-safe.
  const config::ProjectConfig& project();
  // What the plan stored for running and reporting (plan_contexts.h): made
  // with the plan, or read once from beside the stored plan. Thread-safe.
  const PlanContexts& contexts();
  // The context `node`'s stage declared, as the plan stored it.
  const DeclaredContext& declared_context(const graph::Node& node);
  // The model's resolved settings, as the plan stored them.
  config::ModelSettings model_settings(const std::string& name);

  // True when the model's build_manifest.json and winml_build_config.json
  // are what this tool wrote and describe its stage records as they are now
  // (false after they were deleted or edited, or after a build was killed
  // between recording its stages and writing its reports). `nodes`: the
  // model's nodes (Graph::nodes_by_model()[model_index]).
  bool reports_current(std::size_t model_index, const std::vector<std::size_t>& nodes);

  // Writes manifests and build configs of the models this build touched
  // (or that lack them), then saves the state. `elapsed` per model.
  void finish(const std::vector<graph::NodeResult>& results, const graph::ModelSelection& selected_models,
              bool interrupted);

 private:
  void lock_and_load(const fs::path& output_dir);
  // The plan stored under `probe` (the usual output directory), when its
  // memo key still matches.
  bool reuse_stored_plan(const fs::path& probe);
  bool make_and_store_plan();
  store::Digest memo_key(const std::vector<std::string>& env_names, const std::vector<std::string>& plan_files);
  // After a killed build (store::DirectoryLock::last_holder_was_killed),
  // removes the temporary files it left in the output directory.
  void sweep_after_crash(const fs::path& output_dir);

  BuildSessionOptions options_;
  const StageRegistry& registry_;
  std::optional<BuildPlan> plan_;
  bool after_crash_ = false;
  bool interrupted_ = false;  // while waiting for the lock
  fs::path loaded_dir_;
  std::unique_ptr<store::DirectoryLock> lock_;
  std::unique_ptr<store::BuildState> state_;
  std::unique_ptr<store::IngredientLog> ingredients_;
  std::mutex project_mu_;
  std::mutex contexts_mu_;
  std::optional<config::ProjectConfig> project_;
};

// The named models (all when `names` is empty); InputError for an unknown
// name, naming the config file and the models it has.
graph::ModelSelection select_models(const BuildSession& session, const std::vector<std::string>& names);

}  // namespace winml::pipeline
