// Which node of a build may start next, and what a finished one lets start:
// ninja's Plan, with n2's explicit per-node states. It holds no thread and
// touches no file: the builder's workers take work from it and report back,
// under their lock, so every rule of the order is tested here alone
// (tests/graph/scheduler_test.cpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "graph/node.h"

namespace winml::graph {

enum class NodeState {
  kWaiting,  // a dependency has not finished
  kReady,    // every dependency finished; queued
  kRunning,  // handed to a worker
  kDone,     // finished with its outputs in place (or nothing to do)
  kFailed,
  kNotRun,  // not selected, or a dependency failed, or not started
};
const char* state_name(NodeState s);

// What a worker is to do with the node it takes.
enum class Work {
  kRun,         // every dependency is done: decide, and run it if it is stale
  kDecideOnly,  // a dependency failed or was skipped: it cannot run, say why
  kStop,        // not started: an earlier node failed and -k is off (Job::reason says which)
  kInterrupt,   // not started: the build is being interrupted
};

struct Job {
  std::size_t node = 0;
  Work work = Work::kRun;
  std::string reason;  // for kStop
};

struct SchedulerOptions {
  int jobs = 1;             // nodes handed out at once
  bool keep_going = false;  // -k: a failure stops only what depends on it
  bool dry_run = false;     // a failure is a node that "would fail"
  const std::atomic<bool>* cancel = nullptr;
};

class Scheduler {
 public:
  // `selected[i]`: node i is built (others are kNotRun from the start and
  // hold back nothing).
  Scheduler(const Graph& graph, std::vector<bool> selected, SchedulerOptions options);

  // The oldest ready node, now running; none while no node is ready or
  // `jobs` nodes run. Ready nodes are handed out in the order they became
  // ready (the graph's order at first).
  std::optional<Job> next();
  // The node's work is over: kDone, kFailed or kNotRun. A failure stops
  // the build from here without -k. Its dependants stay waiting until
  // release(), so that the node can be reported before any of them.
  void finish(std::size_t node, NodeState outcome);
  // Dependants of a finished node whose dependencies have all finished
  // become ready.
  void release(std::size_t node);

  // Every selected node has finished.
  bool finished() const { return unfinished_ == 0; }
  NodeState state(std::size_t node) const { return states_[node]; }
  std::size_t running() const { return running_; }
  // "not started: <id> failed" once a failure stopped the build, else empty.
  const std::string& stop_reason() const { return stop_reason_; }

 private:
  Work work_for(std::size_t node, std::string& reason) const;
  bool depends_on_the_failure(std::size_t node) const;

  const Graph& graph_;
  SchedulerOptions options_;
  std::vector<NodeState> states_;
  std::vector<bool> needs_failure_;  // stopped, and it needed the failed node
  std::vector<int> pending_;         // unfinished selected dependencies
  std::vector<std::vector<std::size_t>> dependants_;
  std::deque<std::size_t> ready_;
  std::size_t unfinished_ = 0;
  std::size_t running_ = 0;
  std::string stop_reason_;
};

}  // namespace winml::graph
