#include "pipeline/build_run.h"

#include <algorithm>
#include <thread>

#include "base/error.h"
#include "pipeline/shard.h"

namespace winml::pipeline {

Build::Build(BuildRequest request, const StageRegistry& registry) : request_(std::move(request)), registry_(registry) {
  request_.session.write = !request_.dry_run;
  // A build of every model looks up every file the last one did.
  request_.session.prefetch_stats = request_.models.empty() && request_.shard.empty() && !request_.rebuild;
}

Build::~Build() = default;

void Build::warn(const std::string& line) const {
  if (request_.warn) request_.warn(line);
}

void Build::choose_models() {
  options_.models = select_models(*session_, request_.models);
  if (request_.shard.empty()) return;
  options_.models = models_in_shard(parse_shard(request_.shard), plan().graph.models, options_.models);
}

void Build::open_local_cache() {
  if (!request_.use_cache || !plan().build.cache || request_.dry_run) return;
  cache_.emplace(request_.cache_dir, *request_.session.disk);
  options_.cache = &*cache_;
  try {
    cache_lock_ = store::DirectoryLock::acquire(
        cache_->lock_file(),
        [&](const std::string& holder) {
          if (request_.on_cache_lock_wait) request_.on_cache_lock_wait(cache_->root(), holder);
        },
        -1, request_.session.cancel, store::LockMode::kShared);
    if (!cache_lock_) return;  // interrupted
  } catch (const InputError& e) {
    throw InputError(std::string(e.what()) +
                     "; it is the cache directory (--cache-dir, else $WINML_MAKE_CACHE_DIR, "
                     "$XDG_CACHE_HOME/winml-make, ~/.cache/winml-make); --no-cache builds without one");
  } catch (const BuildError& e) {
    // A cache this user cannot write (a shared read-only mirror) is still
    // worth reading; nothing can tidy it from here either.
    warn(std::string(e.what()) + "; using the cache without its lock");
  }
  // A killed build may have been writing into the cache too.
  if (session_->after_crash()) cache_->sweep_leftovers();
}

void Build::open_remote_cache() {
  if (request_.no_remote_cache) return;
  const auto& b = plan().build;
  auto settings = remote::resolve_remote_settings(request_.remote_cache,
                                                  {b.remote_cache, static_cast<long>(b.remote_cache_transfer_timeout)});
  if (!settings) return;
  std::string missing;
  if (!options_.cache) {
    // Said only when both were asked for in one command: a server that
    // winml.toml or the environment names is quietly off with --no-cache.
    if (!request_.dry_run && !request_.remote_cache.empty())
      warn("the remote cache works through the local one; with the cache off it is not used");
  } else if (!remote::http_libraries_available(&missing)) {
    warn("remote cache " + remote::redact_url(settings->url) + " not used: " + missing +
         " (Debian: apt install libcurl4); the build goes on with the local cache");
  } else {
    settings->http.abort = request_.session.cancel;
    remote_ = std::make_unique<remote::HttpCache>(*settings, [this](const std::string& w) { warn(w); });
    options_.remote = remote_.get();
  }
}

bool Build::open() {
  session_ = std::make_unique<BuildSession>(request_.session, registry_);
  if (!session_->open()) return false;
  choose_models();
  const auto& b = plan().build;
  options_.jobs = request_.jobs > 0 ? request_.jobs
                  : b.jobs > 0      ? static_cast<int>(b.jobs)
                                    : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  options_.keep_going = request_.keep_going || b.keep_going;
  options_.rebuild = request_.rebuild || b.rebuild;
  options_.dry_run = request_.dry_run;
  options_.explain = request_.explain;
  options_.cached_only = request_.cached_only;
  options_.cancel = request_.session.cancel;
  if (options_.models.is_none()) return true;  // nothing to build: no cache either
  // A stage that cannot run on this machine stops the build before any runs.
  for (const auto& n : plan().graph.nodes)
    if (n.enabled && !n.cannot_run.empty() && options_.models.contains(n.model)) throw InputError(n.cannot_run);
  open_local_cache();
  if (options_.cache && !cache_lock_ && request_.session.cancel && request_.session.cancel->load()) return false;
  open_remote_cache();
  return true;
}

std::size_t Build::node_count() const {
  const auto& nodes = plan().graph.nodes;
  return std::count_if(nodes.begin(), nodes.end(),
                       [&](const graph::Node& n) { return options_.models.contains(n.model); });
}

std::vector<graph::NodeResult> Build::run(graph::NodeRunner& runner, graph::BuildObserver* observer) {
  // Nothing to build (a shard that drew no model): nothing is written either.
  if (options_.models.is_none()) return std::vector<graph::NodeResult>(plan().graph.nodes.size());
  graph::Builder builder(plan().graph,
                         {session_->options().source.project_dir, plan().output_dir, session_->state_dir()},
                         session_->state(), session_->ingredients(), runner, observer);
  std::vector<graph::NodeResult> results = builder.build(options_);
  if (remote_) remote_->finish();  // queued uploads: the next job may need them
  const bool interrupted = options_.cancel && options_.cancel->load();
  if (!request_.dry_run) session_->finish(results, options_.models, interrupted);
  return results;
}

}  // namespace winml::pipeline
