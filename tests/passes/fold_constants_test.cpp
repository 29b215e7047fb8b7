// fold_constants without an evaluator: Constant nodes and shapes known from
// type information. (Evaluation of other nodes goes through the runtime.)
#include <gtest/gtest.h>

#include "model/tensor_values.h"
#include "pass_harness.h"
#include "support/model_builder.h"
#include "support/ort_oracle.h"

using namespace winml;
using test::count_op;

TEST(FoldConstants, LiftsConstantNodesToInitializers) {
  test::GraphBuilder b;
  b.input("x", {3});
  auto& c = b.node("Constant", {}, {"k"});
  auto* a = c.add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  *a->mutable_t() = model::make_floats("", {3}, {1, 2, 3});
  auto& c2 = b.node("Constant", {}, {"k2"});
  test::set_attr(c2, "value_float", 2.0f);
  b.node("Add", {"x", "k"}, {"s"});
  b.node("Mul", {"s", "k2"}, {"y"});
  b.output("y", {3});
  auto model = test::make_model(b.graph());
  auto o = test::optimize_with(model, {"fold_constants"});
  EXPECT_EQ(count_op(o.model.proto.graph(), "Constant"), 0);
  EXPECT_EQ(o.model.proto.graph().initializer_size(), 2);
  test::expect_checker_accepts(o.model.proto);
  test::expect_same_outputs(model, o.model.proto, {{"x", test::random_tensor({3}, 1)}}, 0);
}

TEST(FoldConstants, FoldsShapeAndSizeOfStaticValues) {
  test::GraphBuilder b;
  b.input("x", {2, 3, 4});
  b.node("Relu", {"x"}, {"r"});
  b.node("Shape", {"r"}, {"s"});
  auto& tail = b.node("Shape", {"r"}, {"s_tail"});
  test::set_attr(tail, "start", std::int64_t{-2});
  b.node("Size", {"r"}, {"n"});
  b.node("Reshape", {"r", "s"}, {"y"});
  b.output("y", {2, 3, 4});
  b.output("s_tail", {2}, onnx::TensorProto::INT64);
  b.output("n", {}, onnx::TensorProto::INT64);
  auto model = test::make_model(b.graph(), 17);
  auto o = test::optimize_with(model, {"infer_shapes", "fold_constants"});
  // s is folded; s_tail and n are graph outputs, which stay computed.
  EXPECT_EQ(count_op(o.model.proto.graph(), "Shape"), 1);
  EXPECT_EQ(count_op(o.model.proto.graph(), "Size"), 1);
  test::expect_same_outputs(model, o.model.proto, {{"x", test::random_tensor({2, 3, 4}, 1)}}, 0);
}

TEST(FoldConstants, LeavesSymbolicShapesAlone) {
  test::GraphBuilder b;
  b.input("x", {"n", 3});
  b.node("Shape", {"x"}, {"s"});
  b.node("Reshape", {"x", "s"}, {"y"});
  b.output("y", {"n", 3});
  auto o = test::optimize_with(test::make_model(b.graph()), {"infer_shapes", "fold_constants"});
  EXPECT_EQ(count_op(o.model.proto.graph(), "Shape"), 1);
}

TEST(FoldConstants, EvaluatesShapeArithmeticThroughTheRuntime) {
  // The pattern PyTorch exports for reshapes: Shape -> Gather -> Unsqueeze -> Concat -> Reshape.
  test::GraphBuilder b;
  b.input("x", {2, 3, 4});
  b.initializer_i64("idx", {}, {0});
  b.initializer_i64("axes", {1}, {0});
  b.initializer_i64("rest", {1}, {-1});
  b.node("Shape", {"x"}, {"s"});
  auto& g = b.node("Gather", {"s", "idx"}, {"n"});
  test::set_attr(g, "axis", std::int64_t{0});
  b.node("Unsqueeze", {"n", "axes"}, {"n1"});
  auto& c = b.node("Concat", {"n1", "rest"}, {"shape"});
  test::set_attr(c, "axis", std::int64_t{0});
  b.node("Reshape", {"x", "shape"}, {"y"});
  b.output("y", {2, 12});
  auto model = test::make_model(b.graph(), 13);
  auto o = test::optimize_with(model, {"infer_shapes", "fold_constants", "eliminate_unused_initializers"});
  ASSERT_EQ(o.model.proto.graph().node_size(), 1);
  EXPECT_EQ(o.model.proto.graph().node(0).op_type(), "Reshape");
  EXPECT_EQ(o.report.rewrites.at("fold_constants"), 4);
  test::expect_checker_accepts(o.model.proto);
  test::expect_same_outputs(model, o.model.proto, {{"x", test::random_tensor({2, 3, 4}, 1)}}, 0);
}

TEST(FoldConstants, FoldsFloatMathOnWeightsButNotInputs) {
  test::GraphBuilder b;
  b.input("x", {4, 3});
  b.initializer("w", {3, 4}, test::random_floats(12, 1));
  b.initializer("two", {}, {2.0f});
  auto& t = b.node("Transpose", {"w"}, {"wt"});
  test::set_attr(t, "perm", std::vector<std::int64_t>{1, 0});
  b.node("Mul", {"wt", "two"}, {"w2"});
  b.node("Add", {"x", "w2"}, {"y"});
  b.output("y", {4, 3});
  auto model = test::make_model(b.graph());
  auto o = test::optimize_with(model, {"fold_constants", "eliminate_unused_initializers"});
  ASSERT_EQ(o.model.proto.graph().node_size(), 1);
  EXPECT_EQ(o.model.proto.graph().node(0).op_type(), "Add");
  EXPECT_EQ(o.model.proto.graph().initializer_size(), 1);
  test::expect_same_outputs(model, o.model.proto, {{"x", test::random_tensor({4, 3}, 1)}}, 0);
}

TEST(FoldConstants, DoesNotInflateTheModel) {
  // ConstantOfShape would turn 16 bytes into 4 MiB of zeros: left as is.
  test::GraphBuilder b;
  b.input("x", {1024, 1024});
  b.initializer_i64("shape", {2}, {1024, 1024});
  b.node("ConstantOfShape", {"shape"}, {"zeros"});
  b.node("Add", {"x", "zeros"}, {"y"});
  b.output("y", {1024, 1024});
  auto o = test::optimize_with(test::make_model(b.graph()), {"fold_constants"});
  EXPECT_EQ(test::count_op(o.model.proto.graph(), "ConstantOfShape"), 1);
}
