// The eliminate_* passes: each removes what it should, keeps what it must,
// and ONNX Runtime computes the same outputs before and after.
#include <gtest/gtest.h>

#include "pass_harness.h"
#include "support/model_builder.h"
#include "support/ort_oracle.h"

using namespace winml;
using test::count_op;

namespace {
std::map<std::string, model::TensorFile> random_input(const std::string& name, std::vector<std::int64_t> shape) {
  return {{name, test::random_tensor(shape, 7)}};
}
}  // namespace

TEST(EliminateIdentity, RemovesChainsAndKeepsOutputNames) {
  test::GraphBuilder b;
  b.input("x", {2, 3});
  b.node("Identity", {"x"}, {"i1"});
  b.node("Relu", {"i1"}, {"r"});
  b.node("Identity", {"r"}, {"i2"});
  b.node("Identity", {"i2"}, {"y"});  // produces the graph output
  b.output("y", {2, 3});
  auto model = test::make_model(b.graph());
  auto o = test::optimize_with(model, {"eliminate_identity"});
  EXPECT_EQ(count_op(o.model.proto.graph(), "Identity"), 0);
  EXPECT_EQ(o.model.proto.graph().node_size(), 1);
  EXPECT_EQ(o.model.proto.graph().output(0).name(), "y");
  EXPECT_EQ(o.report.rewrites.at("eliminate_identity"), 3);
  test::expect_checker_accepts(o.model.proto);
  test::expect_same_outputs(model, o.model.proto, random_input("x", {2, 3}));
}

TEST(EliminateIdentity, KeepsAnIdentityBetweenGraphInputAndOutput) {
  test::GraphBuilder b;
  b.input("x", {3});
  b.node("Identity", {"x"}, {"y"});
  b.output("y", {3});
  auto o = test::optimize_with(test::make_model(b.graph()), {"eliminate_identity"});
  EXPECT_EQ(count_op(o.model.proto.graph(), "Identity"), 1) << "y must stay a distinct graph output";
}

TEST(EliminateIdentity, KeepsTwoOutputsThatShareAValue) {
  test::GraphBuilder b;
  b.input("x", {3});
  b.node("Relu", {"x"}, {"y1"});
  b.node("Identity", {"y1"}, {"y2"});
  b.output("y1", {3});
  b.output("y2", {3});
  auto model = test::make_model(b.graph());
  auto o = test::optimize_with(model, {"eliminate_identity"});
  EXPECT_EQ(o.model.proto.graph().output(0).name(), "y1");
  EXPECT_EQ(o.model.proto.graph().output(1).name(), "y2");
  test::expect_same_outputs(model, o.model.proto, random_input("x", {3}));
}

TEST(EliminateDropout, RemovesInferenceDropoutButNotOneWhoseMaskIsRead) {
  test::GraphBuilder b;
  b.input("x", {4});
  b.initializer("ratio", {}, {0.5f});
  b.node("Dropout", {"x", "ratio"}, {"d"});
  b.node("Dropout", {"d"}, {"y", "mask"});
  b.output("y", {4});
  b.output("mask", {4}, onnx::TensorProto::BOOL);
  auto model = test::make_model(b.graph(), 13);
  auto o = test::optimize_with(model, {"eliminate_dropout"});
  EXPECT_EQ(count_op(o.model.proto.graph(), "Dropout"), 1);
  EXPECT_EQ(o.model.proto.graph().node(0).input(0), "x");
  test::expect_same_outputs(model, o.model.proto, random_input("x", {4}));
}

namespace {
// training_mode = true, as exporters leave attention dropouts of p = 0.
void training_mode_true(test::GraphBuilder& b) {
  auto* t = b.graph().add_initializer();
  t->set_name("training");
  t->set_data_type(onnx::TensorProto::BOOL);
  t->add_int32_data(1);
}
}  // namespace

TEST(EliminateDropout, RemovesATrainingModeDropoutOfRatioZero) {
  test::GraphBuilder b;
  b.input("x", {4});
  b.initializer("zero", {}, {0.0f});
  training_mode_true(b);
  b.node("Dropout", {"x", "zero", "training"}, {"d"});
  b.node("Relu", {"d"}, {"y"});
  b.output("y", {4});
  auto model = test::make_model(b.graph(), 13);
  auto o = test::optimize_with(model, {"eliminate_dropout"});
  EXPECT_EQ(count_op(o.model.proto.graph(), "Dropout"), 0);
  test::expect_same_outputs(model, o.model.proto, random_input("x", {4}));
}

