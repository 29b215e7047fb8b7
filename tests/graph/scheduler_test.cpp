// The scheduler alone, ninja's PlanTest way: graphs of named nodes, jobs
// taken and finished by hand, the states and the work handed out checked at
// each step. Then KeysInFlight, which runs steps with one key once.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <thread>

#include "graph/keys_in_flight.h"
#include "graph/scheduler.h"
#include "store/digest.h"

using namespace winml;
using graph::NodeState;
using graph::Work;

namespace {

// Per model, a chain of stages: "<model>/<stage>", each depending on the one before.
graph::Graph chains(const std::vector<std::string>& models, const std::vector<std::string>& stages) {
  graph::Graph g;
  for (const auto& m : models) {
    g.models.push_back(m);
    for (std::size_t s = 0; s < stages.size(); ++s) {
      graph::Node n;
      n.model = m;
      n.name = stages[s];
      if (s > 0) n.deps = {g.nodes.size() - 1};
      g.nodes.push_back(n);
    }
  }
  return g;
}

std::vector<bool> all(const graph::Graph& g) { return std::vector<bool>(g.nodes.size(), true); }

graph::SchedulerOptions jobs(int n, bool keep_going = false) {
  graph::SchedulerOptions o;
  o.jobs = n;
  o.keep_going = keep_going;
  return o;
}

// Takes the next job, which must exist, and checks its node.
graph::Job take(graph::Scheduler& s, const graph::Graph& g, const std::string& id) {
  auto job = s.next();
  EXPECT_TRUE(job.has_value()) << "expected " << id;
  if (!job) return {};
  EXPECT_EQ(g.nodes[job->node].id(), id);
  return *job;
}

void done(graph::Scheduler& s, std::size_t node, NodeState outcome = NodeState::kDone) {
  s.finish(node, outcome);
  s.release(node);
}

}  // namespace

TEST(Scheduler, ANodeStartsOnlyAfterItsDependencies) {
  auto g = chains({"a"}, {"export", "optimize", "package"});
  graph::Scheduler s(g, all(g), jobs(4));
  EXPECT_EQ(s.state(0), NodeState::kReady);
  EXPECT_EQ(s.state(1), NodeState::kWaiting);
  auto job = take(s, g, "a/export");
  EXPECT_EQ(job.work, Work::kRun);
  EXPECT_EQ(s.state(0), NodeState::kRunning);
  EXPECT_FALSE(s.next()) << "optimize must wait for export";
  s.finish(0, NodeState::kDone);
  EXPECT_FALSE(s.next()) << "finished but not released: its dependants wait";
  s.release(0);
  EXPECT_EQ(s.state(1), NodeState::kReady);
  done(s, take(s, g, "a/optimize").node);
  done(s, take(s, g, "a/package").node);
  EXPECT_TRUE(s.finished());
  EXPECT_EQ(s.state(2), NodeState::kDone);
}

TEST(Scheduler, ReadyNodesGoInTheOrderTheyBecameReady) {
  auto g = chains({"a", "b", "c"}, {"export", "package"});
  graph::Scheduler s(g, all(g), jobs(8));
  auto a = take(s, g, "a/export");
  auto b = take(s, g, "b/export");
  auto c = take(s, g, "c/export");
  done(s, c.node);
  done(s, a.node);
  take(s, g, "c/package");
  take(s, g, "a/package");
  EXPECT_FALSE(s.next());
  done(s, b.node);
  take(s, g, "b/package");
}

TEST(Scheduler, NoMoreThanJobsNodesRunAtOnce) {
  auto g = chains({"a", "b", "c", "d"}, {"export"});
  graph::Scheduler s(g, all(g), jobs(2));
  auto a = take(s, g, "a/export");
  take(s, g, "b/export");
  EXPECT_EQ(s.running(), 2u);
  EXPECT_FALSE(s.next()) << "-j 2";
  done(s, a.node);
  take(s, g, "c/export");
  EXPECT_FALSE(s.next());
}

TEST(Scheduler, AFailureStopsWhatIsNotStartedAndSaysWhereMinusKWouldHelp) {
  auto g = chains({"a", "b"}, {"export", "optimize"});
  graph::Scheduler s(g, all(g), jobs(1));
  done(s, take(s, g, "a/export").node, NodeState::kFailed);
  EXPECT_EQ(s.stop_reason(), "not started: a/export failed");
  // b/export was ready first; a/optimize became ready when a/export finished.
  auto b = take(s, g, "b/export");
  EXPECT_EQ(b.work, Work::kStop);
  EXPECT_EQ(b.reason, "not started: a/export failed (use -k to keep going)");
  done(s, b.node, NodeState::kNotRun);
  auto a_opt = take(s, g, "a/optimize");
  EXPECT_EQ(a_opt.work, Work::kStop);
  EXPECT_EQ(a_opt.reason, "not started: a/export failed") << "-k would not run it either";
  done(s, a_opt.node, NodeState::kNotRun);
  auto b_opt = take(s, g, "b/optimize");
  EXPECT_EQ(b_opt.reason, "not started: a/export failed (use -k to keep going)") << "its chain needs no failed node";
  done(s, b_opt.node, NodeState::kNotRun);
  EXPECT_TRUE(s.finished());
}

