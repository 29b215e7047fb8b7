// analyze_model on small models: statistics, patterns, classification
// against a test table (rules overlay), and discover_flags.
#include <gtest/gtest.h>

#include "analyze/analyze.h"
#include "base/rules.h"
#include "support/model_builder.h"
#include "support/temp_dir.h"

using namespace winml;
using nlohmann::json;

namespace {

model::Model wrap(onnx::ModelProto p) {
  model::Model m;
  m.proto = std::move(p);
  m.path = "model.onnx";
  return m;
}

// Installs rules/ep/<name>.toml files from a temp dir for the test's duration.
class RulesOverlay {
 public:
  explicit RulesOverlay(const std::map<std::string, std::string>& tables) {
    for (const auto& [name, text] : tables) test::write_text(dir_ / "ep" / (name + ".toml"), text);
    rules::Rules r;
    r.add_overlay(dir_.path());
    rules::set_active(r);
  }
  ~RulesOverlay() { rules::set_active(rules::Rules()); }

 private:
  test::TempDir dir_;
};

analyze::AnalyzeOptions opts(std::vector<std::string> eps, std::string device = "") {
  analyze::AnalyzeOptions o;
  o.eps = std::move(eps);
  o.device = std::move(device);
  o.timestamp = false;
  return o;
}

using Tables = std::map<std::string, std::string>;

bool contains(const json& list, const std::string& s) { return std::find(list.begin(), list.end(), s) != list.end(); }

// x -> decomposed GELU (erf) -> decomposed LayerNorm -> MatMul + bias -> Identity -> y
onnx::ModelProto patterned_model(std::int64_t opset) {
  test::GraphBuilder b;
  b.input("x", {4, 8});
  b.initializer("sqrt2", {}, {1.4142135f});
  b.initializer("one", {}, {1.0f});
  b.initializer("half", {}, {0.5f});
  b.initializer("two", {}, {2.0f});
  b.initializer("eps", {}, {1e-5f});
  b.initializer("W", {8, 8}, test::random_floats(64, 1));
  b.initializer("bias", {8}, test::random_floats(8, 2));
  b.node("Div", {"x", "sqrt2"}, {"t"});
  b.node("Erf", {"t"}, {"e"});
  b.node("Add", {"e", "one"}, {"a"});
  b.node("Mul", {"x", "a"}, {"m"});
  b.node("Mul", {"m", "half"}, {"g"});
  auto& m1 = b.node("ReduceMean", {"g"}, {"mean"});
  test::set_attr(m1, "axes", std::vector<std::int64_t>{-1});
  b.node("Sub", {"g", "mean"}, {"d"});
  b.node("Pow", {"d", "two"}, {"sq"});
  auto& m2 = b.node("ReduceMean", {"sq"}, {"var"});
  test::set_attr(m2, "axes", std::vector<std::int64_t>{-1});
  b.node("Add", {"var", "eps"}, {"ve"});
  b.node("Sqrt", {"ve"}, {"std"});
  b.node("Div", {"d", "std"}, {"n"});
  b.node("MatMul", {"n", "W"}, {"mm"});
  b.node("Add", {"mm", "bias"}, {"lin"});
  b.node("Identity", {"lin"}, {"y"});
  b.output("y", {4, 8});
  return test::make_model(b.graph(), opset);
}

const char* kTestTable = R"(
[ep]
name = "testep"
ep_type = "TestExecutionProvider"
ihv_type = "Test"
default_device = "npu"
static_input_shapes = true
requirements = ["quantize first"]
[ops."ai.onnx"]
supported = ["Add", "Mul", "Div", "Sub", "Sqrt", "ReduceMean", "Identity", "Gemm", "LayerNormalization"]
unsupported = ["Erf"]
[ops."com.microsoft"]
supported = ["Gelu"]
[[partial]]
op = "Pow"
dtypes = ["float16"]
note = "float16 only"
[[partial]]
op = "MatMul"
max_rank = 2
note = "2-D only"
)";

}  // namespace

