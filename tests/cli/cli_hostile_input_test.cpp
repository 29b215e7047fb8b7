// Hostile configs, models and caches through the real CLI: each gets a clear
// error naming the file (and line for TOML) with exit 2, quickly, and never
// a crash, a hang or a poisoned state.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>

#include "base/path_text.h"
#include "base/native_file.h"
#include "support/platform.h"
#include "support/processes.h"
#include "support/project.h"
#include "model/model_io.h"
#include "store/cache.h"
#include "store/digest.h"
#include "support/model_builder.h"

using namespace winml;
using test::Project;
namespace fs = std::filesystem;

namespace {

const char* kModel = "[model]\nsource = \"net.onnx\"\n";

// Runs with a deadline: a hang fails the test instead of the suite's timeout.
test::CliResult run_bounded(const Project& p, const std::vector<std::string>& args, double seconds = 20) {
  test::Background run(args, p.root(), p.cache_env());
  if (!test::wait_until([&] { return !test::process_running(run.pid()); }, seconds)) run.kill_group();
  return run.wait();
}

void expect_input_error(const test::CliResult& r, const std::string& where, const std::string& what) {
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find(where), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
}

}  // namespace

TEST(HostileConfig, DeepNestingIsAnErrorNamingTheLineNotACrash) {
  Project p;
  p.write_model("net.onnx", 1);
  for (const std::string& value : {std::string(10000, '[') + std::string(10000, ']'), [] {
                                     std::string s;
                                     for (int i = 0; i < 10000; ++i) s += "{a=";
                                     return s + "1" + std::string(10000, '}');
                                   }()}) {
    p.write_config(std::string(kModel) + "x = " + value + "\n");
    for (std::vector<std::string> args : {std::vector<std::string>{"config"}, {}, {"clean"}})
      expect_input_error(run_bounded(p, args), "winml.toml:3:", "nested more than 32 levels deep");
  }
}

TEST(HostileConfig, HugeFilesAndLinesAreRefusedQuickly) {
  Project p;
  p.write_model("net.onnx", 1);
  std::string long_line = "[quantize]\nnodes_to_exclude = [";
  for (int i = 0; i < 8000; ++i) long_line += "\"node\",";
  p.write_config(std::string(kModel) + long_line + "]\n");
  const auto start = std::chrono::steady_clock::now();
  expect_input_error(run_bounded(p, {"config"}), "winml.toml:4:", "split long arrays over several lines");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5);
  std::string big = kModel;
  while (big.size() < (2u << 20)) big += "# padding padding padding padding padding padding padding\n";
  p.write_config(big);
  expect_input_error(run_bounded(p, {"config"}), "winml.toml", "a config may have at most");
}

TEST(HostileConfig, ANulInAPathIsRefusedAndPoisonsNothing) {
  Project p;
  p.write_model("net.onnx", 1);
  p.write_config("[model]\nsource = \"net.onnx\\u0000../x\"\n");
  expect_input_error(run_bounded(p, {"-n"}), "winml.toml:2:", "contains a NUL character");
  expect_input_error(run_bounded(p, {}), "winml.toml:2:", "contains a NUL character");
  p.write_config(kModel);
  auto r = p.build();
  EXPECT_EQ(test::stages_with(r, "net", "completed").size(), 6u) << r.dump();
}

TEST(HostileConfig, CountsSizesAndRangesAreBounded) {
  Project p;
  p.write_model("net.onnx", 1);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[quantize]\nsamples = 1000000000\n", "'quantize.samples' is 1000000000, expected a value in [1, 100000]"},
      {"[quantize]\nsamples = 9223372036854775807\n", "'quantize.samples' is 9223372036854775807"},
      {"[quantize]\nnum_bins = 1000000000000\n", "'quantize.num_bins' is 1000000000000"},
      {"[quantize]\nvalue_range = [5.0, 1.0]\n", "low must be below high"},
      {"[quantize]\ndistribution = \"normal\"\nvalue_range = [0.0, -1.0]\n", "standard deviation must be positive"},
      {"[[quantize.input_tensors]]\nname = \"x\"\nshape = [100000, 100000, 3]\n", "more than 2^30 elements"},
      {"[[quantize.input_tensors]]\nname = \"x\"\nshape = [1, -8]\n", "'quantize.input_tensors[0].shape[1]' is -8"},
      {"[build]\njobs = 100000\n", "'build.jobs' is 100000"}};
  for (const auto& [toml, message] : cases) {
    p.write_config(std::string(kModel) + toml);
    expect_input_error(run_bounded(p, {"-n"}), "winml.toml:", message);
  }
  p.write_config("[model]\nsource = \"net.onnx\"\ndims = { batch = -3 }\n");
  expect_input_error(run_bounded(p, {"-n"}), "winml.toml:3:", "'model.dims.batch' is -3");
}

