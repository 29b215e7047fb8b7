// A decoder of 1.06 GiB of float32 weights (3 layers of hidden 2048, FFN
// 5632, vocabulary 32000: over the 1 GiB from which the runtime streams its
// weights) built through every stage, then run, with winml-make's data
// segment capped at half the weights. RLIMIT_DATA (`ulimit -d`) counts the
// heap and private writable mappings, anonymous memory that is, and not the
// read-only mappings of the weights' files: a stage that copies the weights
// whole (reads them into a buffer or a protobuf, packs or widens them, or
// holds the quantized model in memory) is refused memory and fails the build.
// The build needs 300-400 MiB of it today (quantize); with the runtime's
// streaming turned off (PlanOptions::kStreamWeightsAbove), quantize, which
// runs the float model, packs its weights and fails out of memory.
#include <gtest/gtest.h>

#include <string>

#include "support/project.h"

using namespace winml;
using test::Project;
namespace fs = std::filesystem;

namespace {

constexpr std::uintmax_t kWeightBytes = 1141309440;

// Runs winml-make `args` in the project with `ulimit -d` at `limit_kib`.
test::CliResult run_capped(const Project& p, std::uintmax_t limit_kib, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/bin/sh", "-c", "ulimit -d " + std::to_string(limit_kib) + " && exec \"$@\"",
                                   "sh", test::winml_make_binary().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return test::run_program(argv, p.root(), p.cache_env());
}

}  // namespace

TEST(DecoderMemory, BuildsAndRunsWithAnonymousMemoryCappedAtHalfTheWeights) {
  Project p;
  const auto made = test::run_program({"/usr/bin/python3", (test::source_dir() / "tests/fixtures/decoder_model.py").string(),
                                       (p.root() / "decoder.onnx").string(), "--layers", "3", "--hidden", "2048",
                                       "--ffn", "5632", "--heads", "16", "--vocab", "32000"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  ASSERT_EQ(fs::file_size(p.root() / "decoder.onnx.data"), kWeightBytes);
  p.write_config(
      "[model]\nsource = \"decoder.onnx\"\ndims = { batch_size = 1, sequence_length = 1 }\n"
      "[quantize]\nmode = \"matmulnbits\"\nsamples = 2\n[compile]\nep = \"cpu\"\n");
  const std::uintmax_t limit_kib = kWeightBytes / 2 / 1024;

  const auto build = run_capped(p, limit_kib, {"--json"});
  ASSERT_EQ(build.exit_code, 0) << build.err << build.out;
  const auto report = nlohmann::json::parse(build.out);
  for (const char* stage : {"optimize", "quantize", "compile", "package"})
    EXPECT_EQ(test::statuses(report)["decoder/" + std::string(stage)], "completed") << stage << ": " << build.out;
  ASSERT_TRUE(fs::exists(p.out("decoder", "model.onnx")));

  const auto run = run_capped(p, limit_kib, {"run", "-m", p.out("decoder", "model.onnx").string(), "--dim",
                                             "batch_size=1", "--dim", "sequence_length=1"});
  EXPECT_EQ(run.exit_code, 0) << run.err << run.out;

  // The cap binds: at an eighth of the weights, quantize (rerun: its samples
  // changed) is refused memory, and says so.
  p.write_config(
      "[model]\nsource = \"decoder.onnx\"\ndims = { batch_size = 1, sequence_length = 1 }\n"
      "[quantize]\nmode = \"matmulnbits\"\nsamples = 3\n[compile]\nep = \"cpu\"\n");
  const auto starved = run_capped(p, kWeightBytes / 8 / 1024, {});
  EXPECT_EQ(starved.exit_code, 1) << starved.err << starved.out;
  EXPECT_NE(starved.err.find("decoder/quantize: out of memory"), std::string::npos) << starved.err;
}
