// Session, plan and evaluation on small models built in the test.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "base/half.h"
#include "model/model_io.h"
#include "model/tensor_file.h"
#include "runtime/errors.h"
#include "runtime/evaluate.h"
#include "runtime/kernel_registry.h"
#include "runtime/session.h"
#include "support/model_builder.h"
#include "support/temp_dir.h"

using namespace winml;
using runtime::Tensor;
namespace fs = std::filesystem;

namespace {

model::Model in_memory(const onnx::ModelProto& proto) {
  model::Model m;
  m.proto = proto;
  m.path = "test.onnx";
  return m;
}

Tensor floats(runtime::Shape shape, std::vector<float> values) {
  return Tensor::from_vector<float>(onnx::TensorProto::FLOAT, std::move(shape), values);
}

std::vector<float> values_of(const Tensor& t) { return {t.data<float>(), t.data<float>() + t.size()}; }

}  // namespace

TEST(Session, RunsALinearModelAndMatchesAHandComputation) {
  model::Model m = in_memory(test::linear_model(3, 2, 5));
  runtime::Session s(m, {.threads = 2});
  ASSERT_EQ(s.inputs().size(), 1u);
  EXPECT_EQ(s.inputs()[0].shape, (runtime::Shape{1, 3}));  // "batch" defaults to 1
  auto out = s.run({{"x", floats({2, 3}, {1, 2, 3, -1, 0.5f, 2})}});
  const auto& g = m.proto.graph();
  const float* W = reinterpret_cast<const float*>(g.initializer(0).raw_data().data());
  const float* b = reinterpret_cast<const float*>(g.initializer(1).raw_data().data());
  float x[2][3] = {{1, 2, 3}, {-1, 0.5f, 2}};
  const Tensor& y = out.at("y");
  ASSERT_EQ(y.shape(), (runtime::Shape{2, 2}));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      float v = b[j];
      for (int k = 0; k < 3; ++k) v += x[i][k] * W[k * 2 + j];
      EXPECT_NEAR(y.data<float>()[i * 2 + j], std::max(v, 0.0f), 1e-5f);
    }
}

TEST(Session, UnsupportedOpsAreReportedUpFrontNamingOpAndNode) {
  test::GraphBuilder b;
  b.input("x", {2});
  b.node("Relu", {"x"}, {"r"}, "relu_1");
  b.node("FancyOp", {"r"}, {"y"}, "fancy_7", "example.domain");
  b.node("OtherOp", {"y"}, {"z"}, "other_8");
  b.output("z", {2});
  model::Model m = in_memory(test::make_model(b.graph()));
  try {
    runtime::Session s(m);
    FAIL() << "expected UnsupportedError";
  } catch (const runtime::UnsupportedError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("test.onnx"), std::string::npos) << msg;
    EXPECT_NE(msg.find("node 'fancy_7' (FancyOp)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("example.domain:FancyOp"), std::string::npos) << msg;
    EXPECT_NE(msg.find("1 more"), std::string::npos) << msg;
  }
}

TEST(Session, BadAttributesAreInputErrorsNamingTheNode) {
  test::GraphBuilder b;
  b.input("x", {1, 1, 4, 4});
  auto& n = b.node("MaxPool", {"x"}, {"y"}, "pool_3");
  test::set_attr(n, "kernel_shape", std::vector<std::int64_t>{2, 2});
  test::set_attr(n, "auto_pad", std::string("SOMETIMES"));
  b.output("y", {1, 1, 2, 2});
  model::Model m = in_memory(test::make_model(b.graph()));
  try {
    runtime::Session s(m);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("node 'pool_3' (MaxPool): unknown auto_pad 'SOMETIMES'"), std::string::npos)
        << e.what();
  }
}

TEST(Session, FeedsAreCheckedAgainstDeclaredTypesAndFixedDims) {
  model::Model m = in_memory(test::linear_model(3, 2));
  runtime::Session s(m);
  EXPECT_THROW(s.run({}), InputError);                                                        // missing input
  EXPECT_THROW(s.run({{"x", floats({1, 4}, {1, 2, 3, 4})}}), InputError);                     // fixed dim 3 violated
  EXPECT_THROW(s.run({{"x", Tensor::zeros(onnx::TensorProto::INT64, {1, 3})}}), InputError);  // type
  EXPECT_THROW(s.run({{"x", floats({1, 3}, {1, 2, 3})}, {"nope", floats({1}, {1})}}), InputError);
  EXPECT_NO_THROW(s.run({{"x", floats({5, 3}, std::vector<float>(15, 1.0f))}}));  // symbolic batch
}