TEST(HostileInputs, DevicesAndFifosAreRefusedNotWaitedOn) {
  if (!test::on_posix())
    GTEST_SKIP() << "a device's path (\\\\.\\NUL) in [model] source is not yet read as that device on Windows";
  Project p;
  const std::string device = to_utf8(test::a_device());
  p.write_config("[model]\nsource = '" + device + "'\n");
  for (std::vector<std::string> args : {std::vector<std::string>{}, {"status"}}) {
    auto r = run_bounded(p, args);
    EXPECT_NE(r.exit_code, test::Background::killed_exit_code())
        << (args.empty() ? "build" : args[0]) << " hung on " << device << " (killed at the deadline)";
    EXPECT_NE((r.out + r.err).find(device + ": is a device, not a regular file"), std::string::npos) << r.out << r.err;
  }
  WINML_MAKE_FIFO_OR_SKIP(p.root() / "pipe.onnx");
  p.write_config("[model]\nsource = \"pipe.onnx\"\n");
  auto r = run_bounded(p, {});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE((r.out + r.err).find("pipe.onnx: is a FIFO, not a regular file"), std::string::npos) << r.out << r.err;
  r = run_bounded(p, {"inspect", "--model", "pipe.onnx"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
}

TEST(HostileInputs, AnOpsetNoOnnxReleaseDefinesIsRefused) {
  Project p;
  auto m = test::linear_model(8, 4, 1);
  m.mutable_opset_import(0)->set_version(99999);
  p.write("bad.onnx", model::serialize_deterministic(m));
  for (std::vector<std::string> args : {std::vector<std::string>{"inspect", "--model", "bad.onnx"},
                                        {"optimize", "--model", "bad.onnx", "-o", "out.onnx"}})
    expect_input_error(run_bounded(p, args), "bad.onnx", "imports ai.onnx opset 99999, which no ONNX release defines");
  EXPECT_FALSE(fs::exists(p.root() / "out.onnx"));
}

TEST(HostileCache, SpecialFilesAndLeftoversAreFoundByVerifyAndNeverHangABuild) {
  Project p;
  p.write_model("net.onnx", 1);
  p.write_config(kModel);
  auto first = p.build();
  store::LocalCache cache(p.cache_dir());
  auto blob_of = [&](int stage) {
    return cache.blob_path(
        *store::Digest::from_hex(first["models"][0]["stages"][stage]["outputs"][0]["digest"].get<std::string>()));
  };
  // Three blobs replaced: by a directory, a FIFO and a symlink to a device
  // (where the system has them: else the blob is just gone).
  test::remove_file(blob_of(1));
  fs::create_directories(blob_of(1) / "inside");
  std::string why;
  test::remove_file(blob_of(3));
  if (!test::make_fifo(blob_of(3), why)) std::cout << "blob 3 removed, not a FIFO: " << why << "\n";
  test::remove_file(blob_of(4));
  if (!test::make_symlink(test::a_device(), blob_of(4), why)) std::cout << "blob 4 removed, not a symlink: " << why << "\n";
  // And a temporary whose writer is gone (no process has pid 4194304 + 1).
  const fs::path leftover = cache.entry_path(store::digest_of("x")).parent_path() / ".x.winml-tmp.4194305.0";
  fs::create_directories(leftover.parent_path());
  test::write_text(leftover, "half an entry");

  Project clone;
  p.clone_to(clone.root());
  clone.use_cache(p.cache_dir());
  auto r = run_bounded(clone, {"--json"}, 60);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto report = nlohmann::json::parse(r.out);
  EXPECT_EQ(test::statuses(report).at("net/optimize"), "completed") << report.dump();
  EXPECT_EQ(test::artifacts(p.root() / "build"), test::artifacts(clone.root() / "build"));

  // Break them again, then verify finds and removes every one.
  native::remove_tree(blob_of(1));  // (healed: a read-only blob again)
  fs::create_directories(blob_of(1));
  r = run_bounded(p, {"cache", "verify"}, 60);
  EXPECT_EQ(r.exit_code, 1) << "problems found and removed: " << r.out << r.err;
  EXPECT_NE(r.out.find(to_utf8(blob_of(1)) + ": not a regular file"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("removed leftover temporary " + to_utf8(leftover)), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(leftover));
  r = run_bounded(p, {"cache", "verify"}, 60);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.find("removed"), std::string::npos) << "a second verify still found problems: " << r.out;
}
