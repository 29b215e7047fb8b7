#include "graph/builder.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <thread>

#include "base/atomic_file.h"
#include "base/error.h"
#include "base/path_text.h"
#include "base/this_process.h"
#include "graph/explain.h"
#include "graph/inputs.h"
#include "graph/key.h"

namespace winml::graph {

const char* status_word(Status s, bool dry_run) {
  switch (s) {
    case Status::kUpToDate: return "up-to-date";
    case Status::kCompleted: return "completed";
    case Status::kCached: return "cached";
    case Status::kDisabled: return "skipped";
    case Status::kFailed: return dry_run ? "would-fail" : "failed";
    case Status::kNotRun: return "not-run";
    case Status::kStale: return "would-run";
  }
  return "?";
}

namespace {

constexpr std::uint64_t kBigFile = 64ull << 20;  // announce hashing of files this large

// A record without outputs is that of a stage the last build skipped.
constexpr const char* kEnabledAgain = "enabled again (skipped by the last build)";

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

NodeResult interrupted(NodeResult r, std::chrono::steady_clock::time_point start) {
  r.status = Status::kNotRun;
  r.reason = "interrupted";
  r.elapsed_seconds = seconds_since(start);
  return r;
}

NodeResult not_started(std::string reason) {
  NodeResult r;
  r.status = Status::kNotRun;
  r.reason = std::move(reason);
  return r;
}

NodeResult failed(std::string reason) {
  NodeResult r;
  r.status = Status::kFailed;
  r.reason = std::move(reason);
  return r;
}

// What the scheduler makes of a result: whether dependants may use it.
NodeState outcome_of(const NodeResult& r) {
  switch (r.status) {
    case Status::kFailed: return NodeState::kFailed;
    case Status::kNotRun: return NodeState::kNotRun;
    default: return NodeState::kDone;  // up to date, ran, restored, disabled, or stale in a dry run
  }
}

}  // namespace

// One build() call: the results every worker reads and writes under `mu`.
struct Builder::Run {
  const BuildOptions& o;
  std::vector<NodeResult> results;
  std::vector<bool> selected;
  std::mutex mu;
  std::condition_variable cv;
};

Builder::Builder(const Graph& graph, BuildPaths paths, store::BuildState& state, store::IngredientLog& ingredients,
                 NodeRunner& runner, BuildObserver* observer)
    : graph_(graph),
      paths_(std::move(paths)),
      owned_(paths_.output_dir, state.disk()),
      state_(state),
      disk_(state.disk()),
      ingredients_(ingredients),
      runner_(runner),
      observer_(observer) {
  output_prefix_ = to_utf8(paths_.output_dir) + "/";
  ids_.reserve(graph.nodes.size());
  for (const auto& n : graph.nodes) ids_.push_back(n.id());
}

void Builder::remove_owned(const fs::path& file) {
  owned_.require(file, "delete");
  disk_.remove(file);
  state_.stat_cache().forget(file);
}

void Builder::discard(const fs::path& dir) const {
  if (owned_.contains(dir)) disk_.remove_tree(dir);
}

std::vector<Ingredient> Builder::statics_of(const Node& node) {
  if (!node.static_ingredients.empty()) return node.static_ingredients;
  if (auto s = ingredients_.find_static(node.static_digest)) return *s;
  return {};
}

std::vector<Ingredient> Builder::ingredients_now(const Node& node, const std::vector<Ingredient>& inputs) {
  std::vector<Ingredient> now = statics_of(node);
  now.insert(now.end(), inputs.begin(), inputs.end());
  return now;
}

// Only what the record says this tool wrote: a file it has no record of may
// be the user's, whatever its name.
void Builder::remove_artifacts(std::size_t index, bool drop_record) {
  const std::string& id = ids_[index];
  auto rec = state_.find(id);
  if (!rec) return;
  const fs::path dir = model_dir(graph_.nodes[index].model);
  for (const auto& o : rec->outputs) remove_owned(dir / o.name);
  if (drop_record) state_.erase(id);
}

// ---- decide ----------------------------------------------------------------

bool Builder::skip_disabled(std::size_t index, const BuildOptions& o, NodeResult& r) {
  r.status = Status::kDisabled;
  r.reason = graph_.nodes[index].disabled_reason;
  // The last build ran it: its artifacts (known from its record) go, and
  // the record stays without them, so that enabling the stage again is
  // told as such rather than as "never built".
  auto rec = state_.find(ids_[index]);
  r.newly_disabled = rec && !rec->outputs.empty();
  if (r.newly_disabled && !o.dry_run) {
    remove_artifacts(index, /*drop_record=*/false);
    store::NodeRecord skipped = *rec;
    skipped.outputs.clear();
    skipped.metrics_json = store::SharedText::literal("{}");
    state_.put(ids_[index], skipped);
  }
  return false;
}

bool Builder::gather_inputs(std::size_t index, const BuildOptions& o, const std::vector<NodeResult>& results,
                            Decision& d) {
  const Node& node = graph_.nodes[index];
  NodeResult& r = d.result;
  for (std::size_t dep_index : node.deps) {
    const NodeResult& dep = results[dep_index];
    const Node& dn = graph_.nodes[dep_index];
    if (dep.status == Status::kFailed || dep.status == Status::kNotRun) {
      r.status = Status::kNotRun;
      r.reason = dn.name + " " + (dep.status != Status::kFailed ? "did not run" : o.dry_run ? "would fail" : "failed");
      return false;
    }
    if (dep.status == Status::kStale) {
      d.upstream_stale = true;
      continue;
    }
    const std::string prefix = dn.model == node.model ? "" : dn.model + "/";
    for (const auto& out : dep.outputs) r.inputs.push_back(Ingredient{"input:" + prefix + out.name, out.digest, ""});
  }
  if (!node.cannot_run.empty()) {
    r.status = Status::kFailed;
    r.input_error = true;
    r.reason = node.cannot_run;
    return false;
  }
  d.record = state_.find(ids_[index]);
  try {
    d.extra = resolve_inputs(node.extra_inputs, paths_.project_dir, state_, runner_);
  } catch (const InputError& e) {
    r.status = Status::kFailed;
    r.input_error = true;
    r.reason = e.what();
    return false;
  }
  for (const auto& e : d.extra) r.inputs.push_back(e.ingredient);
  sort_ingredients(r.inputs);
  return true;
}

void Builder::stale_behind_input(const Node& node, const BuildOptions& o, Decision& d) {
  // An input will be rebuilt, so this key cannot be known yet; a change of
  // the stage's own settings or files can.
  NodeResult& r = d.result;
  r.status = Status::kStale;
  if (!d.record) {
    r.reason = "never built";
  } else if (d.record->outputs.empty()) {
    r.reason = kEnabledAgain;
  } else {
    const std::vector<Ingredient> now = ingredients_now(node, r.inputs);
    const auto before = ingredients_.find(d.record->key);
    const std::string own = summarize_change_besides_inputs(before, now);
    r.reason = own.empty() ? "an input will be rebuilt (reruns only if its content changes)"
                           : own + "; an input will be rebuilt too";
    if (o.explain) r.explanation = explain_change_besides_inputs(before, now);
  }
  if (o.explain) r.explanation.push_back(r.reason);
}

std::string Builder::output_problem(const Node& node, const store::NodeRecord& record) const {
  // Paths as plain strings: std::filesystem::path construction costs more
  // than a stat on the no-op path.
  const std::string dir = output_prefix_ + node.model + "/";
  for (const auto& out : record.outputs) {
    auto digest = state_.stat_cache().digest(dir + out.name);
    if (!digest) return "output " + out.name + " is missing";
    if (*digest != out.digest) return "output " + out.name + " was modified";
  }
  return "";
}

std::string Builder::why_run(std::size_t index, const BuildOptions& o, Decision& d) {
  const Node& node = graph_.nodes[index];
  NodeResult& r = d.result;
  std::string reason;
  if (o.rebuild) {
    reason = "--rebuild";
  } else if (!d.record) {
    reason = "never built";
  } else if (d.record->outputs.empty()) {
    reason = kEnabledAgain;
  } else if (d.record->key != r.key) {
    const std::vector<Ingredient> now = ingredients_now(node, r.inputs);
    const auto before = ingredients_.find(d.record->key);
    reason = summarize_change(before, now);
    if (o.explain) r.explanation = explain_change(before, now);
  } else {
    reason = output_problem(node, *d.record);
  }
  if (o.explain && r.explanation.empty() && !reason.empty()) r.explanation.push_back(reason);
  return reason;
}

bool Builder::decide(std::size_t index, const BuildOptions& o, const std::vector<NodeResult>& results, Decision& d) {
  const Node& node = graph_.nodes[index];
  NodeResult& r = d.result;
  r.implementation = node.implementation;
  if (!node.enabled) return skip_disabled(index, o, r);
  if (!gather_inputs(index, o, results, d)) return false;
  if (d.upstream_stale) {
    stale_behind_input(node, o, d);
    return false;
  }
  r.key = key_of(node.static_digest, r.inputs);
  r.has_key = true;
  const std::string reason = why_run(index, o, d);
  if (reason.empty()) {
    r.status = Status::kUpToDate;
    r.outputs = d.record->outputs;
    r.metrics_json = d.record->metrics_json;
    r.implementation = d.record->implementation;
    return false;
  }
  r.reason = reason;
  if (o.dry_run) {
    r.status = Status::kStale;
    return false;
  }
  return true;
}

// ---- obtain ----------------------------------------------------------------

std::optional<store::Rejection> Builder::artifact_problem(const Node& node, const fs::path& dir,
                                                          const std::vector<std::string>& names) {
  std::vector<std::string> files;
  try {
    files = runner_.artifact_files(dir / node.primary_output);
  } catch (const Interrupted&) {
    throw;
  } catch (const std::exception& e) {
    return store::Rejection{store::rejection::kNotTheArtifact, node.primary_output + " does not load: " + e.what()};
  }
  return store::artifact_problem(files, names);
}

// An entry is restored only when it is exactly what this node makes: the
// output rules before anything is placed, every placed file's digest, then
// the files its artifact names. Otherwise it is a miss: a local entry is
// dropped (the node's result replaces it), the refusal is reported.
bool Builder::try_restore(Attempt& a, const store::ActionEntry& entry, const char* source) {
  std::optional<store::Rejection> why = store::outputs_problem(entry.outputs, a.node.primary_output);
  if (!why) why = a.o.cache->restore(entry, a.staging);
  if (!why) why = artifact_problem(a.node, a.staging, disk_.list_files(a.staging));
  if (!why) {
    a.restored = true;
    a.verified = entry.outputs;
    a.r.status = Status::kCached;
    a.r.implementation = entry.implementation;
    a.r.metrics_json = entry.metrics_json;
    return true;
  }
  a.o.cache->forget(entry.key);
  a.r.reason += "; " + std::string(source) + " cache entry refused: " + why->reason + " (" + why->detail + ")";
  a.r.rejections.push_back({source, std::move(*why)});
  disk_.remove_tree(a.staging);
  disk_.make_directories(a.staging);
  return false;
}

// The local cache first; the server on a miss (or a local entry that proved
// wrong). A server's entry reaches the local cache only once restored and
// checked.
void Builder::restore_from_caches(Attempt& a) {
  if (!a.o.cache || a.o.rebuild) return;
  if (auto entry = a.o.cache->lookup(a.r.key)) try_restore(a, *entry, "local");
  if (a.restored || !a.o.remote) return;
  store::Fetched fetched = a.o.remote->fetch(a.r.key, a.node.primary_output, *a.o.cache);
  if (fetched.rejected) {
    a.r.reason += "; remote cache entry refused: " + fetched.rejected->reason + " (" + fetched.rejected->detail + ")";
    a.r.rejections.push_back({"remote", std::move(*fetched.rejected)});
  }
  if (!fetched.entry) return;
  a.r.from_remote = try_restore(a, *fetched.entry, "remote");
  if (!a.restored) {
    a.o.remote->refused(a.r.key);
    return;
  }
  try {
    a.o.cache->put_entry(*fetched.entry);
  } catch (const std::exception& e) {
    a.r.reason += "; not cached: " + std::string(e.what());  // restored all the same
  }
}

void Builder::take_from_same_key(Attempt& a) {
  if (a.restored || !a.o.cache) return;
  // Under --rebuild too: the other one ran in this build.
  a.hold = in_flight_.hold(a.r.key);
  if (!a.hold.waited()) return;
  if (auto entry = a.o.cache->lookup(a.r.key))
    if (try_restore(a, *entry, "local")) a.r.reason += "; the same step ran for another model in this build";
}

void Builder::run_stage(Attempt& a) {
  std::vector<InputArtifact> artifacts;
  for (std::size_t dep_index : a.node.deps) {
    const Node& dn = graph_.nodes[dep_index];
    const fs::path ddir = model_dir(dn.model);
    InputArtifact in;
    in.primary = ddir / dn.primary_output;
    in.files.push_back(in.primary);
    for (const auto& out : a.results[dep_index].outputs)
      if (out.name != dn.primary_output) in.files.push_back(ddir / out.name);
    artifacts.push_back(std::move(in));
  }
  disk_.make_directories(paths_.state_dir / "logs");
  const fs::path log = paths_.state_dir / "logs" / (a.node.model + "." + a.node.name + ".log");
  RunRequest req{.node = a.node,
                 .project_dir = paths_.project_dir,
                 .staging_dir = a.staging,
                 .inputs = std::move(artifacts),
                 .extra_inputs = {},
                 .cancel = a.o.cancel,
                 .log_file = log,
                 .progress_file = fs::path(log).replace_extension(".progress")};
  for (const auto& e : a.d.extra) req.extra_inputs.push_back(from_utf8(e.path));
  // No record of an earlier run may be shown for this one, nor left behind.
  struct RemovedAround {
    store::DiskInterface& disk;
    const fs::path& file;
    explicit RemovedAround(store::DiskInterface& d, const fs::path& f) : disk(d), file(f) { disk.remove_file(file); }
    ~RemovedAround() { disk.remove_file(file); }
  } progress_record(disk_, req.progress_file);
  if (observer_) observer_->node_running(a.node, req.progress_file);
  RunResult run = runner_.run(req);
  if (a.o.cancel && a.o.cancel->load()) throw Interrupted();
  a.r.status = Status::kCompleted;
  a.r.metrics_json = run.metrics_json;
}

// What ran obeys the rules a cache entry must: the stage's output is its
// artifact and the files the artifact names, nothing else.
void Builder::check_what_ran(Attempt& a, const std::vector<std::string>& names) {
  const std::string id = a.node.id();
  for (const auto& n : names)
    if (std::string why = store::output_name_problem(n); !why.empty())
      throw BuildError(id + ": the stage left an unexpected file: " + why + " (outputs are plain files)");
  if (names.size() > store::kMaxEntryOutputs)
    throw BuildError(id + ": the stage left " + std::to_string(names.size()) + " files (at most " +
                     std::to_string(store::kMaxEntryOutputs) + ")");
  if (auto why = artifact_problem(a.node, a.staging, names))
    throw BuildError(id + ": the stage's outputs are not its artifact and the files it names: " + why->detail);
}

std::vector<store::OutputFile> Builder::collect_outputs(Attempt& a) {
  auto names = disk_.list_files(a.staging);
  const std::string& primary = a.node.primary_output;
  if (std::find(names.begin(), names.end(), primary) == names.end())
    throw BuildError(a.node.id() + ": the stage did not write " + primary);
  if (!a.restored) check_what_ran(a, names);
  std::stable_partition(names.begin(), names.end(), [&](const std::string& n) { return n == primary; });
  std::vector<store::OutputFile> outputs;
  for (const auto& n : names) {
    auto known = std::find_if(a.verified.begin(), a.verified.end(), [&](const auto& v) { return v.name == n; });
    if (known != a.verified.end()) {
      outputs.push_back(*known);
      continue;
    }
    const std::uint64_t size = disk_.stat(to_utf8(a.staging / n)).size;
    if (observer_ && size >= kBigFile) observer_->hashing(model_dir(a.node.model) / n, size);
    outputs.push_back({n, disk_.hash(a.staging / n, nullptr, &hashed_), size});
  }
  return outputs;
}

std::vector<store::OutputFile> Builder::obtain(Attempt& a) {
  restore_from_caches(a);
  take_from_same_key(a);
  if (!a.restored && a.o.cached_only)
    throw BuildError("not in the cache, and --cached-only forbids running it (" + a.r.reason + ")");
  if (!a.restored) run_stage(a);
  std::vector<store::OutputFile> outputs = collect_outputs(a);
  if (a.r.status == Status::kCached && a.o.cancel && a.o.cancel->load()) throw Interrupted();
  return outputs;
}

// ---- place and record ------------------------------------------------------

// New files over old ones, then the recorded old files the new set lacks (a
// sidecar an earlier, larger version had).
void Builder::place(const Node& node, const Decision& d, const fs::path& staging,
                    const std::vector<store::OutputFile>& outputs) {
  const fs::path dir = model_dir(node.model);
  const std::int64_t stamp = disk_.now_ns();
  owned_.require(dir / node.primary_output, "write");
  disk_.make_directories(dir);
  for (const auto& out : outputs) disk_.rename(staging / out.name, dir / out.name);
  disk_.sync_directory(dir);
  if (d.record)
    for (const auto& old : d.record->outputs) {
      bool kept = std::any_of(outputs.begin(), outputs.end(), [&](const auto& out) { return out.name == old.name; });
      if (!kept) remove_owned(dir / old.name);
    }
  discard(staging);
  for (const auto& out : outputs) state_.stat_cache().record(dir / out.name, out.digest, stamp);
}

void Builder::store_in_cache(const BuildOptions& o, NodeResult& r, const fs::path& dir) {
  if (r.status != Status::kCompleted || !o.cache) return;
  try {
    store::ActionEntry entry{r.key, r.implementation, r.elapsed_seconds, r.metrics_json.str(), r.outputs};
    o.cache->store(entry, dir);
    // Only what ran here is shared: a restore came from a cache already.
    if (o.remote) o.remote->upload(entry, *o.cache);
  } catch (const std::exception& e) {
    r.reason += "; not cached: " + std::string(e.what());  // the build itself succeeded
  }
}

void Builder::place_and_record(std::size_t index, const BuildOptions& o, const Decision& d, const fs::path& staging,
                               std::vector<store::OutputFile> outputs, NodeResult& r) {
  const Node& node = graph_.nodes[index];
  place(node, d, staging, outputs);
  r.outputs = std::move(outputs);
  store::NodeRecord record;
  record.key = r.key;
  record.implementation = r.implementation;
  record.elapsed_seconds = r.elapsed_seconds;
  record.finished_ns = disk_.now_ns();
  record.metrics_json = r.metrics_json;
  record.outputs = r.outputs;
  // Recorded only now that every output is in place.
  state_.put(ids_[index], record);
  ingredients_.add(r.key, node.static_digest, statics_of(node), r.inputs);
  store_in_cache(o, r, model_dir(node.model));
}

NodeResult Builder::process(std::size_t index, const BuildOptions& o, const std::vector<NodeResult>& results) {
  Decision d;
  if (!decide(index, o, results, d)) return std::move(d.result);
  NodeResult& r = d.result;
  const Node& node = graph_.nodes[index];
  if (observer_) observer_->node_started(node, r.reason);
  const auto start = std::chrono::steady_clock::now();
  // Per process: a command orphaned by a killed build can never write into
  // the staging area of a later one.
  Attempt a{index,
            node,
            o,
            d,
            results,
            paths_.state_dir / "staging" / (node.model + "." + node.name + "." + std::to_string(current_process_id())),
            r};
  try {
    owned_.require(a.staging, "write");
    disk_.remove_tree(a.staging);
    disk_.make_directories(a.staging);
    std::vector<store::OutputFile> outputs = obtain(a);
    r.elapsed_seconds = seconds_since(start);
    place_and_record(index, o, d, a.staging, std::move(outputs), r);
  } catch (const Interrupted&) {
    discard(a.staging);
    return interrupted(std::move(r), start);
  } catch (const std::exception& e) {
    discard(a.staging);
    // A stage whose command died of the same Ctrl-C was interrupted, not broken.
    if (o.cancel && o.cancel->load()) return interrupted(std::move(r), start);
    r.status = Status::kFailed;
    r.input_error = dynamic_cast<const InputError*>(&e) != nullptr;
    r.reason = e.what();
    r.elapsed_seconds = seconds_since(start);
  }
  return std::move(r);
}

// ---- the workers -----------------------------------------------------------

NodeResult Builder::settle(const Job& job, Run& run, std::unique_lock<std::mutex>& lock) {
  // Whatever a node throws (a disk error deciding it, a runner's bug) ends
  // as its failure, never in the worker thread's stack.
  try {
    if (run.results[job.node].status == Status::kFailed) return run.results[job.node];  // --rebuild could not clear it
    switch (job.work) {
      case Work::kInterrupt: return not_started("interrupted");
      case Work::kStop: return not_started(job.reason);
      // Decided at once, under the lock: such lines come in stage order.
      case Work::kDecideOnly: return process(job.node, run.o, run.results);
      case Work::kRun: break;
    }
    lock.unlock();
    NodeResult r;
    try {
      r = process(job.node, run.o, run.results);
    } catch (...) {
      lock.lock();
      throw;
    }
    lock.lock();
    return r;
  } catch (const std::exception& e) {
    return failed(e.what());
  } catch (...) {
    return failed("unknown exception");
  }
}

void Builder::work(Scheduler& scheduler, Run& run) {
  std::unique_lock lock(run.mu);
  for (;;) {
    std::optional<Job> job;
    run.cv.wait(lock, [&] { return (job = scheduler.next()) || scheduler.finished(); });
    if (!job) return;
    const std::size_t i = job->node;
    run.results[i] = settle(*job, run, lock);
    scheduler.finish(i, outcome_of(run.results[i]));
    if (observer_) {
      // Before its dependants can start: they are reported after it. A
      // node that ran is reported outside the lock, as it ran.
      const bool ran = job->work == Work::kRun;
      if (ran) lock.unlock();
      try {
        observer_->node_finished(graph_.nodes[i], run.results[i]);
      } catch (...) {  // a report that could not be written loses the line, not the build
      }
      if (ran) lock.lock();
    }
    scheduler.release(i);
    run.cv.notify_all();
  }
}

void Builder::prepare(const BuildOptions& o, Run& run) {
  if (o.dry_run) return;
  // Leftovers of a killed build; usually there are none, which one stat tells.
  const fs::path staging = paths_.state_dir / "staging";
  if (disk_.stat(to_utf8(staging)).exists) discard(staging);
  if (!o.rebuild) return;
  for (std::size_t i = 0; i < graph_.nodes.size(); ++i)
    if (run.selected[i]) try {
        remove_artifacts(i, /*drop_record=*/false);
      } catch (const BuildError& e) {
        run.results[i] = failed(e.what());  // reported when its turn comes
      }
}

std::vector<NodeResult> Builder::build(const BuildOptions& o) {
  const std::size_t n = graph_.nodes.size();
  Run run{.o = o, .results = std::vector<NodeResult>(n), .selected = std::vector<bool>(n)};
  for (std::size_t i = 0; i < n; ++i) run.selected[i] = o.models.contains(graph_.nodes[i].model);
  if (observer_) {
    state_.stat_cache().on_hash_start = [this](const fs::path& f, std::uint64_t size) {
      if (size >= kBigFile) observer_->hashing(f, size);
    };
    observer_->hash_counter(&hashed_);
  }
  state_.stat_cache().hash_progress = &hashed_;
  prepare(o, run);
  const std::size_t selected = std::count(run.selected.begin(), run.selected.end(), true);
  const int threads = std::max(1, std::min<int>(o.jobs, static_cast<int>(std::max<std::size_t>(selected, 1))));
  Scheduler scheduler(graph_, run.selected,
                      {.jobs = threads, .keep_going = o.keep_going, .dry_run = o.dry_run, .cancel = o.cancel});
  if (threads == 1) {
    work(scheduler, run);
  } else {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back([&] { work(scheduler, run); });
    for (auto& t : pool) t.join();
  }
  state_.stat_cache().on_hash_start = nullptr;
  state_.stat_cache().hash_progress = nullptr;
  return std::move(run.results);
}

}  // namespace winml::graph
