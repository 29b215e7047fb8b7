// fold_constants without an evaluator: Constant nodes and shapes known from
// type information. (Evaluation of other nodes goes through the runtime.)
#include <gtest/gtest.h>

#include "pass_harness.h"
#include "passes/tensor_util.h"
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
  *a->mutable_t() = passes::make_floats("", {3}, {1, 2, 3});
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