TEST(Session, RuntimeErrorsNameTheFailingNode) {
  test::GraphBuilder b;
  b.input("x", {"n"});
  b.input("s", {2}, onnx::TensorProto::INT64);
  b.node("Reshape", {"x", "s"}, {"y"}, "reshape_9");
  b.output("y", {"a", "b"});
  model::Model m = in_memory(test::make_model(b.graph()));
  runtime::Session s(m);
  try {
    s.run({{"x", floats({5}, {1, 2, 3, 4, 5})},
           {"s", Tensor::from_vector<std::int64_t>(onnx::TensorProto::INT64, {2}, {2, 2})}});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("node 'reshape_9' (Reshape): cannot reshape [5] to [2,2]"), std::string::npos)
        << e.what();
  }
}

TEST(Session, ObserverSeesEveryValueAsItIsProduced) {
  model::Model m = in_memory(test::linear_model(4, 3));
  runtime::Session s(m);
  std::vector<std::string> seen;
  float relu_min = 1;
  s.run({{"x", floats({1, 4}, {1, -2, 3, -4})}}, [&](const std::string& name, const Tensor& t) {
    seen.push_back(name);
    if (name == "y")
      for (float v : values_of(t)) relu_min = std::min(relu_min, v);
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"x", "xw", "xwb", "y"}));
  EXPECT_GE(relu_min, 0.0f);
}

TEST(Session, ValuesAreReleasedAfterTheirLastUse) {
  model::Model m = in_memory(test::linear_model(4, 3));
  runtime::Session s(m);
  const auto& plan = s.plan();
  ASSERT_EQ(plan.steps.size(), 3u);
  auto released_at = [&](const std::string& name) {
    int id = plan.find(name);
    for (std::size_t i = 0; i < plan.steps.size(); ++i)
      for (int r : plan.steps[i].release)
        if (r == id) return static_cast<int>(i);
    return -1;
  };
  EXPECT_EQ(released_at("x"), 0);
  EXPECT_EQ(released_at("xw"), 1);
  EXPECT_EQ(released_at("xwb"), 2);
  EXPECT_EQ(released_at("y"), -1);  // a graph output
  EXPECT_EQ(released_at("W"), -1);  // a constant
}

TEST(Session, MemoryPlanSharesBuffersOnlyBetweenDisjointLifetimes) {
  // A chain x -> a -> b -> c -> d -> y: a and c (and b and d) can share.
  // (Transposes of a vector: copies, which never write over their input.)
  test::GraphBuilder b;
  b.input("x", {64});
  b.node("Relu", {"x"}, {"a"});
  b.node("Transpose", {"a"}, {"b"});
  b.node("Transpose", {"b"}, {"c"});
  b.node("Transpose", {"c"}, {"d"});
  b.node("Transpose", {"d"}, {"y"});
  b.output("y", {64});
  model::Model m = in_memory(test::make_model(b.graph()));
  runtime::Session s(m);
  const auto& plan = s.plan();
  auto buffer = [&](const char* name) { return plan.values[plan.find(name)].buffer; };
  ASSERT_GE(buffer("a"), 0);
  ASSERT_GE(buffer("b"), 0);
  EXPECT_EQ(buffer("y"), -1) << "graph outputs never live in the arena";
  EXPECT_EQ(buffer("x"), -1);
  auto offset = [&](const char* name) { return plan.buffers[buffer(name)].offset; };
  EXPECT_NE(offset("a"), offset("b"));
  EXPECT_NE(offset("b"), offset("c"));
  EXPECT_EQ(plan.arena_bytes, 2 * 256);
  // Runs reuse the arena: results stay right.
  std::vector<float> in(64);
  for (int i = 0; i < 64; ++i) in[i] = static_cast<float>(i - 32);
  for (int run = 0; run < 3; ++run) {
    auto out = s.run({{"x", floats({64}, in)}});
    for (int i = 0; i < 64; ++i) EXPECT_EQ(out.at("y").data<float>()[i], std::max(in[i], 0.0f));
  }
}

