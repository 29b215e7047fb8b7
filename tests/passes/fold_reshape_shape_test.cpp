// fold_reshape_shape and eliminate_nop_arithmetic, on the shapes exporters
// write for `x.reshape(x.shape[0], -1)` and for scales of 1 and offsets of 0;
// ONNX Runtime computes the same outputs before and after, at sizes other
// than the ones the model was built with.
#include <gtest/gtest.h>

#include "pass_harness.h"
#include "support/model_builder.h"
#include "support/ort_oracle.h"

using namespace winml;
using test::count_op;

namespace {

// x [N, 8, 2, 2] -> Reshape(x, Concat(Cast(Slice(Cast(Shape(x)), 0:1)), [32])) -> MatMul W [32, 4] -> Add b -> y
onnx::ModelProto flatten_by_shape(std::int64_t opset) {
  test::GraphBuilder b;
  b.input("x", {"N", 8, 2, 2});
  b.output("y", {"N", 4});
  b.initializer_i64("rest", {1}, {32});
  b.initializer("W", {32, 4}, test::random_floats(32 * 4, 3));
  b.initializer("b", {4}, test::random_floats(4, 4));
  b.node("Shape", {"x"}, {"s"});
  auto& to32 = b.node("Cast", {"s"}, {"s32"});
  test::set_attr(to32, "to", std::int64_t{onnx::TensorProto::INT32});
  if (opset < 10) {
    auto& slice = b.node("Slice", {"s32"}, {"n32"});
    test::set_attr(slice, "axes", std::vector<std::int64_t>{0});
    test::set_attr(slice, "starts", std::vector<std::int64_t>{0});
    test::set_attr(slice, "ends", std::vector<std::int64_t>{1});
  } else {
    b.initializer_i64("zero", {1}, {0});
    b.initializer_i64("one", {1}, {1});
    b.node("Slice", {"s32", "zero", "one", "zero"}, {"n32"});
  }
  auto& to64 = b.node("Cast", {"n32"}, {"n"});
  test::set_attr(to64, "to", std::int64_t{onnx::TensorProto::INT64});
  auto& concat = b.node("Concat", {"n", "rest"}, {"target"});
  test::set_attr(concat, "axis", std::int64_t{0});
  b.node("Reshape", {"x", "target"}, {"flat"});
  b.node("MatMul", {"flat", "W"}, {"mm"});
  b.node("Add", {"mm", "b"}, {"y"});
  return test::make_model(b.graph(), opset, opset < 10 ? 4 : 8);
}

}  // namespace

TEST(FoldReshapeShape, TheBatchTakenFromShapeBecomesACopyAndTheMatMulBecomesGemm) {
  for (std::int64_t opset : {9, 13}) {
    SCOPED_TRACE("opset " + std::to_string(opset));
    const auto model = flatten_by_shape(opset);
    auto o = test::optimize_with(model, {"infer_shapes", "fold_reshape_shape", "fuse_matmul_add_into_gemm",
                                         "eliminate_dead_nodes", "eliminate_unused_initializers"});
    const auto& g = o.model.proto.graph();
    EXPECT_EQ(count_op(g, "Shape"), 0);
    EXPECT_EQ(count_op(g, "Concat"), 0);
    EXPECT_EQ(count_op(g, "Cast"), 0);
    EXPECT_EQ(count_op(g, "Gemm"), 1) << "the Reshape's output is 2-D now";
    EXPECT_EQ(g.node_size(), 2);  // Reshape, Gemm
    test::expect_checker_accepts(o.model.proto);
    // The batch stays open: 3 here, 1 when built.
    test::expect_same_outputs(model, o.model.proto, {{"x", test::random_tensor({3, 8, 2, 2}, 5)}});
  }
}

TEST(FoldReshapeShape, ADimensionMovedToAnotherPositionBecomesTheOneWildcard) {
  // x [N, T] -> Reshape(x, [N, 1, T]) with N and T from Shape(x) through Gather + Unsqueeze.
  test::GraphBuilder b;
  b.input("x", {"N", "T"});
  b.output("y", {"N", 1, "T"});
  b.initializer_i64("i0", {}, {0});
  b.initializer_i64("i1", {}, {1});
  b.initializer_i64("axes", {1}, {0});
  b.initializer_i64("one", {1}, {1});
  b.node("Shape", {"x"}, {"s"});
  b.node("Gather", {"s", "i0"}, {"n"});
  b.node("Gather", {"s", "i1"}, {"t"});
  b.node("Unsqueeze", {"n", "axes"}, {"n1"});
  b.node("Unsqueeze", {"t", "axes"}, {"t1"});
  auto& concat = b.node("Concat", {"n1", "one", "t1"}, {"target"});
  test::set_attr(concat, "axis", std::int64_t{0});
  b.node("Reshape", {"x", "target"}, {"y"});
  const auto model = test::make_model(b.graph(), 16);
  auto o = test::optimize_with(model, {"infer_shapes", "fold_reshape_shape", "eliminate_dead_nodes"});
  EXPECT_EQ(o.model.proto.graph().node_size(), 1);
  test::expect_same_outputs(model, o.model.proto, {{"x", test::random_tensor({2, 5}, 6)}});
}

