// optimize_model as a whole: fixed point, subgraphs, graph outputs, refusal
// of compiled models.
#include <gtest/gtest.h>

#include "base/error.h"
#include "pass_harness.h"
#include "support/model_builder.h"
#include "support/ort_oracle.h"

using namespace winml;
using test::count_op;

namespace {
model::TensorFile bool_scalar(bool v) {
  model::TensorFile t;
  t.dtype = onnx::TensorProto::BOOL;
  t.data = {std::byte{v ? std::uint8_t{1} : std::uint8_t{0}}};
  return t;
}

// x -> Conv -> If(cond) { then: Identity -> Conv -> BN -> Relu ; else: Dropout -> Relu } -> y
onnx::ModelProto if_model() {
  test::GraphBuilder then_b("then_branch");
  then_b.initializer("W2", {4, 4, 1, 1}, test::random_floats(16, 3));
  then_b.initializer("scale", {4}, test::random_floats(4, 4));
  then_b.initializer("shift", {4}, test::random_floats(4, 5));
  then_b.initializer("mean", {4}, test::random_floats(4, 6));
  then_b.initializer("var", {4}, {0.5f, 1.0f, 1.5f, 2.0f});
  then_b.node("Identity", {"c"}, {"ci"});
  then_b.node("Conv", {"ci", "W2"}, {"c2"});
  then_b.node("BatchNormalization", {"c2", "scale", "shift", "mean", "var"}, {"bn"});
  then_b.node("Relu", {"bn"}, {"then_out"});
  then_b.output("then_out", {1, 4, 6, 6});

  test::GraphBuilder else_b("else_branch");
  else_b.node("Dropout", {"c"}, {"d"});
  else_b.node("Relu", {"d"}, {"else_out"});
  else_b.output("else_out", {1, 4, 6, 6});

  test::GraphBuilder b("with_if");
  b.input("x", {1, 3, 8, 8});
  b.input("cond", {}, onnx::TensorProto::BOOL);
  b.initializer("W", {4, 3, 3, 3}, test::random_floats(108, 1));
  b.node("Identity", {"x"}, {"xi"});
  b.node("Conv", {"xi", "W"}, {"c"}, "conv");
  auto& iff = b.node("If", {"cond"}, {"y"}, "if");
  test::set_attr(iff, "then_branch", then_b.graph());
  test::set_attr(iff, "else_branch", else_b.graph());
  b.output("y", {1, 4, 6, 6});
  return test::make_model(b.graph(), 13);
}
}  // namespace

TEST(OptimizeModel, OptimizesIfBranchesAndKeepsOutputs) {
  auto model = if_model();
  auto o = test::optimize_with(model, {}, "", "basic");
  const auto& main = o.model.proto.graph();
  EXPECT_EQ(count_op(main, "Identity"), 0);
  const auto& iff = main.node(main.node_size() - 1);
  ASSERT_EQ(iff.op_type(), "If");
  const auto& then_g = iff.attribute(0).g();
  const auto& else_g = iff.attribute(1).g();
  EXPECT_EQ(count_op(then_g, "Identity"), 0);
  EXPECT_EQ(count_op(then_g, "BatchNormalization"), 0) << "BN folded into the branch's Conv";
  EXPECT_EQ(count_op(else_g, "Dropout"), 0);
  EXPECT_EQ(then_g.output(0).name(), "then_out");
  EXPECT_EQ(else_g.output(0).name(), "else_out");
  EXPECT_EQ(o.report.nodes_before, 9);
  EXPECT_EQ(o.report.nodes_after, 5);  // main: Conv, If; then: Conv, Relu; else: Relu
  test::expect_checker_accepts(o.model.proto);
  for (bool cond : {true, false})
    test::expect_same_outputs(model, o.model.proto,
                              {{"x", test::random_tensor({1, 3, 8, 8}, 2)}, {"cond", bool_scalar(cond)}}, 1e-4);
}

TEST(OptimizeModel, RunsToAFixedPointAndReportsRounds) {
  // Each round exposes more work: folding the Constant lets the nop Reshape go,
  // which exposes two Transposes that cancel.
  test::GraphBuilder b;
  b.input("x", {2, 3});
  auto& t1 = b.node("Transpose", {"x"}, {"t1"});
  test::set_attr(t1, "perm", std::vector<std::int64_t>{1, 0});
  b.initializer_i64("shape", {2}, {3, 2});
  b.node("Reshape", {"t1", "shape"}, {"r"});
  auto& t2 = b.node("Transpose", {"r"}, {"t2"});
  test::set_attr(t2, "perm", std::vector<std::int64_t>{1, 0});
  b.node("Relu", {"t2"}, {"y"});
  b.output("y", {2, 3});
  auto model = test::make_model(b.graph());
  auto o = test::optimize_with(model, {}, "", "basic");
  EXPECT_EQ(o.model.proto.graph().node_size(), 1);
  EXPECT_TRUE(o.report.fixed_point);
  EXPECT_GE(o.report.rounds, 2);
  EXPECT_EQ(o.report.nodes_before, 4);
  EXPECT_EQ(o.report.nodes_after, 1);
  test::expect_same_outputs(model, o.model.proto, {{"x", test::random_tensor({2, 3}, 1)}}, 0);
}