TEST(EliminateDropout, KeepsATrainingModeDropoutThatMayDrop) {
  test::GraphBuilder b;
  b.input("x", {4});
  b.initializer("half", {}, {0.5f});
  training_mode_true(b);
  b.node("Dropout", {"x", "half", "training"}, {"d"});
  b.node("Dropout", {"d", "", "training"}, {"y"});  // the default ratio is 0.5
  b.output("y", {4});
  auto o = test::optimize_with(test::make_model(b.graph(), 13), {"eliminate_dropout"});
  EXPECT_EQ(count_op(o.model.proto.graph(), "Dropout"), 2);
}

TEST(EliminateNopCast, RemovesCastToTheSameType) {
  test::GraphBuilder b;
  b.input("x", {2, 2});
  auto& same = b.node("Cast", {"x"}, {"c1"});
  test::set_attr(same, "to", std::int64_t{onnx::TensorProto::FLOAT});
  auto& other = b.node("Cast", {"c1"}, {"c2"});
  test::set_attr(other, "to", std::int64_t{onnx::TensorProto::DOUBLE});
  auto& back = b.node("Cast", {"c2"}, {"y"});
  test::set_attr(back, "to", std::int64_t{onnx::TensorProto::FLOAT});
  b.output("y", {2, 2});
  auto model = test::make_model(b.graph());
  auto o = test::optimize_with(model, {"infer_shapes", "eliminate_nop_cast"});
  EXPECT_EQ(count_op(o.model.proto.graph(), "Cast"), 2) << "only the float->float Cast is a no-op";
  test::expect_same_outputs(model, o.model.proto, random_input("x", {2, 2}));
}

TEST(EliminateNopReshape, RemovesReshapeToTheSameShapeEvenWithSymbolicDims) {
  test::GraphBuilder b;
  b.input("x", {"batch", 3, 4});
  b.initializer_i64("same", {3}, {0, 3, -1});
  b.initializer_i64("flat", {2}, {0, -1});
  b.node("Relu", {"x"}, {"r"});
  b.node("Reshape", {"r", "same"}, {"s"});
  b.node("Reshape", {"s", "flat"}, {"y"});
  b.output("y", {"batch", 12});
  auto model = test::make_model(b.graph());
  auto o = test::optimize_with(model, {"infer_shapes", "eliminate_nop_reshape"});
  EXPECT_EQ(count_op(o.model.proto.graph(), "Reshape"), 1);
  test::expect_same_outputs(model, o.model.proto, random_input("x", {2, 3, 4}));
}

TEST(EliminateNopTranspose, RemovesIdentityPermutationOnly) {
  test::GraphBuilder b;
  b.input("x", {2, 3, 4});
  auto& t1 = b.node("Transpose", {"x"}, {"t1"});
  test::set_attr(t1, "perm", std::vector<std::int64_t>{0, 1, 2});
  auto& t2 = b.node("Transpose", {"t1"}, {"y"});
  test::set_attr(t2, "perm", std::vector<std::int64_t>{0, 2, 1});
  b.output("y", {2, 4, 3});
  auto model = test::make_model(b.graph());
  auto o = test::optimize_with(model, {"eliminate_nop_transpose"});
  EXPECT_EQ(count_op(o.model.proto.graph(), "Transpose"), 1);
  test::expect_same_outputs(model, o.model.proto, random_input("x", {2, 3, 4}));
}

TEST(EliminateNopPad, RemovesAllZeroPads) {
  test::GraphBuilder b;
  b.input("x", {1, 2, 3, 3});
  b.initializer_i64("zero", {8}, {0, 0, 0, 0, 0, 0, 0, 0});
  b.initializer_i64("one", {8}, {0, 0, 1, 1, 0, 0, 1, 1});
  b.node("Pad", {"x", "zero"}, {"p"});
  b.node("Pad", {"p", "one"}, {"y"});
  b.output("y", {1, 2, 5, 5});
  auto model = test::make_model(b.graph());
  auto o = test::optimize_with(model, {"eliminate_nop_pad"});
  EXPECT_EQ(count_op(o.model.proto.graph(), "Pad"), 1);
  test::expect_same_outputs(model, o.model.proto, random_input("x", {1, 2, 3, 3}));
}

TEST(EliminateNopExpand, RemovesExpandThatKeepsTheShape) {
  test::GraphBuilder b;
  b.input("x", {2, 3});
  b.initializer_i64("same", {2}, {1, 3});
  b.initializer_i64("grow", {3}, {4, 2, 3});
  b.node("Expand", {"x", "same"}, {"e"});
  b.node("Expand", {"e", "grow"}, {"y"});
  b.output("y", {4, 2, 3});
  auto model = test::make_model(b.graph());
  auto o = test::optimize_with(model, {"infer_shapes", "eliminate_nop_expand"});
  EXPECT_EQ(count_op(o.model.proto.graph(), "Expand"), 1);
  test::expect_same_outputs(model, o.model.proto, random_input("x", {2, 3}));
}

