// The build summary's line per model: artifact, sidecars (a few named, the
// rest counted), the stages' headlines and their warnings.
#include <gtest/gtest.h>

#include "cli/artifact_summary.h"

using namespace winml;

namespace {

graph::Graph one_model(std::vector<graph::NodeResult>& results, std::size_t sidecars, const std::string& warning,
                       const char* stage_name = "quantize") {
  graph::Graph g;
  g.models = {"net"};
  for (const char* stage : {stage_name, "package"}) {
    graph::Node n;
    n.model = "net";
    n.name = stage;
    g.nodes.push_back(n);
    graph::NodeResult r;
    r.status = graph::Status::kCompleted;
    results.push_back(r);
  }
  results[0].metrics_json =
      nlohmann::json{
          {"headline", "quantized 3 nodes"}, {"nodes_quantized", 5}, {"warnings", nlohmann::json::array({warning})}}
          .dump();
  results[1].outputs.push_back({"model.onnx", {}, 500});
  for (std::size_t i = 0; i < sidecars; ++i)
    results[1].outputs.push_back({"model_ref_" + std::to_string(i) + ".bin", {}, 1024});
  return g;
}

}  // namespace

TEST(ArtifactSummary, NamesFourFilesCountsTheRestAndListsWarnings) {
  std::vector<graph::NodeResult> results;
  const graph::Graph g = one_model(results, 10, "per tensor");
  const auto lines = cli::artifact_summary(g, results, "build/");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0],
            "  net: build/net/model.onnx 500 B + model_ref_0.bin 1.0 KiB + model_ref_1.bin 1.0 KiB + model_ref_2.bin "
            "1.0 KiB + 7 more files 7.0 KiB; quantized 3 nodes");
  EXPECT_EQ(lines[1], "    warning: quantize: per tensor");
}

TEST(ArtifactSummary, AFewFilesAreAllNamed) {
  std::vector<graph::NodeResult> results;
  const graph::Graph g = one_model(results, 3, "w");
  const auto lines = cli::artifact_summary(g, results, "build/");
  EXPECT_EQ(lines[0].find("more files"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("model_ref_2.bin 1.0 KiB; quantized 3 nodes"), std::string::npos) << lines[0];
}

TEST(ArtifactSummary, AnyStagesHeadlineIsShownWithoutKnowingItsMetrics) {
  std::vector<graph::NodeResult> results;
  const graph::Graph g = one_model(results, 0, "w", "a_new_stage");
  const auto lines = cli::artifact_summary(g, results, "build/");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "  net: build/net/model.onnx 500 B; quantized 3 nodes");
  EXPECT_EQ(lines[1], "    warning: a_new_stage: w");
}