TEST(Session, ReshapeChainsShareOneBufferWithTheirSource) {
  test::GraphBuilder b;
  b.input("x", {4, 4});
  b.initializer_i64("shape", {1}, {16});
  b.node("Relu", {"x"}, {"a"});
  b.node("Reshape", {"a", "shape"}, {"flat"});
  b.node("Neg", {"flat"}, {"n"});
  b.node("Abs", {"n"}, {"y"});
  b.output("y", {16});
  model::Model m = in_memory(test::make_model(b.graph()));
  runtime::Session s(m);
  const auto& plan = s.plan();
  EXPECT_EQ(plan.values[plan.find("flat")].buffer, -1) << "an alias, not a buffer of its own";
  int a = plan.values[plan.find("a")].buffer, n = plan.values[plan.find("n")].buffer;
  ASSERT_GE(a, 0);
  ASSERT_GE(n, 0);
  EXPECT_NE(plan.buffers[a].offset, plan.buffers[n].offset) << "'a' lives on through 'flat' while 'n' is written";
  auto out = s.run({{"x", floats({4, 4}, std::vector<float>(16, -3.0f))}});
  EXPECT_EQ(values_of(out.at("y")), std::vector<float>(16, 0.0f));
}

// Element-wise steps write their output over an input nothing reads later
// (one buffer for both), and never over a value read afterwards, a graph
// input, or an input of another shape; results stay those of separate
// buffers.
TEST(Session, ElementwiseStepsWriteOverAnInputNothingReadsLater) {
  test::GraphBuilder b;
  b.input("x", {2, 32});
  b.initializer("row", {32}, std::vector<float>(32, 0.5f));
  b.node("Neg", {"x"}, {"n"});             // not over x, a graph input; n: read by the Add only
  b.node("Add", {"n", "row"}, {"s"});      // over n (row broadcasts: it is input 1)
  b.node("Relu", {"s"}, {"r"});            // over s
  b.node("Neg", {"x"}, {"v"});             // v: read by the Relu and the Sub
  b.node("Relu", {"v"}, {"k"});            // not over v, read below
  b.node("Sub", {"k", "v"}, {"m"});        // over k (v is input 1)
  b.node("Add", {"r", "m"}, {"t"});        // over r
  b.node("Add", {"row", "t"}, {"small"});  // not over input 0: a constant of another shape
  b.node("Sub", {"small", "x"}, {"y"});    // y is a graph output, kept out of the arena
  b.output("y", {2, 32});
  model::Model m = in_memory(test::make_model(b.graph()));
  runtime::Session s(m);
  const auto& plan = s.plan();
  auto buffer = [&](const char* name) { return plan.values[plan.find(name)].buffer; };
  auto over = [&](const char* out) {
    for (const auto& step : plan.steps)
      if (!step.outputs.empty() && step.outputs[0] == plan.find(out)) return step.writes_over_input0;
    return false;
  };
  ASSERT_GE(buffer("n"), 0);
  EXPECT_TRUE(over("s") && over("r") && over("m") && over("t"));
  EXPECT_EQ(buffer("s"), buffer("n"));
  EXPECT_EQ(buffer("r"), buffer("n"));
  EXPECT_EQ(buffer("t"), buffer("n"));
  EXPECT_EQ(buffer("m"), buffer("k"));
  EXPECT_FALSE(over("k")) << "v is read after the Relu";
  EXPECT_NE(buffer("k"), buffer("v"));
  EXPECT_FALSE(over("small")) << "input 0 is a constant";
  EXPECT_FALSE(over("y"));
  EXPECT_FALSE(over("n")) << "x is a graph input";
  std::vector<float> in(64);
  for (int i = 0; i < 64; ++i) in[i] = static_cast<float>(i - 40) * 0.25f;
  auto relu = [](float v) { return v < 0.0f ? 0.0f : v; };
  for (int run = 0; run < 2; ++run) {
    auto out = s.run({{"x", floats({2, 32}, in)}});
    for (int i = 0; i < 64; ++i) {
      const float r = relu(-in[i] + 0.5f), v = -in[i], t = r + (relu(v) - v);
      ASSERT_EQ(out.at("y").data<float>()[i], (0.5f + t) - in[i]) << i;
    }
  }
}

