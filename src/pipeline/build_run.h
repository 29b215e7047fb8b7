// A build as one library call: the session (plan, the output directory's
// lock, state), the models chosen, the local cache under its shared lock,
// the remote cache behind it, the builder, and the reports at the end. The
// command line only turns flags into a BuildRequest, prints what the
// observer hears and what came out, and maps it to an exit code.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "graph/builder.h"
#include "pipeline/build_session.h"
#include "remote/http_cache.h"
#include "remote/settings.h"
#include "store/cache.h"
#include "store/lock.h"

namespace winml::pipeline {

struct BuildRequest {
  BuildSessionOptions session;      // its `write` is !dry_run
  std::vector<std::string> models;  // named ones (InputError for an unknown name); empty: all
  std::string shard;                // "I/N": only the models a stable hash of the name puts there
  int jobs = 0;                     // 0: [build] jobs, else one per CPU core
  bool keep_going = false;          // or [build] keep_going
  bool rebuild = false;             // or [build] rebuild
  bool dry_run = false;
  bool explain = false;
  bool cached_only = false;
  bool use_cache = true;  // false: --no-cache (or [build] cache = false)
  std::filesystem::path cache_dir;
  std::string remote_cache;      // --remote-cache URL
  bool no_remote_cache = false;  // wins over every way of naming a server
  // One line per warning, without a prefix, from any thread (the remote
  // cache warns while stages run).
  std::function<void(const std::string&)> warn;
  // Told when `cache gc` or `cache verify` holds the cache (it is then waited for).
  std::function<void(const std::filesystem::path& cache_root, const std::string& holder)> on_cache_lock_wait;
};

class Build {
 public:
  Build(BuildRequest request, const StageRegistry& registry);
  ~Build();

  // Opens the session, chooses the models, opens the caches. False when
  // interrupted while waiting for a lock. InputError for a bad config,
  // model name, shard or remote setting.
  bool open();

  BuildSession& session() { return *session_; }
  const BuildPlan& plan() const { return session_->plan(); }
  // The models to build.
  const graph::ModelSelection& models() const { return options_.models; }
  // A shard that drew none of the project's models builds nothing: run()
  // then returns every node not run, and writes nothing.
  bool nothing_to_build() const { return options_.models.is_none(); }
  // Nodes of the chosen models.
  std::size_t node_count() const;
  const graph::BuildOptions& options() const { return options_; }

  // Builds, waits for queued uploads, then (unless a dry run) writes the
  // reports and saves the state.
  std::vector<graph::NodeResult> run(graph::NodeRunner& runner, graph::BuildObserver* observer);

  // The remote cache, when one was used.
  const remote::HttpCache* remote() const { return remote_.get(); }

 private:
  void choose_models();
  void open_local_cache();
  void open_remote_cache();
  void warn(const std::string& line) const;

  BuildRequest request_;
  const StageRegistry& registry_;
  std::unique_ptr<BuildSession> session_;
  graph::BuildOptions options_;
  std::optional<store::LocalCache> cache_;
  std::unique_ptr<store::DirectoryLock> cache_lock_;
  std::unique_ptr<remote::HttpCache> remote_;
};

}  // namespace winml::pipeline
