// Runs a graph: decides per node whether it is up to date (key and outputs
// unchanged), restores it from the cache, or runs it through the NodeRunner;
// places outputs atomically and records them. Independent nodes run on `jobs`
// threads. Keys of a node's dependants are computed from the digests of the
// outputs it actually produced, so a node that reruns to the same bytes stops
// the rebuild there (early cutoff).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "graph/inputs.h"
#include "graph/keys_in_flight.h"
#include "graph/model_selection.h"
#include "graph/node.h"
#include "graph/runner.h"
#include "graph/scheduler.h"
#include "store/build_state.h"
#include "store/cache.h"
#include "store/confined_dir.h"
#include "store/ingredient_log.h"
#include "store/remote_cache.h"
#include "store/shared_text.h"

namespace winml::graph {

enum class Status {
  kUpToDate,   // key and outputs unchanged
  kCompleted,  // ran
  kCached,     // restored from the cache
  kDisabled,   // disabled (in the config, by -D or by a flag such as --no-quant)
  kFailed,
  kNotRun,  // blocked by a failed dependency, stopped after a failure, or interrupted
  kStale,   // dry run: would run
};

// The one word for each status, shared by everything that reports one: the
// --json report, build_manifest.json, and (hyphens as spaces) every line the
// CLI prints: up-to-date, completed, cached, skipped, failed, not-run. A dry
// run runs nothing, so there a stale stage would-run and a failed one
// would-fail.
const char* status_word(Status s, bool dry_run = false);

// A cache entry found for the node's key and refused (the node ran instead).
struct CacheRejection {
  std::string source;  // "local" or "remote"
  store::Rejection why;
};

struct NodeResult {
  Status status = Status::kNotRun;
  std::string reason;                    // why it ran / was skipped / failed
  std::vector<std::string> explanation;  // with --explain: every changed ingredient
  bool has_key = false;
  Digest key;
  std::vector<Ingredient> inputs;  // the dynamic ingredients (input digests)
  std::vector<store::OutputFile> outputs;
  std::string implementation;
  store::SharedText metrics_json = store::SharedText::literal("{}");
  double elapsed_seconds = 0;   // this run
  bool from_remote = false;     // kCached: the remote cache provided it
  bool input_error = false;     // failed on bad input (exit 2) rather than a stage error
  bool newly_disabled = false;  // kDisabled: the last build ran it; its artifacts are (in a dry run: would be) removed
  std::vector<CacheRejection> rejections;
};

struct BuildOptions {
  int jobs = 1;
  bool keep_going = false;
  bool rebuild = false;  // delete every artifact of the selected models first; never restore from the cache
  bool dry_run = false;  // decide and explain, write nothing
  bool explain = false;  // fill NodeResult::explanation
  store::LocalCache* cache = nullptr;
  store::RemoteCache* remote = nullptr;  // consulted on a local miss; used only with `cache`
  bool cached_only = false;              // a stage that would have to run fails instead
  const std::atomic<bool>* cancel = nullptr;
  ModelSelection models;
};

class BuildObserver {
 public:
  virtual ~BuildObserver() = default;
  virtual void node_started(const Node& node, const std::string& reason) {}
  virtual void node_finished(const Node& node, const NodeResult& result) {}
  // The started node's stage runs, reporting how far it is into `progress_file`
  // (base/progress.h) until node_finished.
  virtual void node_running(const Node& node, const fs::path& progress_file) {}
  // A file of `size` bytes is about to be hashed (called for big files only).
  virtual void hashing(const fs::path& file, std::uint64_t size) {}
  // Bytes hashed so far in this build; grows while files are read. Called
  // once, before the first node; valid until build() returns.
  virtual void hash_counter(const std::atomic<std::uint64_t>* bytes) {}
};

struct BuildPaths {
  fs::path project_dir;
  fs::path output_dir;  // <output_dir>/<model>/<file>
  fs::path state_dir;   // <output_dir>/.winml-make
};

class Builder {
 public:
  Builder(const Graph& graph, BuildPaths paths, store::BuildState& state, store::IngredientLog& ingredients,
          NodeRunner& runner, BuildObserver* observer = nullptr);

  // One result per node of the graph (nodes of unselected models stay kNotRun
  // with an empty reason).
  std::vector<NodeResult> build(const BuildOptions& options);

  fs::path model_dir(const std::string& model) const { return paths_.output_dir / model; }