TEST(Scheduler, WithKeepGoingAFailureBlocksOnlyWhatDependsOnIt) {
  auto g = chains({"a", "b"}, {"export", "optimize", "package"});
  graph::Scheduler s(g, all(g), jobs(2, /*keep_going=*/true));
  auto a = take(s, g, "a/export");
  auto b = take(s, g, "b/export");
  done(s, a.node, NodeState::kFailed);
  EXPECT_EQ(s.stop_reason(), "");
  EXPECT_EQ(b.work, Work::kRun);
  // Failures downstream: a/optimize cannot run (its input failed), nor can
  // a/package (its input was skipped); each is handed out to say so.
  auto a_opt = take(s, g, "a/optimize");
  EXPECT_EQ(a_opt.work, Work::kDecideOnly);
  done(s, a_opt.node, NodeState::kNotRun);
  auto a_pkg = take(s, g, "a/package");
  EXPECT_EQ(a_pkg.work, Work::kDecideOnly);
  done(s, a_pkg.node, NodeState::kNotRun);
  done(s, b.node);
  EXPECT_EQ(take(s, g, "b/optimize").work, Work::kRun);
}

TEST(Scheduler, InADryRunAFailureIsOneThatWouldHappen) {
  auto g = chains({"a", "b"}, {"export"});
  graph::SchedulerOptions o = jobs(1);
  o.dry_run = true;
  graph::Scheduler s(g, all(g), o);
  done(s, take(s, g, "a/export").node, NodeState::kFailed);
  EXPECT_EQ(take(s, g, "b/export").reason, "not started: a/export would fail (use -k to keep going)");
}

TEST(Scheduler, CancellationHandsOutEveryRemainingNodeAsInterrupted) {
  auto g = chains({"a", "b"}, {"export", "optimize"});
  std::atomic<bool> cancel{false};
  graph::SchedulerOptions o = jobs(2);
  o.cancel = &cancel;
  graph::Scheduler s(g, all(g), o);
  auto a = take(s, g, "a/export");
  auto b = take(s, g, "b/export");
  cancel = true;
  done(s, a.node, NodeState::kNotRun);
  done(s, b.node);
  for (const char* id : {"a/optimize", "b/optimize"}) {
    auto job = take(s, g, id);
    EXPECT_EQ(job.work, Work::kInterrupt) << id;
    done(s, job.node, NodeState::kNotRun);
  }
  EXPECT_TRUE(s.finished());
}

TEST(Scheduler, UnselectedNodesAreSkippedAndHoldNothingBack) {
  auto g = chains({"a", "b"}, {"export", "package"});
  std::vector<bool> selected = {false, false, true, true};
  graph::Scheduler s(g, selected, jobs(4));
  EXPECT_EQ(s.state(0), NodeState::kNotRun);
  done(s, take(s, g, "b/export").node);
  done(s, take(s, g, "b/package").node);
  EXPECT_FALSE(s.next());
  EXPECT_TRUE(s.finished());
  // A selected node whose input is not selected cannot run: it is decided only.
  std::vector<bool> only_package = {false, true, false, false};
  graph::Scheduler t(g, only_package, jobs(1));
  EXPECT_EQ(take(t, g, "a/package").work, Work::kDecideOnly);
}

TEST(Scheduler, MisuseIsALogicError) {
  auto g = chains({"a"}, {"export", "package"});
  graph::Scheduler s(g, all(g), jobs(1));
  EXPECT_THROW(s.finish(1, NodeState::kDone), std::logic_error) << "not running";
  auto job = take(s, g, "a/export");
  EXPECT_THROW(s.finish(job.node, NodeState::kRunning), std::logic_error);
  EXPECT_THROW(graph::Scheduler(g, {true}, jobs(1)), std::logic_error) << "one flag per node";
  g.nodes[0].deps = {1};
  EXPECT_THROW(graph::Scheduler(g, all(g), jobs(1)), std::logic_error) << "deps point backwards";
}

TEST(Scheduler, EveryStateHasItsOwnName) {
  std::set<std::string> names;
  for (auto s : {NodeState::kWaiting, NodeState::kReady, NodeState::kRunning, NodeState::kDone, NodeState::kFailed,
                 NodeState::kNotRun})
    names.insert(graph::state_name(s));
  EXPECT_EQ(names.size(), 6u);
}

TEST(KeysInFlight, TheSecondHolderOfAKeyWaitsForTheFirst) {
  graph::KeysInFlight keys;
  const auto key = store::digest_of("the same step");
  auto first = keys.hold(key);
  EXPECT_FALSE(first.waited());
  std::atomic<bool> second_started{false}, second_has_it{false};
  bool second_waited = false;
  std::thread second([&] {
    second_started = true;
    auto h = keys.hold(key);
    second_waited = h.waited();
    second_has_it = true;
  });
  // Released only once the second thread runs (on a loaded machine a new
  // thread may not start within the sleep below), and is in hold() by then.
  while (!second_started) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_FALSE(second_has_it) << "the key is still held";
  first.release();
  second.join();
  EXPECT_TRUE(second_waited);
  // Another key never waits.
  EXPECT_FALSE(keys.hold(store::digest_of("another step")).waited());
}
