// Concurrent runs, SIGINT and SIGKILL at any point: the next build always
// ends with exactly what a clean build produces.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "base/path_text.h"
#include "support/platform.h"
#include "support/project.h"
#include "store/lock.h"

using namespace winml;
using test::Project;
namespace fs = std::filesystem;

namespace {

// An export command that takes `seconds` when the file "slow" exists.
// An export that, while the file "slow" exists, writes 40 bytes of its
// output and waits `seconds` before copying net.onnx (winml_test_command:
// the same on every system).
std::string slow_export_config(const std::string& seconds) {
  return "[model]\nname = \"net\"\n[export]\ncommand = ['" + to_utf8(test::test_command()) +
         "', 'when', 'slow', 'head', '40', 'net.onnx', '{output}', 'sleep', '" + seconds +
         "', 'end', 'copy', 'net.onnx', '{output}']\ninputs = [\"net.onnx\"]\n";
}

bool any_file_named(const fs::path& dir, const std::string& name) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->path().filename() == name) return true;
  return false;
}

}  // namespace

TEST(Robustness, SecondConcurrentRunWaitsForTheFirst) {
  Project p;
  p.write_model("net.onnx", 1);
  p.write_config(slow_export_config("1"));
  p.write("slow", "");
  test::Background first({"--no-cache"}, p.root(), p.cache_env());
  // The first holds the lock once its export command is running.
  ASSERT_TRUE(
      test::wait_until([&] { return any_file_named(p.root() / "build" / ".winml-make" / "staging", "export.onnx"); }));
  auto timeout = p.run({"--no-cache", "--lock-timeout", "0.2"});
  EXPECT_EQ(timeout.exit_code, 1);
  EXPECT_NE(timeout.err.find("still locked by pid " + std::to_string(first.pid())), std::string::npos) << timeout.err;
  test::Background second({"--no-cache", "--json"}, p.root(), p.cache_env());
  auto a = first.wait();
  auto b = second.wait();
  EXPECT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(b.exit_code, 0) << b.err;
  EXPECT_NE(b.err.find("winml-make: waiting for pid " + std::to_string(first.pid())), std::string::npos) << b.err;
  // The second saw the first's finished work.
  auto report = nlohmann::json::parse(b.out);
  EXPECT_EQ(test::stages_with(report, "net", "completed").size(), 0u) << b.out;
}

TEST(Robustness, InterruptStopsTheRunningStageAndRecordsNothingHalfDone) {
  if (std::string why; !test::Background::signals_arrive(why)) GTEST_SKIP() << why;
  Project p;
  p.write_model("net.onnx", 1);
  p.write_config(slow_export_config("30"));
  p.write("slow", "");
  test::Background run({"--no-cache"}, p.root(), p.cache_env());
  ASSERT_TRUE(
      test::wait_until([&] { return any_file_named(p.root() / "build" / ".winml-make" / "staging", "export.onnx"); }));
  auto start = std::chrono::steady_clock::now();
  run.signal_group(SIGINT);  // as a terminal's Ctrl-C does: winml-make and its command
  auto r = run.wait();
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 130) << r.out << r.err;
  EXPECT_LT(took, 10.0);
  EXPECT_NE(r.err.find("interrupted"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(p.out("net", "export.onnx")));
  EXPECT_FALSE(any_file_named(p.root() / "build" / ".winml-make" / "staging", "export.onnx"));
  auto m = nlohmann::json::parse(test::read_text(p.out("net", "build_manifest.json")));
  EXPECT_EQ(m["status"], "interrupted");
  fs::remove(p.root() / "slow");
  auto again = p.build({"--no-cache"});
  EXPECT_EQ(test::statuses(again)["net/export"], "completed");
}