TEST(EliminateNopSlice, RemovesSliceOfEverything) {
  test::GraphBuilder b;
  b.input("x", {4, 6});
  b.initializer_i64("s0", {1}, {0});
  b.initializer_i64("end_big", {1}, {std::int64_t{1} << 40});
  b.initializer_i64("e3", {1}, {3});
  b.initializer_i64("ax1", {1}, {1});
  b.node("Slice", {"x", "s0", "end_big", "ax1"}, {"all"});
  b.node("Slice", {"all", "s0", "e3", "ax1"}, {"y"});
  b.output("y", {4, 3});
  auto model = test::make_model(b.graph());
  auto o = test::optimize_with(model, {"infer_shapes", "eliminate_nop_slice"});
  EXPECT_EQ(count_op(o.model.proto.graph(), "Slice"), 1);
  test::expect_same_outputs(model, o.model.proto, random_input("x", {4, 6}));
}

TEST(EliminateDeadNodes, RemovesUnusedChainsAndKeepsOutputs) {
  test::GraphBuilder b;
  b.input("x", {3});
  b.node("Relu", {"x"}, {"y"});
  b.node("Neg", {"x"}, {"dead1"});
  b.node("Abs", {"dead1"}, {"dead2"});
  b.output("y", {3});
  auto o = test::optimize_with(test::make_model(b.graph()), {"eliminate_dead_nodes"});
  EXPECT_EQ(o.model.proto.graph().node_size(), 1);
  EXPECT_EQ(o.report.rewrites.at("eliminate_dead_nodes"), 2);
}

TEST(EliminateUnusedInitializers, RemovesOnlyUnreadOnes) {
  test::GraphBuilder b;
  b.input("x", {3});
  b.initializer("used", {3}, {1, 2, 3});
  b.initializer("unused", {3}, {4, 5, 6});
  b.node("Add", {"x", "used"}, {"y"});
  b.output("y", {3});
  auto o = test::optimize_with(test::make_model(b.graph()), {"eliminate_unused_initializers"});
  ASSERT_EQ(o.model.proto.graph().initializer_size(), 1);
  EXPECT_EQ(o.model.proto.graph().initializer(0).name(), "used");
}

TEST(EliminateDuplicateInitializers, MergesEqualTensors) {
  test::GraphBuilder b;
  b.input("x", {3});
  b.initializer("a", {3}, {1, 2, 3});
  b.initializer("b", {3}, {1, 2, 3});
  b.initializer("c", {1, 3}, {1, 2, 3});  // same bytes, other shape
  b.node("Add", {"x", "a"}, {"s1"});
  b.node("Mul", {"s1", "b"}, {"s2"});
  b.node("Sub", {"s2", "c"}, {"y"});
  b.output("y", {1, 3});
  auto model = test::make_model(b.graph());
  auto o = test::optimize_with(model, {"eliminate_duplicate_initializers", "eliminate_unused_initializers"});
  EXPECT_EQ(o.model.proto.graph().initializer_size(), 2);
  EXPECT_EQ(o.model.proto.graph().node(1).input(1), "a");
  test::expect_same_outputs(model, o.model.proto, random_input("x", {3}));
}

TEST(EliminateCommonSubexpressions, MergesIdenticalNodes) {
  test::GraphBuilder b;
  b.input("x", {2, 3});
  b.node("Shape", {"x"}, {"s1"});
  b.node("Shape", {"x"}, {"s2"});
  b.node("Relu", {"x"}, {"r1"});
  b.node("Relu", {"x"}, {"r2"});
  b.node("Add", {"r1", "r2"}, {"y"});
  b.node("Concat", {"s1", "s2"}, {"shapes"});
  test::set_attr(b.graph().mutable_node(5)[0], "axis", std::int64_t{0});
  b.output("y", {2, 3});
  b.output("shapes", {4}, onnx::TensorProto::INT64);
  auto model = test::make_model(b.graph());
  auto o = test::optimize_with(model, {"eliminate_common_subexpressions", "eliminate_dead_nodes"});
  EXPECT_EQ(count_op(o.model.proto.graph(), "Shape"), 1);
  EXPECT_EQ(count_op(o.model.proto.graph(), "Relu"), 1);
  test::expect_same_outputs(model, o.model.proto, random_input("x", {2, 3}));
}
