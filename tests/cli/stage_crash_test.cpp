// A stage that dies of a signal fails its own model only: stages run in
// worker processes (base/worker_process.h). The signal is a fault injected
// into the real binary by a preloaded library (support/fault_on_rename.cpp).
#include <gtest/gtest.h>

#include <signal.h>

#include "support/project.h"

using namespace winml;
using test::Project;
namespace fs = std::filesystem;
using Stages = std::vector<std::string>;

namespace {

// Three small models; m1's quantize stage dies of `signal` as it saves its output.
std::map<std::string, std::string> three_models_with_a_fault(Project& p, int signal) {
  std::string toml;
  for (int i = 0; i < 3; ++i) {
    p.write_model("m" + std::to_string(i) + ".onnx", 20 + i);
    toml += "[[model]]\nsource = \"m" + std::to_string(i) + ".onnx\"\n";
  }
  p.write_config(toml);
  // The staging folder of a node is <state>/staging/<model>.<stage>.<pid>.
  return {{"LD_PRELOAD", WINML_TEST_FAULT_LIBRARY},
          {"WINML_TEST_FAULT_ON_RENAME", "staging/m1.quantize."},
          {"WINML_TEST_FAULT_SIGNAL", std::to_string(signal)}};
}

}  // namespace

TEST(StageCrash, ASignalInOneModelsStageFailsThatModelAndTheOthersFinish) {
  Project p;
  const auto fault = three_models_with_a_fault(p, SIGSEGV);
  auto r = p.build({"-k", "-j", "2"}, 1, fault);
  auto s = test::statuses(r);
  EXPECT_EQ(s["m1/optimize"], "completed");
  EXPECT_EQ(s["m1/quantize"], "failed");
  EXPECT_EQ(s["m1/compile"], "not-run");
  EXPECT_EQ(s["m1/package"], "not-run");
  for (const char* other : {"m0", "m2"}) {
    EXPECT_EQ(test::stages_with(r, other, "completed").size(), 6u) << other;
    EXPECT_TRUE(fs::exists(p.out(other, "model.onnx"))) << other;
  }
  const std::string reason = r["models"][1]["stages"][3]["reason"];
  EXPECT_NE(reason.find("died of SIGSEGV (Segmentation fault)"), std::string::npos) << reason;
  // Nothing of the failed stage is recorded or placed.
  EXPECT_FALSE(fs::exists(p.out("m1", "quantized.onnx")));
  EXPECT_FALSE(fs::exists(p.out("m1", "model.onnx")));
  auto m = nlohmann::json::parse(test::read_text(p.out("m1", "build_manifest.json")));
  EXPECT_EQ(m["status"], "failed");

  // Without the fault the failed stage runs again (it was neither recorded
  // nor cached), the others are up to date, and m1 is what a clean build makes.
  auto again = p.build({"-k", "-j", "2"});
  EXPECT_EQ(test::stages_with(again, "m1", "completed"), (Stages{"quantize", "compile", "package"}));
  EXPECT_EQ(test::stages_with(again, "m0", "up-to-date").size(), 6u);
  Project clean;
  three_models_with_a_fault(clean, SIGSEGV);
  clean.build({"--no-cache"});
  EXPECT_EQ(test::artifacts(p.out("m1")), test::artifacts(clean.out("m1")));
}

TEST(StageCrash, TheReportNamesTheSignalAndTheExitCodeIsOne) {
  Project p;
  const auto fault = three_models_with_a_fault(p, SIGABRT);
  auto r = p.run({"-k"}, fault);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("m1/quantize: the stage died of SIGABRT (Aborted)"), std::string::npos) << r.err;
  // Without -k the build stops at the failure, still with exit code 1.
  fs::remove_all(p.root() / "build");
  auto stop = p.run({"-j", "1"}, fault);
  EXPECT_EQ(stop.exit_code, 1) << stop.err;
  EXPECT_NE(stop.err.find("SIGABRT"), std::string::npos) << stop.err;
}

TEST(StageWorker, IsWinmlMakeStartedAgainNotAForkedCopyOfTheBuild) {
  // A copy forked from a build with several threads inherits whatever lock
  // another thread held at that instant (the allocator's, under the
  // sanitizers) and could wait on it forever; a program started afresh
  // holds none. The export command is the worker's child: it records what
  // its parent is.
  Project p;
  p.write_model("weights.onnx", 3);
  p.write("export.sh",
          "tr '\\0' ' ' < /proc/$PPID/cmdline > worker.txt\necho >> worker.txt\nreadlink /proc/$PPID/exe >> worker.txt\n"
          "cp weights.onnx \"$1\"\n");
  p.write_config("[model]\nname = \"net\"\n[export]\ncommand = [\"sh\", \"export.sh\", \"{output}\"]\n"
                 "inputs = [\"export.sh\", \"weights.onnx\"]\n");
  p.build({"-j", "2"});
  const std::string worker = test::read_text(p.root() / "worker.txt");
  const std::string binary = fs::canonical(test::winml_make_binary()).string();
  EXPECT_EQ(worker, binary + " --worker-process \n" + binary + "\n");
}