// Every op declaring that it may write over input 0 gives, written over an
// intermediate value, the bits it gives on separate buffers (evaluate_node
// runs it outside any arena).
TEST(Session, EveryOpWritingOverInput0GivesItsSeparateBufferBits) {
  int checked = 0;
  for (const auto& op : runtime::supported_ops()) {
    if (!op.domain.empty() || op.since > 17) continue;  // (shapes come from libonnx 1.12: opsets to 17)
    const std::int64_t opset = std::min<std::int64_t>(op.until, 17);
    auto entry = runtime::KernelRegistry::global().find("", op.op, opset);
    if (!entry || !entry->traits.may_write_over_input0) continue;
    SCOPED_TRACE(op.op);
    const bool binary = op.op == "Add" || op.op == "Sub" || op.op == "Mul" || op.op == "Div";
    test::GraphBuilder b;
    b.input("x", {3, 40});
    b.initializer("c", {40}, std::vector<float>(40, 1.75f));
    b.node("Neg", {"x"}, {"t"});
    if (binary) b.node(op.op, {"t", "c"}, {"u"}, "op");
    else b.node(op.op, {"t"}, {"u"}, "op");
    b.node("Neg", {"u"}, {"y"});
    b.output("y", {3, 40});
    model::Model m = in_memory(test::make_model(b.graph(), opset));
    runtime::Session s(m);
    const auto& plan = s.plan();
    bool over = false;
    for (const auto& step : plan.steps) over |= step.node_name == "op" && step.writes_over_input0;
    EXPECT_TRUE(over) << "not placed over its input";
    std::vector<float> in(120);
    for (int i = 0; i < 120; ++i) in[i] = static_cast<float>(i - 60) * 0.05f;
    const Tensor x = floats({3, 40}, in);
    const auto out = s.run({{"x", x}});
    onnx::NodeProto neg, node = b.graph().node(1);
    neg.set_op_type("Neg");
    neg.add_input("a");
    neg.add_output("b");
    const Tensor t = runtime::evaluate_node(neg, opset, {x}).at(0);
    std::vector<Tensor> args = {t};
    if (binary) args.push_back(floats({40}, std::vector<float>(40, 1.75f)));
    const Tensor u = runtime::evaluate_node(node, opset, args).at(0);
    const Tensor y = runtime::evaluate_node(neg, opset, {u}).at(0);
    ASSERT_EQ(out.at("y").bytes(), y.bytes());
    EXPECT_EQ(std::memcmp(out.at("y").raw(), y.raw(), y.bytes()), 0);
    ++checked;
  }
  EXPECT_GE(checked, 35);  // the activations, Clip, the unary math ops, Add, Sub, Mul, Div
}

TEST(Session, ExternalInitializersAreUsedInPlace) {
  test::TempDir dir;
  model::Model m = in_memory(test::linear_model(256, 64));
  model::save_model(m, dir / "m.onnx", {.external = model::ExternalData::kAlways});
  model::Model loaded = model::load_model(dir / "m.onnx");
  runtime::Session s(loaded);
  const auto& mapping = loaded.external_files.begin()->second;
  int found = 0;
  for (const auto& [id, t] : s.plan().constants) {
    if (t.bytes() < 1024) continue;
    ++found;
    EXPECT_FALSE(t.writable());
    EXPECT_GE(t.raw(), mapping->data());
    EXPECT_LE(t.raw() + t.bytes(), mapping->data() + mapping->size());
  }
  EXPECT_EQ(found, 1);
  EXPECT_NO_THROW(s.run({{"x", floats({1, 256}, std::vector<float>(256, 0.5f))}}));
}

TEST(Session, Float16IsComputedInFloat32AndStoredAsFloat16) {
  test::GraphBuilder b;
  b.input("x", {3}, onnx::TensorProto::FLOAT16);
  auto* w = b.graph().add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT16);
  w->add_dims(3);
  std::vector<std::uint16_t> wv = {winml::float_to_half(0.5f), winml::float_to_half(-2.0f),
                                   winml::float_to_half(1000.0f)};
  w->set_raw_data(wv.data(), wv.size() * 2);
  b.node("Mul", {"x", "w"}, {"y"});
  b.output("y", {3}, onnx::TensorProto::FLOAT16);
  model::Model m = in_memory(test::make_model(b.graph()));
  runtime::Session s(m);
  std::vector<std::uint16_t> xv = {winml::float_to_half(3.0f), winml::float_to_half(0.25f),
                                   winml::float_to_half(100.0f)};
  auto out = s.run({{"x", Tensor::from_vector<std::uint16_t>(onnx::TensorProto::FLOAT16, {3}, xv)}});
  const Tensor& y = out.at("y");
  ASSERT_EQ(y.dtype(), onnx::TensorProto::FLOAT16);
  EXPECT_EQ(winml::half_to_float(y.data<std::uint16_t>()[0]), 1.5f);
  EXPECT_EQ(winml::half_to_float(y.data<std::uint16_t>()[1]), -0.5f);
  EXPECT_TRUE(std::isinf(winml::half_to_float(y.data<std::uint16_t>()[2])));  // 1e5 overflows float16
}

