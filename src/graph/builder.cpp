#include "graph/builder.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "base/atomic_file.h"
#include "base/error.h"
#include "graph/explain.h"
#include "graph/inputs.h"
#include "graph/key.h"

namespace winml::graph {

const char* status_word(Status s, bool dry_run) {
  switch (s) {
    case Status::kUpToDate: return "up-to-date";
    case Status::kCompleted: return "completed";
    case Status::kCached: return "cached";
    case Status::kSkipped: return "skipped";
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

}  // namespace

Builder::Builder(const Graph& graph, BuildPaths paths, store::BuildState& state, store::IngredientLog& ingredients,
                 NodeRunner& runner, BuildObserver* observer)
    : graph_(graph),
      paths_(std::move(paths)),
      owned_(paths_.output_dir),
      state_(state),
      disk_(state.disk()),
      ingredients_(ingredients),
      runner_(runner),
      observer_(observer) {
  output_prefix_ = paths_.output_dir.native() + "/";
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

bool Builder::decide(std::size_t index, const BuildOptions& o, const std::vector<NodeResult>& results, Decision& d) {
  const Node& node = graph_.nodes[index];
  NodeResult& r = d.result;
  r.implementation = node.implementation;

  if (!node.enabled) {
    r.status = Status::kSkipped;
    r.reason = node.disabled_reason;
    // The last build ran it: its artifacts (known from its record) go, and
    // the record stays without them, so that enabling the stage again is
    // told as such rather than as "never built".
    auto rec = state_.find(ids_[index]);
    r.newly_skipped = rec && !rec->outputs.empty();
    if (r.newly_skipped && !o.dry_run) {
      remove_artifacts(index, /*drop_record=*/false);
      store::NodeRecord skipped = *rec;
      skipped.outputs.clear();
      skipped.metrics_json = store::SharedText::literal("{}");
      state_.put(ids_[index], skipped);
    }
    return false;
  }

  // Inputs: what the dependencies produced, then the declared extra inputs.
  bool upstream_stale = false;
  for (std::size_t dep_index : node.deps) {
    const NodeResult& dep = results[dep_index];
    const Node& dn = graph_.nodes[dep_index];
    if (dep.status == Status::kFailed || dep.status == Status::kNotRun) {
      r.status = Status::kNotRun;
      r.reason = dn.name + " " + (dep.status != Status::kFailed ? "did not run" : o.dry_run ? "would fail" : "failed");
      return false;
    }
    if (dep.status == Status::kStale) {
      upstream_stale = true;
      continue;
    }
    const std::string prefix = dn.model == node.model ? "" : dn.model + "/";
    for (const auto& out : dep.outputs) r.inputs.push_back(Ingredient{"input:" + prefix + out.name, out.digest, ""});
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

  if (upstream_stale) {
    // Dry run: an input will be rebuilt, so this key cannot be known yet;
    // a change of the stage's own settings or files can.
    r.status = Status::kStale;
    if (!d.record) {
      r.reason = "never built";
    } else if (d.record->outputs.empty()) {
      r.reason = kEnabledAgain;
    } else {
      std::vector<Ingredient> now = statics_of(node);
      now.insert(now.end(), r.inputs.begin(), r.inputs.end());
      const auto before = ingredients_.find(d.record->key);
      const std::string own = summarize_change_besides_inputs(before, now);
      r.reason = own.empty() ? "an input will be rebuilt (reruns only if its content changes)"
                             : own + "; an input will be rebuilt too";
      if (o.explain) r.explanation = explain_change_besides_inputs(before, now);
    }
    if (o.explain) r.explanation.push_back(r.reason);
    return false;
  }

  r.key = key_of(node.static_digest, r.inputs);
  r.has_key = true;

  const auto& rec = d.record;
  std::string reason;
  if (o.rebuild) {
    reason = "--rebuild";
  } else if (!rec) {
    reason = "never built";
  } else if (rec->outputs.empty()) {
    reason = kEnabledAgain;
  } else if (rec->key != r.key) {
    std::vector<Ingredient> now = statics_of(node);
    now.insert(now.end(), r.inputs.begin(), r.inputs.end());
    auto before = ingredients_.find(rec->key);
    reason = summarize_change(before, now);
    if (o.explain) r.explanation = explain_change(before, now);
  } else {
    // Paths as plain strings: std::filesystem::path construction costs more
    // than a stat on the no-op path.
    const std::string dir = output_prefix_ + node.model + "/";
    for (const auto& out : rec->outputs) {
      auto digest = state_.stat_cache().digest(dir + out.name);
      if (!digest) reason = "output " + out.name + " is missing";
      else if (*digest != out.digest) reason = "output " + out.name + " was modified";
      if (!reason.empty()) break;
    }
  }
  if (o.explain && r.explanation.empty() && !reason.empty()) r.explanation.push_back(reason);

  if (reason.empty()) {
    r.status = Status::kUpToDate;
    r.outputs = rec->outputs;
    r.metrics_json = rec->metrics_json;
    r.implementation = rec->implementation;
    return false;
  }
  r.reason = reason;
  if (o.dry_run) {
    r.status = Status::kStale;
    return false;
  }
  return true;
}

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

std::vector<store::OutputFile> Builder::obtain(std::size_t index, const BuildOptions& o, const Decision& d,
                                               const std::vector<NodeResult>& results, const fs::path& staging,
                                               NodeResult& r, KeysInFlight::Hold& hold) {
  const Node& node = graph_.nodes[index];
  std::vector<store::OutputFile> verified;  // digests the cache restore already checked
  bool restored = false;
  // An entry is restored only when it is exactly what this node makes: the
  // output rules before anything is placed, every placed file's digest, then
  // the files its artifact names. Otherwise it is a miss: a local entry is
  // dropped (the node's result replaces it), the refusal is reported.
  auto try_restore = [&](const store::ActionEntry& entry, const char* source) {
    std::optional<store::Rejection> why = store::outputs_problem(entry.outputs, node.primary_output);
    if (!why) why = o.cache->restore(entry, staging);
    if (!why) why = artifact_problem(node, staging, disk_.list_files(staging));
    if (!why) {
      restored = true;
      verified = entry.outputs;
      r.status = Status::kCached;
      r.implementation = entry.implementation;
      r.metrics_json = entry.metrics_json;
      return;
    }
    o.cache->forget(entry.key);
    r.reason += "; " + std::string(source) + " cache entry refused: " + why->reason + " (" + why->detail + ")";
    r.rejections.push_back({source, std::move(*why)});
    disk_.remove_tree(staging);
    disk_.make_directories(staging);
  };
  if (o.cache && !o.rebuild) {
    // The local cache first; the server on a miss (or a local entry that
    // proved wrong). A server's entry reaches the local cache only once
    // restored and checked.
    if (auto entry = o.cache->lookup(r.key)) try_restore(*entry, "local");
    if (!restored && o.remote) {
      store::Fetched fetched = o.remote->fetch(r.key, node.primary_output, *o.cache);
      if (fetched.rejected) {
        r.reason += "; remote cache entry refused: " + fetched.rejected->reason + " (" + fetched.rejected->detail + ")";
        r.rejections.push_back({"remote", std::move(*fetched.rejected)});
      }
      if (fetched.entry) {
        try_restore(*fetched.entry, "remote");
        r.from_remote = restored;
        if (!restored) o.remote->refused(r.key);
        if (restored) try {
            o.cache->put_entry(*fetched.entry);
          } catch (const std::exception& e) {
            r.reason += "; not cached: " + std::string(e.what());  // restored all the same
          }
      }
    }
  }
  if (!restored && o.cache) {
    // Another node of this build with the same key may be running it: wait,
    // then take its fresh result (under --rebuild too: it ran in this build).
    hold = in_flight_.hold(r.key);
    if (hold.waited())
      if (auto entry = o.cache->lookup(r.key)) {
        try_restore(*entry, "local");
        if (restored) r.reason += "; the same step ran for another model in this build";
      }
  }
  if (!restored && o.cached_only)
    throw BuildError("not in the cache, and --cached-only forbids running it (" + r.reason + ")");
  if (!restored) {
    std::vector<InputArtifact> artifacts;
    for (std::size_t dep_index : node.deps) {
      const Node& dn = graph_.nodes[dep_index];
      const fs::path ddir = model_dir(dn.model);
      InputArtifact a;
      a.primary = ddir / dn.primary_output;
      a.files.push_back(a.primary);
      for (const auto& out : results[dep_index].outputs)
        if (out.name != dn.primary_output) a.files.push_back(ddir / out.name);
      artifacts.push_back(std::move(a));
    }
    disk_.make_directories(paths_.state_dir / "logs");
    RunRequest req{node,
                   paths_.project_dir,
                   staging,
                   artifacts,
                   {},
                   o.cancel,
                   paths_.state_dir / "logs" / (node.model + "." + node.name + ".log")};
    for (const auto& e : d.extra) req.extra_inputs.push_back(fs::path(e.path));
    RunResult run = runner_.run(req);
    if (o.cancel && o.cancel->load()) throw Interrupted();
    r.status = Status::kCompleted;
    r.metrics_json = run.metrics_json;
  }

  // Outputs: every file left in staging; the primary one first.
  auto names = disk_.list_files(staging);
  if (std::find(names.begin(), names.end(), node.primary_output) == names.end())
    throw BuildError(node.id() + ": the stage did not write " + node.primary_output);
  if (!restored) {
    // What ran obeys the rules a cache entry must: the stage's output is
    // its artifact and the files the artifact names, nothing else.
    for (const auto& n : names)
      if (std::string why = store::output_name_problem(n); !why.empty())
        throw BuildError(node.id() + ": the stage left an unexpected file: " + why + " (outputs are plain files)");
    if (names.size() > store::kMaxEntryOutputs)
      throw BuildError(node.id() + ": the stage left " + std::to_string(names.size()) + " files (at most " +
                       std::to_string(store::kMaxEntryOutputs) + ")");
    if (auto why = artifact_problem(node, staging, names))
      throw BuildError(node.id() + ": the stage's outputs are not its artifact and the files it names: " + why->detail);
  }
  std::stable_partition(names.begin(), names.end(), [&](const std::string& n) { return n == node.primary_output; });
  std::vector<store::OutputFile> outputs;
  for (const auto& n : names) {
    auto known = std::find_if(verified.begin(), verified.end(), [&](const auto& v) { return v.name == n; });
    if (known != verified.end()) {
      outputs.push_back(*known);
      continue;
    }
    const std::uint64_t size = disk_.stat((staging / n).native()).size;
    if (observer_ && size >= kBigFile) observer_->hashing(model_dir(node.model) / n, size);
    outputs.push_back({n, disk_.hash(staging / n, nullptr, &hashed_), size});
  }
  if (r.status == Status::kCached && o.cancel && o.cancel->load()) throw Interrupted();
  return outputs;
}

void Builder::place_and_record(std::size_t index, const BuildOptions& o, const Decision& d, const fs::path& staging,
                               std::vector<store::OutputFile> outputs, NodeResult& r) {
  const Node& node = graph_.nodes[index];
  const fs::path dir = model_dir(node.model);
  // New files over old ones, then the recorded old files the new set lacks
  // (a sidecar an earlier, larger version had).
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

  if (r.status == Status::kCompleted && o.cache) {
    try {
      store::ActionEntry entry{r.key, r.implementation, r.elapsed_seconds, r.metrics_json.str(), r.outputs};
      o.cache->store(entry, dir);
      // Only what ran here is shared: a restore came from a cache already.
      if (o.remote) o.remote->upload(entry, *o.cache);
    } catch (const std::exception& e) {
      r.reason += "; not cached: " + std::string(e.what());  // the build itself succeeded
    }
  }
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
  const fs::path staging =
      paths_.state_dir / "staging" / (node.model + "." + node.name + "." + std::to_string(::getpid()));
  try {
    owned_.require(staging, "write");
    disk_.remove_tree(staging);
    disk_.make_directories(staging);
    KeysInFlight::Hold hold;  // until the result is in the cache for a node with the same key
    std::vector<store::OutputFile> outputs = obtain(index, o, d, results, staging, r, hold);
    r.elapsed_seconds = seconds_since(start);
    place_and_record(index, o, d, staging, std::move(outputs), r);
  } catch (const Interrupted&) {
    discard(staging);
    return interrupted(std::move(r), start);
  } catch (const std::exception& e) {
    discard(staging);
    // A stage whose command died of the same Ctrl-C was interrupted, not broken.
    if (o.cancel && o.cancel->load()) return interrupted(std::move(r), start);
    r.status = Status::kFailed;
    r.input_error = dynamic_cast<const InputError*>(&e) != nullptr;
    r.reason = e.what();
    r.elapsed_seconds = seconds_since(start);
  }
  return std::move(r);
}

bool Builder::input_missing(std::size_t index, const std::vector<NodeResult>& results) const {
  for (std::size_t d : graph_.nodes[index].deps)
    if (results[d].status == Status::kFailed || results[d].status == Status::kNotRun) return true;
  return false;
}

std::vector<NodeResult> Builder::build(const BuildOptions& o) {
  const std::size_t n = graph_.nodes.size();
  std::vector<NodeResult> results(n);
  std::vector<bool> selected(n, false);
  std::vector<int> pending(n, 0);
  std::vector<std::vector<std::size_t>> dependants(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Node& node = graph_.nodes[i];
    selected[i] = o.models.empty() || o.models.count(node.model);
    for (std::size_t d : node.deps) dependants[d].push_back(i);
  }
  for (std::size_t i = 0; i < n; ++i)
    if (selected[i])
      for (std::size_t d : graph_.nodes[i].deps)
        if (selected[d]) ++pending[i];

  if (observer_) {
    state_.stat_cache().on_hash_start = [this](const fs::path& f, std::uint64_t size) {
      if (size >= kBigFile) observer_->hashing(f, size);
    };
    observer_->hash_counter(&hashed_);
  }
  state_.stat_cache().hash_progress = &hashed_;
  if (!o.dry_run) {
    // Leftovers of a killed build; usually there are none, which one stat tells.
    const fs::path staging = paths_.state_dir / "staging";
    if (disk_.stat(staging.native()).exists) discard(staging);
    if (o.rebuild)
      for (std::size_t i = 0; i < n; ++i)
        if (selected[i]) try {
            remove_artifacts(i, /*drop_record=*/false);
          } catch (const BuildError& e) {
            results[i].status = Status::kFailed;  // reported when its turn comes
            results[i].reason = e.what();
          }
  }

  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::size_t> ready;
  std::size_t remaining = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (selected[i]) {
      ++remaining;
      if (pending[i] == 0) ready.push_back(i);
    }
  bool stop = false;  // a failure without -k
  std::string stop_reason;

  auto worker = [&] {
    std::unique_lock lock(mu);
    for (;;) {
      cv.wait(lock, [&] { return !ready.empty() || remaining == 0; });
      if (remaining == 0) return;
      std::size_t i = ready.front();
      ready.pop_front();
      NodeResult r;
      bool cancelled = o.cancel && o.cancel->load();
      // A node whose input was not built is decided at once: under the lock,
      // reported too, so that such lines come in stage order.
      bool ran = false;
      if (results[i].status == Status::kFailed) {
        r = results[i];
      } else if (stop || cancelled) {
        r.status = Status::kNotRun;
        // -k would run this node only if it does not need the failed one.
        bool needs_failed = false;
        for (std::size_t d : graph_.nodes[i].deps)
          if (results[d].status == Status::kFailed ||
              (results[d].status == Status::kNotRun && results[d].reason == stop_reason))
            needs_failed = true;
        r.reason = cancelled ? "interrupted" : needs_failed ? stop_reason : stop_reason + " (use -k to keep going)";
      } else if (input_missing(i, results)) {
        r = process(i, o, results);
      } else {
        ran = true;
        lock.unlock();
        try {
          r = process(i, o, results);
        } catch (const std::exception& e) {  // never let a node's failure escape a worker thread
          r = NodeResult{};
          r.status = Status::kFailed;
          r.reason = e.what();
        }
        lock.lock();
      }
      results[i] = std::move(r);
      if (results[i].status == Status::kFailed && !o.keep_going && !stop) {
        stop = true;
        stop_reason = "not started: " + graph_.nodes[i].id() + (o.dry_run ? " would fail" : " failed");
      }
      if (observer_) {
        // Before its dependants can start: they are reported after it.
        if (ran) lock.unlock();
        observer_->node_finished(graph_.nodes[i], results[i]);
        if (ran) lock.lock();
      }
      for (std::size_t d : dependants[i])
        if (selected[d] && --pending[d] == 0) ready.push_back(d);
      --remaining;
      cv.notify_all();
    }
  };

  int threads = std::max(1, std::min<int>(o.jobs, static_cast<int>(std::max<std::size_t>(remaining, 1))));
  if (threads == 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }
  state_.stat_cache().on_hash_start = nullptr;
  state_.stat_cache().hash_progress = nullptr;
  return results;
}

}  // namespace winml::graph
