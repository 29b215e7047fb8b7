#include "graph/scheduler.h"

#include <algorithm>
#include <stdexcept>

namespace winml::graph {

const char* state_name(NodeState s) {
  switch (s) {
    case NodeState::kWaiting: return "waiting";
    case NodeState::kReady: return "ready";
    case NodeState::kRunning: return "running";
    case NodeState::kDone: return "done";
    case NodeState::kFailed: return "failed";
    case NodeState::kNotRun: return "not run";
  }
  return "?";
}

Scheduler::Scheduler(const Graph& graph, std::vector<bool> selected, SchedulerOptions options)
    : graph_(graph), options_(options) {
  const std::size_t n = graph.nodes.size();
  if (selected.size() != n) throw std::logic_error("Scheduler: one selection flag per node");
  states_.assign(n, NodeState::kNotRun);
  needs_failure_.assign(n, false);
  pending_.assign(n, 0);
  dependants_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!selected[i]) continue;
    for (std::size_t d : graph.nodes[i].deps) {
      if (d >= i) throw std::logic_error("Scheduler: " + graph.nodes[i].id() + " depends on a later node");
      if (!selected[d]) continue;
      ++pending_[i];
      dependants_[d].push_back(i);
    }
    ++unfinished_;
    states_[i] = pending_[i] == 0 ? NodeState::kReady : NodeState::kWaiting;
    if (pending_[i] == 0) ready_.push_back(i);
  }
}

bool Scheduler::depends_on_the_failure(std::size_t node) const {
  for (std::size_t d : graph_.nodes[node].deps)
    if (states_[d] == NodeState::kFailed || needs_failure_[d]) return true;
  return false;
}

Work Scheduler::work_for(std::size_t node, std::string& reason) const {
  if (options_.cancel && options_.cancel->load()) return Work::kInterrupt;
  if (!stop_reason_.empty()) {
    // -k would run this node only if it does not need the failed one.
    reason = depends_on_the_failure(node) ? stop_reason_ : stop_reason_ + " (use -k to keep going)";
    return Work::kStop;
  }
  for (std::size_t d : graph_.nodes[node].deps)
    if (states_[d] == NodeState::kFailed || states_[d] == NodeState::kNotRun) return Work::kDecideOnly;
  return Work::kRun;
}

std::optional<Job> Scheduler::next() {
  if (ready_.empty() || running_ >= static_cast<std::size_t>(std::max(options_.jobs, 1))) return std::nullopt;
  Job job;
  job.node = ready_.front();
  ready_.pop_front();
  job.work = work_for(job.node, job.reason);
  // A node stopped because it needs the failure: so do its dependants.
  needs_failure_[job.node] = job.work == Work::kStop && job.reason == stop_reason_;
  states_[job.node] = NodeState::kRunning;
  ++running_;
  return job;
}

void Scheduler::finish(std::size_t node, NodeState outcome) {
  if (states_[node] != NodeState::kRunning)
    throw std::logic_error("Scheduler: " + graph_.nodes[node].id() + " is not running");
  if (outcome != NodeState::kDone && outcome != NodeState::kFailed && outcome != NodeState::kNotRun)
    throw std::logic_error("Scheduler: a node finishes done, failed or skipped");
  states_[node] = outcome;
  --running_;
  --unfinished_;
  if (outcome == NodeState::kFailed && !options_.keep_going && stop_reason_.empty())
    stop_reason_ = "not started: " + graph_.nodes[node].id() + (options_.dry_run ? " would fail" : " failed");
}

void Scheduler::release(std::size_t node) {
  for (std::size_t d : dependants_[node])
    if (--pending_[d] == 0) {
      states_[d] = NodeState::kReady;
      ready_.push_back(d);
    }
}

}  // namespace winml::graph
