// `winml-make quantize` through the real binary: refusals (exit 2, nothing
// written), calibration data directories, reproducible bytes for any thread
// count, memory independent of the number of samples, fp16 mode.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <nlohmann/json.hpp>

#include "model/model_io.h"
#include "model/tensor_file.h"
#include "support/quant_models.h"
#include "support/cli_runner.h"
#include "support/model_builder.h"
#include "support/ort_oracle.h"
#include "support/temp_dir.h"

namespace winml::test {
namespace {

namespace fs = std::filesystem;

fs::path save(const onnx::ModelProto& p, const fs::path& path) {
  model::Model m;
  m.proto = p;
  model::save_model(m, path);
  return path;
}

std::string read_bytes(const fs::path& p) { return read_text(p); }

TEST(QuantizeCli, EpContextModelIsRefusedAndNothingWritten) {
  TempDir d;
  write_text(d / "compiled.onnx", model::serialize_deterministic(epcontext_model("QNNExecutionProvider", 1, "blob")));
  CliResult r = run_cli({"quantize", "-m", (d / "compiled.onnx").string(), "-o", (d / "q.onnx").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.first_error_line(), "winml-make: error: " + (d / "compiled.onnx").string() +
                                      ": Input model is a compiled EPContext artifact (EPContext nodes from "
                                      "QNNExecutionProvider). Run quantize on the original ONNX model before "
                                      "compilation.");
  EXPECT_FALSE(fs::exists(d / "q.onnx"));
}

TEST(QuantizeCli, QuantizedInputNeedsRequantize) {
  TempDir d;
  fs::path in = save(small_cnn(), d / "cnn.onnx");
  ASSERT_EQ(run_cli({"quantize", "-m", in.string(), "-o", (d / "q.onnx").string(), "--samples", "2"}).exit_code, 0);
  CliResult r = run_cli({"quantize", "-m", (d / "q.onnx").string(), "-o", (d / "qq.onnx").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("Input model is already quantized"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(d / "qq.onnx"));
  r = run_cli({"quantize", "-m", (d / "q.onnx").string(), "-o", (d / "qq.onnx").string(), "--requantize", "--samples",
               "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(nlohmann::json::parse(r.out)["requantized"].get<bool>());
}

TEST(QuantizeCli, BadOptionsAreInputErrors) {
  TempDir d;
  fs::path in = save(small_cnn(), d / "cnn.onnx");
  CliResult r = run_cli({"quantize", "-m", in.string(), "-o", (d / "q.onnx").string(), "--weight-type", "int3"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--weight-type: "), std::string::npos) << r.err;  // the flag as typed
  EXPECT_NE(r.err.find("int3"), std::string::npos) << r.err;
  r = run_cli({"quantize", "-m", in.string(), "-o", (d / "q.onnx").string(), "--dim", "batch"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--dim 'batch': expected NAME=VALUE"), std::string::npos) << r.err;
  r = run_cli(
      {"quantize", "-m", in.string(), "-o", (d / "q.onnx").string(), "--calibration-data", (d / "nowhere").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("nowhere: calibration data directory does not exist"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(d / "q.onnx"));
}

TEST(QuantizeCli, CalibrationDirectoryAndReport) {
  TempDir d;
  fs::path in = save(small_cnn(), d / "cnn.onnx");
  for (int s = 0; s < 3; ++s) {
    fs::create_directories(d / "calib" / ("s" + std::to_string(s)));
    model::write_npy(d / "calib" / ("s" + std::to_string(s)) / "x.npy", random_tensor({1, 3, 16, 16}, 100 + s));
  }
  CliResult r = run_cli({"quantize", "-m", in.string(), "-o", (d / "q.onnx").string(), "--calibration-data",
                         (d / "calib").string(), "--per-channel", "--report", (d / "report.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("nodes quantized: 8, skipped: 1 (Flatten 1)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("SQNR (dB)"), std::string::npos) << r.out;
  nlohmann::json report = nlohmann::json::parse(read_text(d / "report.json"));
  EXPECT_EQ(report["samples"], 3);
  EXPECT_EQ(report["nodes_quantized"], 8);
  EXPECT_EQ(report["nodes_skipped"], 1);
  EXPECT_TRUE(report.contains("calibration_time_seconds"));
  ASSERT_EQ(report["accuracy"].size(), 1u);
  EXPECT_GT(report["accuracy"][0]["sqnr_db"].get<double>(), 20.0);
  // The quantized model runs in ONNX Runtime.
  OrtResult ort = run_in_ort(d / "q.onnx", {{"x", random_tensor({1, 3, 16, 16}, 7)}});
  EXPECT_TRUE(ort.ok) << ort.error;
}

TEST(QuantizeCli, SameBytesForAnyThreadCount) {
  TempDir d;
  fs::path in = exported_model("mobilenet_v3_small_op13");
  std::vector<std::string> common = {
      "quantize", "-m",           in.string(), "--samples", "3", "--per-channel", "--calibration-method",
      "entropy",  "--no-accuracy"};
  auto run = [&](const std::string& out, const std::string& threads) {
    std::vector<std::string> args = common;
    args.insert(args.end(), {"-o", (d / out).string(), "--threads", threads});
    CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
  };
  run("t1.onnx", "1");
  run("t2.onnx", "2");
  run("t1_again.onnx", "1");
  EXPECT_EQ(read_bytes(d / "t1.onnx"), read_bytes(d / "t2.onnx"));
  EXPECT_EQ(read_bytes(d / "t1.onnx"), read_bytes(d / "t1_again.onnx"));
}

long peak_child_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_CHILDREN, &u);
  return u.ru_maxrss;
}

TEST(QuantizeCli, MemoryDoesNotGrowWithSamples) {
  TempDir d;
  fs::path in = exported_model("mobilenet_v3_small_op13");
  auto run = [&](const std::string& samples) {
    CliResult r = run_cli({"quantize", "-m", in.string(), "-o", (d / ("q" + samples + ".onnx")).string(), "--samples",
                           samples, "--threads", "1", "--calibration-method", "percentile"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return peak_child_rss_kib();
  };
  long few = run("2");
  // Ru_maxrss of children is the largest so far: equal means the 40-sample
  // run peaked no higher than the 2-sample one (a few MiB of slack for
  // allocator noise); keeping 40 inputs alone would add ~24 MiB.
  long many = run("40");
  EXPECT_LT(many - few, 8 * 1024) << "peak RSS " << few << " KiB with 2 samples, " << many << " KiB with 40";
}

TEST(QuantizeCli, SixteenBitTransformerReportsAccuracy) {
  // 16-bit Q/DQ (com.microsoft) in front of Shape nodes: the accuracy pass
  // must run the quantized model on the runtime.
  TempDir d;
  CliResult r =
      run_cli({"quantize", "-m", exported_model("transformer_encoder_op17").string(), "-o", (d / "q.onnx").string(),
               "--weight-type", "uint8", "--activation-type", "uint16", "--per-channel", "--samples", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["qdq_domain"], "com.microsoft");
  EXPECT_GT(j["accuracy"][0]["sqnr_db"].get<double>(), 35.0);
  model::Model q = model::load_model(d / "q.onnx");
  for (const auto& n : q.proto.graph().node())
    if (n.op_type() == "QuantizeLinear" || n.op_type() == "DequantizeLinear") {
      EXPECT_EQ(n.domain(), "com.microsoft");
    }
  OrtResult ort = run_in_ort(d / "q.onnx", {{"input", random_tensor({1, 16, 64}, 3)}});
  EXPECT_TRUE(ort.ok) << ort.error;
}

TEST(QuantizeCli, Fp16Mode) {
  TempDir d;
  fs::path in = save(small_attention(), d / "att.onnx");
  CliResult r = run_cli(
      {"quantize", "-m", in.string(), "-o", (d / "h.onnx").string(), "--mode", "fp16", "--samples", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["mode"], "fp16");
  EXPECT_EQ(j["nodes_quantized"], 1);  // Transpose; the MatMuls have no float16 CPU kernel
  EXPECT_LT(j["accuracy"][0]["max_abs_error"].get<double>(), 0.05);
  model::Model h = model::load_model(d / "h.onnx");
  EXPECT_EQ(h.proto.graph().input(0).type().tensor_type().elem_type(), onnx::TensorProto::FLOAT);
  OrtResult ort = run_in_ort(d / "h.onnx", {{"x", random_tensor({1, 4, 8}, 1)}});
  EXPECT_TRUE(ort.ok) << ort.error;
}

}  // namespace
}  // namespace winml::test