TEST(Robustness, InterruptStopsACommandThatIgnoresTheTerminalsSignal) {
  // A shell between two commands when Ctrl-C came, or a tool that ignores
  // SIGINT, goes on running: winml-make must stop it itself. (Windows has
  // no signal to ignore: tests/cli/stop_test.cpp ends commands there.)
  if (!test::on_posix()) GTEST_SKIP() << "a POSIX shell's trap; Windows delivers no signal to ignore";
  Project p;
  p.write_model("net.onnx", 1);
  p.write_config(
      "[model]\nname = \"net\"\n[export]\ncommand = [\"sh\", \"-c\", "
      "\"head -c 40 net.onnx > {output}; trap '' INT; exec sleep 30\"]\ninputs = [\"net.onnx\"]\n");
  test::Background run({"--no-cache"}, p.root(), p.cache_env());
  ASSERT_TRUE(
      test::wait_until([&] { return any_file_named(p.root() / "build" / ".winml-make" / "staging", "export.onnx"); }));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // past the trap
  auto start = std::chrono::steady_clock::now();
  run.signal_group(SIGINT);
  auto r = run.wait();
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 130) << r.out << r.err;
  EXPECT_LT(took, 10.0);
  EXPECT_FALSE(fs::exists(p.out("net", "export.onnx")));
}

TEST(Robustness, KillNineMidStageThenRebuildEqualsACleanBuild) {
  Project p, clean;
  for (Project* x : {&p, &clean}) {
    x->write_model("net.onnx", 1);
    x->write_config(slow_export_config("2"));
  }
  clean.build({"--no-cache"});
  p.write("slow", "");
  {
    test::Background run({"--no-cache"}, p.root(), p.cache_env());
    // Killed while the export command has written half its output.
    ASSERT_TRUE(test::wait_until(
        [&] { return any_file_named(p.root() / "build" / ".winml-make" / "staging", "export.onnx"); }));
    run.kill_group();
    EXPECT_EQ(run.wait().exit_code, test::Background::killed_exit_code());
  }
  fs::remove(p.root() / "slow");
  auto r = p.build({"--no-cache"});
  EXPECT_EQ(test::statuses(r)["net/export"], "completed");
  EXPECT_EQ(test::artifacts(p.root() / "build"), test::artifacts(clean.root() / "build"));
}