TEST(OptimizeModel, NeverRenamesOrDropsGraphOutputs) {
  test::GraphBuilder b;
  b.input("x", {3});
  b.node("Identity", {"x"}, {"a"});
  b.node("Identity", {"a"}, {"b"});
  b.node("Dropout", {"b"}, {"c"});
  b.output("a", {3});
  b.output("c", {3});
  b.output("x_out", {3});
  b.node("Identity", {"x"}, {"x_out"});
  auto model = test::make_model(b.graph(), 13);
  auto o = test::optimize_with(model, {}, "", "extended");
  ASSERT_EQ(o.model.proto.graph().output_size(), 3);
  EXPECT_EQ(o.model.proto.graph().output(0).name(), "a");
  EXPECT_EQ(o.model.proto.graph().output(1).name(), "c");
  EXPECT_EQ(o.model.proto.graph().output(2).name(), "x_out");
  test::expect_same_outputs(model, o.model.proto, {{"x", test::random_tensor({3}, 1)}}, 0);
}

TEST(OptimizeModel, RefusesCompiledEpContextModels) {
  model::Model m;
  m.proto = test::epcontext_model("QNNExecutionProvider", 1, "blob");
  m.path = "compiled.onnx";
  auto before = m.proto.SerializeAsString();
  try {
    passes::optimize_model(m, {});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("Input model is a compiled EPContext artifact (EPContext nodes from "
                                         "QNNExecutionProvider) and cannot be re-optimized. Run optimize on the "
                                         "original ONNX model before compilation."),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(m.proto.SerializeAsString(), before);
}

TEST(OptimizeModel, LevelNoneChangesNothing) {
  auto model = if_model();
  auto o = test::optimize_with(model, {}, "", "none");
  EXPECT_EQ(o.model.proto.SerializeAsString(), model.SerializeAsString());
  EXPECT_EQ(o.report.rounds, 1);
}

TEST(OptimizeModel, OptimizesLoopBodiesWithoutTouchingTheirSignature) {
  // for i in range(3): acc = acc + (w * 1) ; the body reads the outer constant w.
  test::GraphBuilder body("body");
  body.input("i", {}, onnx::TensorProto::INT64);
  body.input("cond_in", {}, onnx::TensorProto::BOOL);
  body.input("acc_in", {4});
  body.initializer("one", {}, {1.0f});
  body.node("Identity", {"cond_in"}, {"cond_out"});
  body.node("Mul", {"w", "one"}, {"w1"});
  body.node("Identity", {"w1"}, {"w2"});
  body.node("Add", {"acc_in", "w2"}, {"acc_out"});
  body.output("cond_out", {}, onnx::TensorProto::BOOL);
  body.output("acc_out", {4});

  test::GraphBuilder b("with_loop");
  b.input("x", {4});
  b.initializer("w", {4}, {1, 2, 3, 4});
  b.initializer_i64("trips", {}, {3});
  b.node("Identity", {"x"}, {"x_id"});
  auto& loop = b.node("Loop", {"trips", "", "x_id"}, {"y"}, "loop");
  test::set_attr(loop, "body", body.graph());
  b.output("y", {4});
  auto model = test::make_model(b.graph(), 13);
  auto o = test::optimize_with(model, {}, "", "basic");
  const auto& body_g = o.model.proto.graph().node(o.model.proto.graph().node_size() - 1).attribute(0).g();
  EXPECT_EQ(body_g.input_size(), 3);
  ASSERT_EQ(body_g.output_size(), 2);
  EXPECT_EQ(body_g.output(0).name(), "cond_out");
  EXPECT_EQ(body_g.output(1).name(), "acc_out");
  EXPECT_EQ(count_op(body_g, "Mul"), 0) << "w * 1 folded through the runtime, reading the outer constant";
  EXPECT_EQ(count_op(body_g, "Identity"), 1) << "cond_in -> cond_out stays: both are the body's signature";
  EXPECT_EQ(count_op(o.model.proto.graph(), "Identity"), 0);
  test::expect_checker_accepts(o.model.proto);
  test::expect_same_outputs(model, o.model.proto, {{"x", test::random_tensor({4}, 3)}}, 0);
}
