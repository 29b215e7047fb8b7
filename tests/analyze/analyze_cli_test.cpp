// `winml-make analyze` through the real binary.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "model/model_io.h"
#include "support/cli_runner.h"
#include "support/model_builder.h"
#include "support/temp_dir.h"

using namespace winml;

namespace {
std::string write_linear(const test::TempDir& dir) {
  auto path = (dir / "linear.onnx").string();
  test::write_text(path, model::serialize_deterministic(test::linear_model(8, 4)));
  return path;
}
}  // namespace

TEST(AnalyzeCli, WritesAnalyzeResultJson) {
  test::TempDir dir;
  auto model = write_linear(dir);
  auto r = test::run_cli({"analyze", "-m", model, "-o", (dir / "analyze_result.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("patterns: 1 (1 matmul_add)"), std::string::npos) << r.out;
  auto j = nlohmann::json::parse(test::read_text(dir / "analyze_result.json"));
  EXPECT_TRUE(j.contains("analysis_timestamp"));
  for (const char* key : {"model_path", "opset_version", "producer_name", "producer_version", "total_operators",
                          "operator_counts", "unique_operator_types", "detected_pattern_count"})
    EXPECT_TRUE(j["metadata"].contains(key)) << key;
  EXPECT_EQ(j["metadata"]["model_path"], model);
  ASSERT_EQ(j["results"].size(), 6u) << "one result per rules/ep table";
  for (const auto& res : j["results"]) {
    for (const char* key : {"ihv_type", "ep_type", "device_type", "runtime_support", "has_errors", "has_warnings",
                            "classification", "information"})
      EXPECT_TRUE(res.contains(key)) << key;
    for (const char* cls : {"supported", "partial", "unsupported", "unknown"})
      EXPECT_TRUE(res["classification"][cls].is_array()) << cls;
  }
  EXPECT_EQ(j["results"][0]["ep"], "cpu");
  EXPECT_EQ(j["results"][0]["classification"]["supported"],
            (nlohmann::json{"OP/ai.onnx/Add", "OP/ai.onnx/MatMul", "OP/ai.onnx/Relu"}));
}

TEST(AnalyzeCli, NoTimestampIsByteForByteReproducible) {
  test::TempDir dir;
  auto model = write_linear(dir);
  for (const char* out : {"a.json", "b.json"}) {
    auto r = test::run_cli(
        {"analyze", "-m", model, "--ep", "qnn", "--device", "npu", "--no-timestamp", "-o", (dir / out).string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  auto a = test::read_text(dir / "a.json");
  EXPECT_EQ(a, test::read_text(dir / "b.json"));
  auto j = nlohmann::json::parse(a);
  EXPECT_FALSE(j.contains("analysis_timestamp"));
  ASSERT_EQ(j["results"].size(), 1u);
  EXPECT_EQ(j["results"][0]["ep_type"], "QNNExecutionProvider");
}

TEST(AnalyzeCli, JsonToStdout) {
  test::TempDir dir;
  auto r = test::run_cli({"analyze", "-m", write_linear(dir), "--ep", "cpu", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["metadata"]["total_operators"], 3);
}

TEST(AnalyzeCli, UnknownEpIsAnInputError) {
  test::TempDir dir;
  auto r = test::run_cli({"analyze", "-m", write_linear(dir), "--ep", "tpu"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown execution provider 'tpu'"), std::string::npos) << r.err;
}