TEST(Analyze, ReportsStatisticsAndPatterns) {
  auto a = analyze::analyze_model(wrap(patterned_model(17)), opts({"cpu"}));
  EXPECT_FALSE(a.contains("analysis_timestamp"));
  const auto& md = a["metadata"];
  EXPECT_EQ(md["model_path"], "model.onnx");
  EXPECT_EQ(md["opset_version"], 17);
  EXPECT_EQ(md["total_operators"], 15);
  EXPECT_EQ(md["operator_counts"]["Mul"], 2);
  EXPECT_EQ(md["unique_operator_types"], 10);
  std::map<std::string, int> kinds;
  for (const auto& p : a["patterns"]) ++kinds[p["kind"].get<std::string>()];
  EXPECT_EQ(kinds, (std::map<std::string, int>{
                       {"gelu_erf", 1}, {"layer_norm", 1}, {"matmul_add", 1}, {"identity_dropout_chain", 1}}));
  EXPECT_EQ(md["detected_pattern_count"], 4);
  for (const auto& p : a["patterns"]) {
    if (p["kind"] == "gelu_erf") {
      EXPECT_EQ(p["nodes"].size(), 5u);
    }
  }
}

TEST(Analyze, ClassifiesOperatorsWithTableConstraints) {
  RulesOverlay overlay(Tables{{"testep", kTestTable}});
  auto a = analyze::analyze_model(wrap(patterned_model(17)), opts({"testep"}));
  ASSERT_EQ(a["results"].size(), 1u);
  const auto& r = a["results"][0];
  EXPECT_EQ(r["ep_type"], "TestExecutionProvider");
  EXPECT_EQ(r["ihv_type"], "Test");
  EXPECT_EQ(r["device_type"], "npu");
  const auto& c = r["classification"];
  EXPECT_TRUE(contains(c["supported"], "OP/ai.onnx/Add"));
  EXPECT_TRUE(contains(c["supported"], "OP/ai.onnx/MatMul")) << "2-D MatMul meets max_rank = 2";
  EXPECT_TRUE(contains(c["unsupported"], "OP/ai.onnx/Pow")) << "float32 Pow violates dtypes on every node";
  EXPECT_TRUE(contains(c["unsupported"], "OP/ai.onnx/Erf"));
  EXPECT_TRUE(c["partial"].empty());
  EXPECT_TRUE(c["unknown"].empty());
  EXPECT_EQ(r["runtime_support"], "partial");
  EXPECT_TRUE(r["has_errors"]);
  bool requirement = false;
  for (const auto& i : r["information"]) requirement = requirement || i["message"] == "quantize first";
  EXPECT_TRUE(requirement);
}

TEST(Analyze, PartialWhenOnlySomeNodesMeetAConstraintAndWarnsAboutDynamicInputs) {
  RulesOverlay overlay(Tables{{"testep", kTestTable}});
  test::GraphBuilder b;
  b.input("x", {"batch", 4, 8});
  b.input("x2", {4, 8});
  b.initializer("W", {8, 8}, test::random_floats(64, 1));
  b.node("MatMul", {"x", "W"}, {"a"});   // rank 3: violates max_rank
  b.node("MatMul", {"x2", "W"}, {"b"});  // rank 2: fine
  b.output("a", {"batch", 4, 8});
  b.output("b", {4, 8});
  auto a = analyze::analyze_model(wrap(test::make_model(b.graph())), opts({"testep"}));
  const auto& r = a["results"][0];
  EXPECT_TRUE(contains(r["classification"]["partial"], "OP/ai.onnx/MatMul"));
  EXPECT_TRUE(r["has_warnings"]);
  bool rank_info = false, dynamic_info = false;
  for (const auto& i : r["information"]) {
    std::string msg = i["message"];
    if (i["operator"] == "OP/ai.onnx/MatMul" && msg.find("rank 3") != std::string::npos) rank_info = true;
    if (msg.find("fixed input shapes") != std::string::npos) dynamic_info = i["examples"][0] == "x";
  }
  EXPECT_TRUE(rank_info);
  EXPECT_TRUE(dynamic_info);
}