 private:
  // A node is processed in three steps, ninja's way: decide (inputs, key, and
  // whether and why it must run), obtain (restore from the cache or run, into
  // a private staging folder; outputs hashed), then place and record.
  struct Decision {
    NodeResult result;
    std::shared_ptr<const store::NodeRecord> record;  // the previous build's, if any
    std::vector<ResolvedInput> extra;                 // the declared inputs, resolved
    bool upstream_stale = false;                      // dry run: an input will be rebuilt first
  };
  // One node being obtained: where it is staged and what was found so far.
  struct Attempt {
    std::size_t index;
    const Node& node;
    const BuildOptions& o;
    const Decision& d;
    const std::vector<NodeResult>& results;
    fs::path staging;
    NodeResult& r;
    KeysInFlight::Hold hold;                  // until the result is in the cache
    bool restored = false;                    // from a cache, checked
    std::vector<store::OutputFile> verified;  // digests the cache restore already checked
  };
  struct Run;  // one build() call: its results and the workers' lock

  // The workers' loop: take a job from the scheduler, settle it, report it.
  void work(Scheduler& scheduler, Run& run);
  // The result of a job; never throws.
  NodeResult settle(const Job& job, Run& run, std::unique_lock<std::mutex>& lock);
  // Removes what --rebuild replaces and what a killed build left in staging.
  void prepare(const BuildOptions& o, Run& run);

  NodeResult process(std::size_t index, const BuildOptions& o, const std::vector<NodeResult>& results);
  // False when the decision is final (up to date, skipped, not run, stale in
  // a dry run, or a missing declared input); true when the node must run.
  bool decide(std::size_t index, const BuildOptions& o, const std::vector<NodeResult>& results, Decision& d);
  bool skip_disabled(std::size_t index, const BuildOptions& o, NodeResult& r);
  // The dependencies' outputs and the declared inputs as ingredients; false
  // (and the result says why) when one is missing.
  bool gather_inputs(std::size_t index, const BuildOptions& o, const std::vector<NodeResult>& results, Decision& d);
  // Dry run, an input stale: what can be said before its key is known.
  void stale_behind_input(const Node& node, const BuildOptions& o, Decision& d);
  // Why the node must run (empty: it is up to date).
  std::string why_run(std::size_t index, const BuildOptions& o, Decision& d);
  std::string output_problem(const Node& node, const store::NodeRecord& record) const;
  std::vector<Ingredient> ingredients_now(const Node& node, const std::vector<Ingredient>& inputs);

  std::vector<store::OutputFile> obtain(Attempt& a);
  // Restores `entry` into staging when it is exactly what the node makes;
  // otherwise counts it as a miss, says why, and empties staging again.
  bool try_restore(Attempt& a, const store::ActionEntry& entry, const char* source);
  void restore_from_caches(Attempt& a);
  // Another node of this build with the same key may be running it: waits,
  // then takes its fresh result.
  void take_from_same_key(Attempt& a);
  void run_stage(Attempt& a);
  // Every file left in staging, checked, the primary one first, hashed.
  std::vector<store::OutputFile> collect_outputs(Attempt& a);
  void check_what_ran(Attempt& a, const std::vector<std::string>& names);
  // Whether `names` (in `dir`) are exactly the files of the node's artifact
  // there, as the runner reads them from it.
  std::optional<store::Rejection> artifact_problem(const Node& node, const fs::path& dir,
                                                   const std::vector<std::string>& names);
  void place_and_record(std::size_t index, const BuildOptions& o, const Decision& d, const fs::path& staging,
                        std::vector<store::OutputFile> outputs, NodeResult& r);
  void place(const Node& node, const Decision& d, const fs::path& staging,
             const std::vector<store::OutputFile>& outputs);
  void store_in_cache(const BuildOptions& o, NodeResult& r, const fs::path& dir);
  void remove_artifacts(std::size_t index, bool drop_record);
  void remove_owned(const fs::path& file);  // a file of ours inside the output directory
  void discard(const fs::path& dir) const;  // a staging folder, whatever state it is in
  std::vector<Ingredient> statics_of(const Node& node);

  const Graph& graph_;
  BuildPaths paths_;
  store::ConfinedDir owned_;  // the output directory: nothing outside it is deleted or written
  store::BuildState& state_;
  store::DiskInterface& disk_;  // the state's: every file operation of the build goes through it
  store::IngredientLog& ingredients_;
  NodeRunner& runner_;
  BuildObserver* observer_;
  std::vector<std::string> ids_;  // Node::id() of each node, made once
  std::string output_prefix_;     // output_dir + '/'
  std::atomic<std::uint64_t> hashed_{0};
  KeysInFlight in_flight_;  // keys being run now
};

}  // namespace winml::graph