TEST(Session, IfBranchesReadOuterScopeValues) {
  test::GraphBuilder then_b("then"), else_b("else");
  then_b.node("Add", {"a", "a"}, {"t"});
  then_b.output("t", {2});
  else_b.node("Neg", {"a"}, {"e"});
  else_b.output("e", {2});
  test::GraphBuilder b;
  b.input("x", {2});
  b.input("c", {}, onnx::TensorProto::BOOL);
  b.node("Relu", {"x"}, {"a"});
  auto& n = b.node("If", {"c"}, {"y"}, "if_0");
  test::set_attr(n, "then_branch", then_b.graph());
  test::set_attr(n, "else_branch", else_b.graph());
  b.output("y", {2});
  model::Model m = in_memory(test::make_model(b.graph()));
  runtime::Session s(m);
  auto run = [&](bool c) {
    return values_of(
        s.run({{"x", floats({2}, {1, -3})}, {"c", Tensor::from_vector<bool>(onnx::TensorProto::BOOL, {}, {c})}})
            .at("y"));
  };
  EXPECT_EQ(run(true), (std::vector<float>{2, 0}));
  EXPECT_EQ(run(false), (std::vector<float>{-1, 0}));
}

TEST(Session, UnsupportedOpsInsideSubgraphsAreReportedUpFront) {
  test::GraphBuilder then_b("then"), else_b("else");
  then_b.node("NoSuchOp", {"x"}, {"t"}, "inner_1");
  then_b.output("t", {2});
  else_b.node("Identity", {"x"}, {"e"});
  else_b.output("e", {2});
  test::GraphBuilder b;
  b.input("x", {2});
  b.input("c", {}, onnx::TensorProto::BOOL);
  auto& n = b.node("If", {"c"}, {"y"}, "if_0");
  test::set_attr(n, "then_branch", then_b.graph());
  test::set_attr(n, "else_branch", else_b.graph());
  b.output("y", {2});
  model::Model m = in_memory(test::make_model(b.graph()));
  try {
    runtime::Session s(m);
    FAIL() << "expected UnsupportedError";
  } catch (const runtime::UnsupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("node 'inner_1' (NoSuchOp)"), std::string::npos) << e.what();
  }
}