TEST(Robustness, KillNineAtManyPointsNeverLeavesATrustedPartialResult) {
  // Three models built on one thread, killed after increasing delays: at some
  // point during a stage, between stages, or while records are written.
  const std::string toml =
      "[[model]]\nsource = \"a.onnx\"\n[[model]]\nsource = \"b.onnx\"\n[[model]]\nsource = \"c.onnx\"\n";
  Project clean;
  for (const char* m : {"a", "b", "c"}) clean.write_model(std::string(m) + ".onnx", m[0], 64, 64);
  clean.write_config(toml);
  auto t0 = std::chrono::steady_clock::now();
  clean.build({"--no-cache", "-j", "1"});
  const int build_ms =
      static_cast<int>(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  const auto expected = test::artifacts(clean.root() / "build");
  // Spread the kills over the whole build.
  for (int step = 1; step <= 8; ++step) {
    const int delay_ms = build_ms * step / 9;
    Project p;
    for (const char* m : {"a", "b", "c"}) p.write_model(std::string(m) + ".onnx", m[0], 64, 64);
    p.write_config(toml);
    {
      test::Background run({"--no-cache", "-j", "1"}, p.root(), p.cache_env());
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      run.kill_group();
      run.wait();
    }
    auto r = p.run({"--no-cache"});
    ASSERT_EQ(r.exit_code, 0) << "after a kill at " << delay_ms << " ms: " << r.err << r.out;
    EXPECT_EQ(test::artifacts(p.root() / "build"), expected) << "after a kill at " << delay_ms << " ms";
    auto again = p.build({"--no-cache"});
    for (const auto& [stage, status] : test::statuses(again))
      EXPECT_TRUE(status == "up-to-date" || status == "skipped") << stage << " " << status << " after " << delay_ms;
  }
}

TEST(Robustness, CorruptOutputIsRebuiltNotTrusted) {
  Project p;
  p.write_model("net.onnx", 1);
  p.write_config("[model]\nsource = \"net.onnx\"\n");
  p.build();
  std::string bytes = test::read_text(p.out("net", "optimized.onnx"));
  bytes[bytes.size() / 2] ^= 0x55;  // same size: only the content differs
  test::write_text(p.out("net", "optimized.onnx"), bytes);
  auto r = p.build();
  auto s = test::statuses(r);
  EXPECT_TRUE(s["net/optimize"] == "cached" || s["net/optimize"] == "completed") << s["net/optimize"];
  // The file was hard-linked to its cache blob, so the cache copy is found
  // corrupt too, and dropped.
  EXPECT_EQ(r["models"][0]["stages"][1]["reason"].get<std::string>().rfind("output optimized.onnx was modified", 0), 0u)
      << r["models"][0]["stages"][1]["reason"];
  EXPECT_EQ(s["net/quantize"], "up-to-date");
  EXPECT_NE(test::read_text(p.out("net", "optimized.onnx")), bytes);
}

TEST(Robustness, DeletedOrGarbledReportsAreShownStaleAndRewritten) {
  Project p;
  p.write_model("net.onnx", 1);
  p.write_config("[model]\nsource = \"net.onnx\"\n");
  p.build();
  const std::string config = test::read_text(p.out("net", "winml_build_config.json"));
  const std::string manifest = test::read_text(p.out("net", "build_manifest.json"));
  auto reports_status = [&] { return nlohmann::json::parse(p.run({"status", "--json"}).out)["models"][0]["reports"]; };
  EXPECT_EQ(reports_status(), "up-to-date");

  fs::remove(p.out("net", "winml_build_config.json"));
  test::write_text(p.out("net", "build_manifest.json"), manifest.substr(0, manifest.size() / 2));
  EXPECT_EQ(reports_status(), "stale");
  auto text = p.run({"status"});
  EXPECT_NE(text.out.find("reports   stale"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("stale reports; run winml-make to rewrite them"), std::string::npos) << text.out;

  auto r = p.build();
  for (const auto& [stage, status] : test::statuses(r)) EXPECT_EQ(status, "up-to-date") << stage;
  EXPECT_EQ(test::read_text(p.out("net", "winml_build_config.json")), config);
  auto rewritten = nlohmann::json::parse(test::read_text(p.out("net", "build_manifest.json")));
  EXPECT_EQ(rewritten["cache_key"], nlohmann::json::parse(manifest)["cache_key"]);
  EXPECT_EQ(reports_status(), "up-to-date");
  EXPECT_NE(p.run({"status"}).out.find("everything is up to date"), std::string::npos);
}

TEST(Robustness, CacheGcWaitsForTheBuildsUsingTheCacheAndABuildWaitsForGc) {
  Project p;
  p.write_model("net.onnx", 1);
  p.write_config(slow_export_config("1"));
  p.write("slow", "");
  {
    test::Background build({}, p.root(), p.cache_env());
    ASSERT_TRUE(test::wait_until(
        [&] { return any_file_named(p.root() / "build" / ".winml-make" / "staging", "export.onnx"); }));
    test::Background gc({"cache", "gc", "--max-size", "0"}, p.root(), p.cache_env());
    auto b = build.wait();
    auto g = gc.wait();
    EXPECT_EQ(b.exit_code, 0) << b.err;
    EXPECT_EQ(g.exit_code, 0) << g.err;
    EXPECT_NE(g.err.find("waiting for the builds that use " + to_utf8(p.cache_dir())), std::string::npos) << g.err;
    // It ran after the build had stored all six stages, and removed them.
    EXPECT_NE(g.out.find("removed 6 entries"), std::string::npos) << g.out;
  }
  fs::remove(p.root() / "slow");
  {
    // While gc or verify holds the cache, a build waits, saying for whom.
    auto held = store::DirectoryLock::acquire(p.cache_dir() / "lock", nullptr);
    test::Background build({"--rebuild"}, p.root(), p.cache_env());
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    held.reset();
    auto b = build.wait();
    EXPECT_EQ(b.exit_code, 0) << b.err;
    EXPECT_NE(b.err.find("waiting for pid " + std::to_string(::getpid()) + " ('cache gc' or 'cache verify')"),
              std::string::npos)
        << b.err;
  }
  auto verify = p.run({"cache", "verify"});
  EXPECT_EQ(verify.exit_code, 0) << verify.out;
  for (const auto& [stage, status] : test::statuses(p.build())) EXPECT_EQ(status, "up-to-date") << stage;
}