TEST(FoldReshapeShape, ShapesWindowFromStartCountsItsIndicesWithinTheWindow) {
  // x [N, T, 4] -> Reshape(x, Concat([-1], Slice(Shape(x, start = 1), 0:2))) = [-1, T, 4].
  test::GraphBuilder b;
  b.input("x", {"N", "T", 4});
  b.output("y", {"N", "T", 4});
  b.initializer_i64("minus_one", {1}, {-1});
  b.initializer_i64("zero", {1}, {0});
  b.initializer_i64("two", {1}, {2});
  test::set_attr(b.node("Shape", {"x"}, {"s"}), "start", std::int64_t{1});
  b.node("Slice", {"s", "zero", "two"}, {"tail"});
  test::set_attr(b.node("Concat", {"minus_one", "tail"}, {"target"}), "axis", std::int64_t{0});
  b.node("Reshape", {"x", "target"}, {"y"});
  const auto model = test::make_model(b.graph(), 15);
  auto o = test::optimize_with(model, {"infer_shapes", "fold_reshape_shape", "eliminate_dead_nodes"});
  EXPECT_EQ(o.report.rewrites.at("fold_reshape_shape"), 1);
  EXPECT_EQ(o.model.proto.graph().node_size(), 1);
  test::expect_same_outputs(model, o.model.proto, {{"x", test::random_tensor({2, 3, 4}, 9)}});
}

TEST(FoldReshapeShape, LeavesTwoMovedDimensionsAndAnotherTensorsShapeAlone) {
  // Reshape(x, [T, N]) from Shape(x): two dimensions change places, no constant can say that.
  test::GraphBuilder b;
  b.input("x", {"N", "T"});
  b.input("z", {"N", "T"});
  b.output("y", {"T", "N"});
  b.output("w", {"N", "T"});
  b.initializer_i64("first", {1}, {0});
  b.initializer_i64("second", {1}, {1});
  b.initializer_i64("end", {1}, {2});
  b.node("Shape", {"x"}, {"s"});
  b.node("Slice", {"s", "first", "second"}, {"n"});
  b.node("Slice", {"s", "second", "end"}, {"t"});
  auto& swapped = b.node("Concat", {"t", "n"}, {"target"});
  test::set_attr(swapped, "axis", std::int64_t{0});
  b.node("Reshape", {"x", "target"}, {"y"});
  b.node("Shape", {"x"}, {"sx"});  // the shape of x, applied to z: not z's own
  b.node("Reshape", {"z", "sx"}, {"w"});
  auto o = test::optimize_with(test::make_model(b.graph(), 13), {"infer_shapes", "fold_reshape_shape"});
  EXPECT_EQ(o.report.rewrites.at("fold_reshape_shape"), 0);
}

TEST(EliminateNopArithmetic, RemovesScalesOfOneAndOffsetsOfZeroButNotBroadcasts) {
  test::GraphBuilder b;
  b.input("x", {2, 3});
  b.output("y", {2, 3});
  b.output("wide", {4, 2, 3});
  b.initializer("one", {}, {1.0f});
  b.initializer("zeros", {1, 3}, {0, 0, 0});
  b.initializer("wide_zeros", {4, 1, 1}, {0, 0, 0, 0});
  b.node("Mul", {"one", "x"}, {"a"});
  b.node("Add", {"a", "zeros"}, {"c"});
  b.node("Sub", {"zeros", "c"}, {"d"});  // 0 - c is a negation, not a no-op
  b.node("Div", {"d", "one"}, {"y"});
  b.node("Add", {"x", "wide_zeros"}, {"wide"});  // broadcasts x to [4, 2, 3]: kept
  const auto model = test::make_model(b.graph());
  auto o = test::optimize_with(model, {"infer_shapes", "eliminate_nop_arithmetic"});
  EXPECT_EQ(o.report.rewrites.at("eliminate_nop_arithmetic"), 3);
  EXPECT_EQ(count_op(o.model.proto.graph(), "Sub"), 1);
  EXPECT_EQ(count_op(o.model.proto.graph(), "Add"), 1);
  EXPECT_EQ(o.model.proto.graph().output(0).name(), "y");
  test::expect_checker_accepts(o.model.proto);
  test::expect_same_outputs(model, o.model.proto, {{"x", test::random_tensor({2, 3}, 8)}});
}