TEST(Analyze, DeviceConstraintsFollowTheRequestedDevice) {
  RulesOverlay overlay(Tables{{"devices", R"(
[ep]
name = "devices"
ep_type = "DevExecutionProvider"
default_device = "npu"
[[partial]]
op = "Relu"
devices = ["cpu", "gpu"]
note = "not on the NPU"
)"}});
  test::GraphBuilder b;
  b.input("x", {2});
  b.node("Relu", {"x"}, {"y"});
  b.output("y", {2});
  auto m = wrap(test::make_model(b.graph()));
  auto npu = analyze::analyze_model(m, opts({"devices"}));
  EXPECT_TRUE(contains(npu["results"][0]["classification"]["unsupported"], "OP/ai.onnx/Relu"));
  auto gpu = analyze::analyze_model(m, opts({"devices"}, "gpu"));
  EXPECT_EQ(gpu["results"][0]["device_type"], "gpu");
  EXPECT_TRUE(contains(gpu["results"][0]["classification"]["supported"], "OP/ai.onnx/Relu"));
  EXPECT_EQ(gpu["results"][0]["runtime_support"], "full");
  auto per_ep = opts({"devices", "cpu"});
  per_ep.devices["devices"] = "cpu";
  auto mixed = analyze::analyze_model(m, per_ep);
  EXPECT_EQ(mixed["results"][0]["device_type"], "cpu");
  EXPECT_EQ(mixed["results"][1]["device_type"], "cpu") << "cpu's default device";
}

TEST(Analyze, DiscoversFlagsTheTargetEpBenefitsFrom) {
  auto at17 = analyze::analyze_model(wrap(patterned_model(17)), opts({"cpu"}));
  auto flags = analyze::discover_flags(at17, "cpu");
  EXPECT_EQ(flags, (std::map<std::string, bool>{{"eliminate_identity", true},
                                                {"fuse_gelu", true},
                                                {"fuse_layer_norm", true},
                                                {"fuse_matmul_add_into_gemm", true}}));
  // No LayerNormalization below opset 17; vitisai's table has no com.microsoft Gelu.
  auto at13 = analyze::analyze_model(wrap(patterned_model(13)), opts({"cpu"}));
  EXPECT_FALSE(analyze::discover_flags(at13, "cpu").count("fuse_layer_norm"));
  EXPECT_FALSE(analyze::discover_flags(at17, "vitisai").count("fuse_gelu"));
}

TEST(Analyze, DetectsAttentionAndConvPatterns) {
  test::GraphBuilder b;
  b.input("q", {1, 4, 8, 16});
  b.input("k", {1, 4, 8, 16});
  b.input("v", {1, 4, 8, 16});
  b.input("img", {1, 3, 8, 8});
  b.initializer("scale", {}, {0.25f});
  b.initializer("W", {4, 3, 1, 1}, test::random_floats(12, 1));
  b.initializer("bn_s", {4}, {1, 1, 1, 1});
  b.initializer("bn_b", {4}, {0, 0, 0, 0});
  b.initializer("bn_m", {4}, {0, 0, 0, 0});
  b.initializer("bn_v", {4}, {1, 1, 1, 1});
  auto& kt = b.node("Transpose", {"k"}, {"kt"});
  test::set_attr(kt, "perm", std::vector<std::int64_t>{0, 1, 3, 2});
  b.node("MatMul", {"q", "kt"}, {"s"});
  b.node("Mul", {"s", "scale"}, {"ss"});
  auto& sm = b.node("Softmax", {"ss"}, {"p"});
  test::set_attr(sm, "axis", std::int64_t{-1});
  b.node("MatMul", {"p", "v"}, {"att"});
  b.node("Conv", {"img", "W"}, {"c"});
  b.node("BatchNormalization", {"c", "bn_s", "bn_b", "bn_m", "bn_v"}, {"bn"});
  b.output("att", {1, 4, 8, 16});
  b.output("bn", {1, 4, 8, 8});
  auto a = analyze::analyze_model(wrap(test::make_model(b.graph())), opts({"cpu"}));
  std::map<std::string, int> kinds;
  for (const auto& p : a["patterns"]) ++kinds[p["kind"].get<std::string>()];
  EXPECT_EQ(kinds["attention"], 1);
  EXPECT_EQ(kinds["conv_bn"], 1);
  EXPECT_EQ(analyze::discover_flags(a, "cpu").count("fuse_bn_into_conv"), 1u);
}
