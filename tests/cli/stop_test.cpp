// Stopping a build, on every system: a stop request to winml-make's own
// process (as CI cancellation sends it), winml-make killed, a stage worker
// killed mid-stage. Nothing winml-make started outlives it, the records say
// what happened, and the next build equals a clean one. The export command
// is winml_test_command (support/test_command.cpp), which writes its process
// id and then waits for a file "go" that the test never writes.
#include <gtest/gtest.h>

#include <cctype>

#include <chrono>
#include <csignal>
#include <thread>

#include "base/path_text.h"
#include "support/processes.h"
#include "support/project.h"

using namespace winml;
using test::Project;
namespace fs = std::filesystem;

namespace {

// A model whose export writes export.pid (the command's process id) and
// copies net.onnx once "go" exists.
std::string waiting_export(const std::string& name = "net", const std::string& pid_file = "export.pid") {
  return "[[model]]\nname = \"" + name + "\"\n[model.export]\ncommand = ['" + to_utf8(test::test_command()) +
         "', 'pid', '" + pid_file + "', 'wait', 'go', '300', 'copy', 'net.onnx', '{output}']\n"
         "inputs = [\"net.onnx\"]\n";
}

// The export command's process id once it is running (0 if it never starts).
long long command_pid(const Project& p, const std::string& pid_file = "export.pid") {
  // (Read until it holds a number: Wine may show the renamed file before its bytes.)
  std::string text;
  if (!test::wait_until(
          [&] {
            std::error_code ec;
            if (!fs::exists(p.root() / pid_file, ec)) return false;
            text = test::read_text(p.root() / pid_file);
            return !text.empty() && std::isdigit(static_cast<unsigned char>(text[0]));
          },
          60))
    return 0;
  return std::stoll(text);
}

// Whether the process ends within a few seconds.
bool ends(long long pid) {
  return test::wait_until([&] { return !test::process_running(pid); }, 10);
}

}  // namespace

TEST(Stop, AStopRequestToWinmlMakeAloneEndsTheCommandItRuns) {
  // As CI cancellation does: the signal reaches winml-make's process only,
  // not its process group. (On Windows the request is a Ctrl-Break event.)
  if (std::string why; !test::Background::signals_arrive(why)) GTEST_SKIP() << why;
  Project p;
  p.write_model("net.onnx", 1);
  p.write_config(waiting_export());
  test::Background run({"--no-cache"}, p.root(), p.cache_env());
  const long long command = command_pid(p);
  ASSERT_GT(command, 0);
  run.signal(SIGTERM);
  const auto r = run.wait();
  EXPECT_EQ(r.exit_code, 130) << r.out << r.err;
  EXPECT_TRUE(ends(command)) << "the export command (process " << command << ") outlived winml-make";
  EXPECT_FALSE(fs::exists(p.out("net", "export.onnx")));
  const auto m = nlohmann::json::parse(test::read_text(p.out("net", "build_manifest.json")));
  EXPECT_EQ(m["status"], "interrupted");
}

TEST(Stop, AStopRequestUnderTwoJobsEndsEveryWorkerAndCommand) {
  if (std::string why; !test::Background::signals_arrive(why)) GTEST_SKIP() << why;
  Project p;
  p.write_model("net.onnx", 1);
  p.write_config(waiting_export("a", "a.pid") + waiting_export("b", "b.pid"));
  test::Background run({"--no-cache", "-j2"}, p.root(), p.cache_env());
  const long long a = command_pid(p, "a.pid"), b = command_pid(p, "b.pid");
  ASSERT_GT(a, 0);
  ASSERT_GT(b, 0);
  const std::vector<long long> workers = test::child_processes(run.pid());
  EXPECT_GE(workers.size(), 2u) << "two stage workers run at once";
  run.signal(SIGINT);
  EXPECT_EQ(run.wait().exit_code, 130);
  for (long long pid : {a, b}) EXPECT_TRUE(ends(pid)) << "export command " << pid << " outlived winml-make";
  for (long long pid : workers) EXPECT_TRUE(ends(pid)) << "worker " << pid << " outlived winml-make";
}

TEST(Stop, KillingWinmlMakeLeavesNoWorkerNorCommandAndTheNextBuildEqualsACleanOne) {
  Project p, clean;
  for (Project* x : {&p, &clean}) {
    x->write_model("net.onnx", 1);
    x->write_config(waiting_export());
  }
  long long command = 0;
  std::vector<long long> workers;
  {
    test::Background run({"--no-cache"}, p.root(), p.cache_env());
    command = command_pid(p);
    ASSERT_GT(command, 0);
    workers = test::child_processes(run.pid());
    run.kill_group();  // winml-make's process tree, as a CI runner's hard stop
    run.wait();
  }
  EXPECT_TRUE(ends(command)) << "the export command outlived winml-make";
  for (long long pid : workers) EXPECT_TRUE(ends(pid)) << "worker " << pid << " outlived winml-make";
  for (Project* x : {&p, &clean}) x->write("go", "");
  const auto again = p.build({"--no-cache"});
  EXPECT_EQ(test::statuses(again)["net/export"], "completed");
  clean.build({"--no-cache"});
  EXPECT_EQ(test::artifacts(p.root() / "build"), test::artifacts(clean.root() / "build"));
}

TEST(Stop, AWorkerKilledMidStageFailsItsModelOnlyWithHonestRecords) {
  // One worker dies as a crash ends a process (SIGSEGV on POSIX; on Windows
  // TerminateProcess with 0xC0000005, an access violation's code): with -k
  // the other model finishes, the dead one's command ends with it, and the
  // next build completes what was left and equals a clean build.
  Project p, clean;
  for (Project* x : {&p, &clean}) {
    x->write_model("net.onnx", 1);
    x->write_config(waiting_export("slow", "slow.pid") +
                    "[[model]]\nname = \"fast\"\nsource = \"net.onnx\"\n");
  }
  test::Background run({"--no-cache", "-k", "-j2", "--json"}, p.root(), p.cache_env());
  const long long command = command_pid(p, "slow.pid");
  ASSERT_GT(command, 0);
  // The worker running the export is the command's parent, one of winml-make's children.
  long long worker = 0;
  for (long long w : test::child_processes(run.pid()))
    for (long long c : test::child_processes(w))
      if (c == command) worker = w;
  ASSERT_GT(worker, 0) << "no worker of winml-make runs the export command";
  test::crash_process(worker);
  const auto r = run.wait();
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto report = nlohmann::json::parse(r.out);
  const auto s = test::statuses(report);
  EXPECT_EQ(s.at("slow/export"), "failed");
  EXPECT_EQ(s.at("fast/package"), "completed");
  EXPECT_TRUE(r.err.find("died of SIGSEGV") != std::string::npos ||
              r.err.find("died of 0xC0000005 (access violation)") != std::string::npos)
      << r.err;
  EXPECT_TRUE(ends(command)) << "the dead worker's export command went on running";
  EXPECT_FALSE(fs::exists(p.out("slow", "export.onnx")));
  for (Project* x : {&p, &clean}) x->write("go", "");
  const auto again = p.build({"--no-cache"});
  EXPECT_EQ(test::statuses(again)["slow/export"], "completed");
  EXPECT_EQ(test::statuses(again)["fast/export"], "up-to-date");
  clean.build({"--no-cache"});
  EXPECT_EQ(test::artifacts(p.root() / "build"), test::artifacts(clean.root() / "build"));
}