TEST(Evaluate, RunsOneNodeOnGivenTensors) {
  onnx::NodeProto n;
  n.set_op_type("Transpose");
  n.add_input("a");
  n.add_output("b");
  auto* perm = n.add_attribute();
  perm->set_name("perm");
  perm->set_type(onnx::AttributeProto::INTS);
  perm->add_ints(1);
  perm->add_ints(0);
  auto out = runtime::evaluate_node(n, 17, {floats({2, 3}, {1, 2, 3, 4, 5, 6})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (runtime::Shape{3, 2}));
  EXPECT_EQ(values_of(out[0]), (std::vector<float>{1, 4, 2, 5, 3, 6}));

  // Results convert to initializers for constant folding.
  onnx::TensorProto p = runtime::to_proto(out[0], "b");
  EXPECT_TRUE(runtime::from_proto(p).same_as(out[0]));

  onnx::NodeProto bad;
  bad.set_op_type("NotAnOp");
  bad.add_input("a");
  bad.add_output("b");
  EXPECT_THROW(runtime::evaluate_node(bad, 17, {floats({1}, {1})}), runtime::UnsupportedError);
}

TEST(Evaluate, RespectsTheOpsetOfTheNode) {
  // Squeeze takes axes as an attribute before opset 13 and as an input after.
  onnx::NodeProto n;
  n.set_op_type("Squeeze");
  n.add_input("a");
  n.add_output("b");
  auto* axes = n.add_attribute();
  axes->set_name("axes");
  axes->set_type(onnx::AttributeProto::INTS);
  axes->add_ints(0);
  auto out = runtime::evaluate_node(n, 11, {floats({1, 2}, {7, 8})});
  EXPECT_EQ(out[0].shape(), (runtime::Shape{2}));
}

namespace {
// A kernel registered from outside the runtime, as the `ref` backend will.
class TimesThree : public runtime::Kernel {
 public:
  explicit TimesThree(const runtime::NodeContext&) {}
  void run(runtime::KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    for (std::int64_t i = 0; i < x.size(); ++i) y.mutable_data<float>()[i] = 3 * x.data<float>()[i];
  }
};
}  // namespace

TEST(KernelRegistry, AcceptsKernelsFromOtherModules) {
  EXPECT_FALSE(runtime::is_supported("test.ext", "TimesThree", 1));
  runtime::KernelRegistry::global().add({"test.ext",
                                         "TimesThree",
                                         1,
                                         1,
                                         [](const runtime::NodeContext& n) -> std::unique_ptr<runtime::Kernel> {
                                           return std::make_unique<TimesThree>(n);
                                         },
                                         {}});
  EXPECT_TRUE(runtime::is_supported("test.ext", "TimesThree", 1));
  EXPECT_FALSE(runtime::is_supported("test.ext", "TimesThree", 2));
  test::GraphBuilder b;
  b.input("x", {2});
  b.node("TimesThree", {"x"}, {"y"}, "t", "test.ext");
  b.output("y", {2});
  auto proto = test::make_model(b.graph());
  auto* o = proto.add_opset_import();
  o->set_domain("test.ext");
  o->set_version(1);
  model::Model m = in_memory(proto);
  runtime::Session s(m);
  EXPECT_EQ(values_of(s.run({{"x", floats({2}, {1, -2})}}).at("y")), (std::vector<float>{3, -6}));
}

TEST(KernelRegistry, ListsSupportedOpsWithOpsetRanges) {
  auto ops = runtime::supported_ops();
  bool conv = false, gelu_ms = false;
  for (const auto& op : ops) {
    if (op.domain.empty() && op.op == "Conv") conv = op.since <= 1 && op.until >= 17;
    if (op.domain == "com.microsoft" && op.op == "Gelu") gelu_ms = true;
  }
  EXPECT_TRUE(conv);
  EXPECT_TRUE(gelu_ms);
  EXPECT_TRUE(runtime::is_supported("", "LayerNormalization", 17));
  EXPECT_FALSE(runtime::is_supported("", "LayerNormalization", 16));
  EXPECT_TRUE(runtime::is_supported("ai.onnx", "Gelu", 20));
  EXPECT_TRUE(runtime::is_supported("com.microsoft", "QuantizeLinear", 1));
}

TEST(Tensor, ConvertsToAndFromTensorFilesAndProtos) {
  model::TensorFile f;
  f.dtype = onnx::TensorProto::INT64;
  f.shape = {2};
  std::int64_t v[2] = {-5, 1ll << 40};
  f.data.resize(16);
  std::memcpy(f.data.data(), v, 16);
  Tensor t = runtime::from_tensor_file(f);
  EXPECT_EQ(t.data<std::int64_t>()[1], 1ll << 40);
  EXPECT_EQ(runtime::to_tensor_file(t).data, f.data);
  onnx::TensorProto typed;  // typed fields instead of raw_data
  typed.set_data_type(onnx::TensorProto::FLOAT);
  typed.add_dims(3);
  for (float x : {1.5f, -2.0f, 3.25f}) typed.add_float_data(x);
  EXPECT_EQ(values_of(runtime::from_proto(typed)), (std::vector<float>{1.5f, -2.0f, 3.25f}));
}

TEST(Tensor, HalfConversionsRoundToNearestEven) {
  for (float f : {0.0f, -0.0f, 1.0f, -2.5f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f, 0.333251953125f})
    EXPECT_EQ(winml::half_to_float(winml::float_to_half(f)), f) << f;
  EXPECT_EQ(winml::float_to_half(1.0f + 1.0f / 2048), winml::float_to_half(1.0f));          // tie, to even
  EXPECT_EQ(winml::float_to_half(1.0f + 3.0f / 2048), winml::float_to_half(1.001953125f));  // tie, up to even
  EXPECT_TRUE(std::isinf(winml::half_to_float(winml::float_to_half(65520.0f))));
  EXPECT_TRUE(std::isnan(winml::half_to_float(winml::float_to_half(NAN))));
  EXPECT_EQ(runtime::bfloat16_to_float(runtime::float_to_bfloat16(1.00390625f)), 1.0f);  // tie, to even
}

TEST(Quantize, SixteenBitPerAxisRoundTripsThroughComMicrosoftOps) {
  // x [2, 3] quantized per row (axis 0) to int16 and back.
  test::GraphBuilder b;
  b.input("x", {2, 3});
  b.initializer("scale", {2}, {0.001f, 0.5f});
  auto* zp = b.graph().add_initializer();
  zp->set_name("zp");
  zp->set_data_type(onnx::TensorProto::INT16);
  zp->add_dims(2);
  std::int16_t zps[2] = {10, -3};
  zp->set_raw_data(zps, sizeof(zps));
  auto& q = b.node("QuantizeLinear", {"x", "scale", "zp"}, {"q"}, "q", "com.microsoft");
  test::set_attr(q, "axis", std::int64_t{0});
  auto& dq = b.node("DequantizeLinear", {"q", "scale", "zp"}, {"y"}, "dq", "com.microsoft");
  test::set_attr(dq, "axis", std::int64_t{0});
  b.output("q", {2, 3}, onnx::TensorProto::INT16);
  b.output("y", {2, 3});
  auto proto = test::make_model(b.graph());
  auto* ms = proto.add_opset_import();
  ms->set_domain("com.microsoft");
  ms->set_version(1);
  model::Model m = in_memory(proto);
  runtime::Session s(m);
  auto out = s.run({{"x", floats({2, 3}, {0.0125f, -1.0f, 40.0f, 2.25f, -2.75f, 1e6f})}});
  const std::int16_t* qv = out.at("q").data<std::int16_t>();
  EXPECT_EQ(std::vector<std::int16_t>(qv, qv + 6), (std::vector<std::int16_t>{22, -990, 32767, 1, -9, 32767}));
  // 0.0125/0.001 = 12.5 rounds to even (12), + 10; 2.25/0.5 = 4.5 -> 4 and -5.5 -> -6, + (-3); int16 saturates.
  EXPECT_EQ(values_of(out.at("y")), (std::vector<float>{0.012f, -1.0f, 32.757f, 2.0f, -3.0f, 16385.0f}));
}

TEST(Quantize, VectorLoopRoundsAndSaturatesAsTheFormula) {
  // QuantizeLinear's loop (vector code on AVX2 machines) against
  // saturate(nearbyint(x / scale) + zero_point) one value at a time, and
  // DequantizeLinear's back against (q - zero_point) * scale: ties
  // both ways, NaN, infinities, saturation, per tensor and per axis, and
  // lengths that leave remainders after the vector width.
  std::vector<float> x;
  for (int i = -600; i <= 600; ++i) x.push_back(static_cast<float>(i) * 0.25f);  // every tie of scale 0.5
  for (float v : {NAN, INFINITY, -INFINITY, 1e30f, -1e30f, 0.0f, -0.0f, 1e-30f}) x.push_back(v);
  while (x.size() % 6 != 0 || x.size() % 4 == 0) x.push_back(3.3f);  // (3 rows of an odd length below)
  const auto n = static_cast<std::int64_t>(x.size());
  auto tensor_of = [](onnx::TensorProto::DataType t, runtime::Shape shape, auto values) {
    using V = typename decltype(values)::value_type;
    return Tensor::from_vector<V>(t, std::move(shape), values);
  };
  auto check = [&](onnx::TensorProto::DataType type, auto zero_type, runtime::Shape shape, std::int64_t axis,
                   std::vector<float> scales, std::vector<decltype(zero_type)> zeros) {
    using Q = decltype(zero_type);
    onnx::NodeProto node;
    node.set_op_type("QuantizeLinear");
    for (const char* in : {"x", "s", "z"}) node.add_input(in);
    node.add_output("y");
    auto* a = node.add_attribute();
    a->set_name("axis");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(axis);
    const runtime::Shape param_shape =
        scales.size() == 1 ? runtime::Shape{} : runtime::Shape{static_cast<std::int64_t>(scales.size())};
    auto out = runtime::evaluate_node(
        node, 13, {floats(shape, x), floats(param_shape, scales), tensor_of(type, param_shape, zeros)});
    ASSERT_EQ(out.size(), 1u);
    const std::int64_t inner = shape.size() == 3 ? shape[2] : 1;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::size_t p =
          scales.size() == 1 ? 0 : static_cast<std::size_t>((i / inner) % static_cast<std::int64_t>(scales.size()));
      const float r = std::nearbyint(std::nearbyint(x[i] / scales[p]) + static_cast<float>(zeros[p]));
      const Q want = !(r >= static_cast<float>(std::numeric_limits<Q>::lowest())) ? std::numeric_limits<Q>::lowest()
                     : r > static_cast<float>(std::numeric_limits<Q>::max())      ? std::numeric_limits<Q>::max()
                                                                                  : static_cast<Q>(r);
      ASSERT_EQ(out[0].template data<Q>()[i], want) << "value " << x[i] << " at " << i;
    }
    // And back: DequantizeLinear's loop, run by run of one scale, against (q - zero_point) * scale.
    node.set_op_type("DequantizeLinear");
    node.set_input(0, "q");
    auto back =
        runtime::evaluate_node(node, 13, {out[0], floats(param_shape, scales), tensor_of(type, param_shape, zeros)});
    for (std::int64_t i = 0; i < n; ++i) {
      const std::size_t p =
          scales.size() == 1 ? 0 : static_cast<std::size_t>((i / inner) % static_cast<std::int64_t>(scales.size()));
      const float want = static_cast<float>(static_cast<std::int64_t>(out[0].template data<Q>()[i]) -
                                            static_cast<std::int64_t>(zeros[p])) *
                         scales[p];
      ASSERT_EQ(back[0].template data<float>()[i], want) << i;
    }
  };
  check(onnx::TensorProto::UINT8, std::uint8_t{}, {n}, 1, {0.5f}, {128});
  check(onnx::TensorProto::INT8, std::int8_t{}, {n}, 1, {0.5f}, {-3});
  check(onnx::TensorProto::INT16, std::int16_t{}, {n}, 1, {0.01f}, {7});
  check(onnx::TensorProto::UINT8, std::uint8_t{}, {1, 3, n / 3}, 1, {0.5f, 0.25f, 3.0f}, {0, 100, 255});
}

