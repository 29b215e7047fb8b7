// fuse_layer_norm: the decomposed chain PyTorch exports below opset 17.
#include <gtest/gtest.h>

#include "pass_harness.h"
#include "support/model_builder.h"
#include "support/ort_oracle.h"

using namespace winml;
using test::count_op;

namespace {
// y = (x - mean) / sqrt(var + eps) * gamma + beta over the last axis.
onnx::ModelProto decomposed_layer_norm(std::int64_t opset, bool affine, bool pow_form = true) {
  test::GraphBuilder b;
  b.input("x", {"batch", 5, 8});
  b.initializer("two", {}, {2.0f});
  b.initializer("eps", {}, {1e-5f});
  b.initializer("gamma", {8}, test::random_floats(8, 1));
  b.initializer("beta", {8}, test::random_floats(8, 2));
  auto& m1 = b.node("ReduceMean", {"x"}, {"mean"});
  test::set_attr(m1, "axes", std::vector<std::int64_t>{-1});
  b.node("Sub", {"x", "mean"}, {"d"});
  if (pow_form) b.node("Pow", {"d", "two"}, {"sq"});
  else b.node("Mul", {"d", "d"}, {"sq"});
  auto& m2 = b.node("ReduceMean", {"sq"}, {"var"});
  test::set_attr(m2, "axes", std::vector<std::int64_t>{-1});
  b.node("Add", {"var", "eps"}, {"ve"});
  b.node("Sqrt", {"ve"}, {"std"});
  b.node("Div", {"d", "std"}, {affine ? "n" : "y"});
  if (affine) {
    b.node("Mul", {"n", "gamma"}, {"g"});
    b.node("Add", {"g", "beta"}, {"y"});
  }
  b.output("y", {"batch", 5, 8});
  return test::make_model(b.graph(), opset);
}
}  // namespace

TEST(FuseLayerNorm, FusesAtOpset17WithAndWithoutAffine) {
  for (bool affine : {true, false})
    for (bool pow_form : {true, false}) {
      auto model = decomposed_layer_norm(17, affine, pow_form);
      auto o = test::optimize_with(model, {"infer_shapes", "fuse_layer_norm"});
      ASSERT_EQ(o.model.proto.graph().node_size(), 1) << affine << pow_form;
      EXPECT_EQ(o.model.proto.graph().node(0).op_type(), "LayerNormalization");
      EXPECT_EQ(o.model.proto.graph().node(0).output(0), "y");
      test::expect_checker_accepts(o.model.proto);
      test::expect_same_outputs(model, o.model.proto, {{"x", test::random_tensor({2, 5, 8}, 4)}}, 1e-4);
    }
}

TEST(FuseLayerNorm, LeavesTheChainBelowOpset17) {
  auto model = decomposed_layer_norm(13, true);
  auto o = test::optimize_with(model, {"infer_shapes", "fuse_layer_norm"});
  EXPECT_EQ(count_op(o.model.proto.graph(), "LayerNormalization"), 0);
  EXPECT_EQ(o.model.proto.graph().node_size(), 9);
  ASSERT_FALSE(o.report.notes.empty());
  EXPECT_NE(o.report.notes[0].find("opset >= 17"), std::string::npos);
}

TEST(FuseLayerNorm, LeavesTheChainWhenAnIntermediateIsReadElsewhere) {
  auto model = decomposed_layer_norm(17, true);
  auto* out = model.mutable_graph()->add_output();
  out->set_name("var");  // the variance is a graph output too
  out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  auto o = test::optimize_with(model, {"infer_shapes", "fuse_layer_norm"});
  EXPECT_EQ(count_op(o.model.proto.graph(), "LayerNormalization"), 0);
}