TEST(Session, PassThroughOutputsDoNotOutliveArenaBuffers) {
  // Cast to the same type hands back its input; the memory plan must not
  // let 'a's buffer be reused while 'c' (the same bytes) is still needed.
  test::GraphBuilder b;
  b.input("x", {256});
  b.node("Relu", {"x"}, {"a"});
  auto& cast = b.node("Cast", {"a"}, {"c"});
  test::set_attr(cast, "to", std::int64_t{onnx::TensorProto::FLOAT});
  b.node("Neg", {"c"}, {"n1"});
  b.node("Neg", {"n1"}, {"n2"});
  b.node("Add", {"n2", "c"}, {"y"});
  b.output("y", {256});
  model::Model m = in_memory(test::make_model(b.graph()));
  runtime::Session s(m);
  std::vector<float> in(256);
  for (int i = 0; i < 256; ++i) in[i] = static_cast<float>(i % 7) - 3;
  auto out = s.run({{"x", floats({256}, in)}});
  for (int i = 0; i < 256; ++i) EXPECT_EQ(out.at("y").data<float>()[i], 2 * std::max(in[i], 0.0f)) << i;
}

TEST(Session, Float16WeightsAreConvertedOnceAtLoad) {
  // y = x @ W + (c1 + c2), all float16; W, c1, c2 are initializers.
  auto half_init = [](test::GraphBuilder& b, const std::string& name, std::vector<std::int64_t> dims,
                      const std::vector<float>& values) {
    auto* t = b.graph().add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT16);
    for (auto d : dims) t->add_dims(d);
    std::vector<std::uint16_t> h;
    for (float v : values) h.push_back(winml::float_to_half(v));
    t->set_raw_data(h.data(), h.size() * 2);
  };
  test::GraphBuilder b;
  b.input("x", {2, 3}, onnx::TensorProto::FLOAT16);
  half_init(b, "W", {3, 2}, {1, 2, 3, 4, 5, 6});
  half_init(b, "c1", {2}, {0.5f, 0.25f});
  half_init(b, "c2", {2}, {1.0f, -1.0f});
  b.node("MatMul", {"x", "W"}, {"xw"});
  b.node("Add", {"c1", "c2"}, {"c"});
  b.node("Add", {"xw", "c"}, {"y"});
  b.output("y", {2, 2}, onnx::TensorProto::FLOAT16);
  b.output("c", {2}, onnx::TensorProto::FLOAT16);
  model::Model m = in_memory(test::make_model(b.graph()));
  runtime::Session s(m);
  const auto& plan = s.plan();
  int w32 = plan.find("W:float32");
  ASSERT_GE(w32, 0) << "the float16 weights get a float32 copy at load";
  EXPECT_EQ(plan.steps[0].inputs[1], w32);
  EXPECT_TRUE(plan.steps[0].kernel->prepacked_input(1)) << "which MatMul packs";
  std::vector<std::uint16_t> xv;
  for (float v : {1.0f, 0.0f, -1.0f, 2.0f, 1.0f, 0.5f}) xv.push_back(winml::float_to_half(v));
  auto out = s.run({{"x", Tensor::from_vector<std::uint16_t>(onnx::TensorProto::FLOAT16, {2, 3}, xv)}});
  ASSERT_EQ(out.at("c").dtype(), onnx::TensorProto::FLOAT16) << "constant-only nodes keep their float16 type";
  ASSERT_EQ(out.at("y").dtype(), onnx::TensorProto::FLOAT16);
  std::vector<float> y;
  for (int i = 0; i < 4; ++i) y.push_back(winml::half_to_float(out.at("y").data<std::uint16_t>()[i]));
  // [1,0,-1] @ W = [-4,-4]; [2,1,0.5] @ W = [7.5, 11]; + [1.5, -0.75]
  EXPECT_EQ(y, (std::vector<float>{-2.5f, -4.75f, 9.0f, 10.25f}));
}
