// infer_shapes: lenient libonnx inference that never discards what it cannot redo.
#include <gtest/gtest.h>

#include "pass_harness.h"
#include "support/model_builder.h"

using namespace winml;

namespace {
const onnx::ValueInfoProto* find_value_info(const onnx::GraphProto& g, const std::string& name) {
  for (const auto& v : g.value_info())
    if (v.name() == name) return &v;
  return nullptr;
}
}  // namespace

TEST(InferShapes, TypesIntermediateValues) {
  test::GraphBuilder b;
  b.input("x", {2, 3});
  b.initializer("w", {3, 4}, test::random_floats(12, 1));
  b.node("MatMul", {"x", "w"}, {"m"});
  b.node("Relu", {"m"}, {"y"});
  b.output("y", {2, 4});
  auto o = test::optimize_with(test::make_model(b.graph()), {"infer_shapes"});
  const auto* m = find_value_info(o.model.proto.graph(), "m");
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(m->type().tensor_type().shape().dim_size(), 2);
  EXPECT_EQ(m->type().tensor_type().shape().dim(1).dim_value(), 4);
}

TEST(InferShapes, KeepsGoingPastUnknownDomainsAndKeepsTheirShapes) {
  test::GraphBuilder b;
  b.input("x", {2, 3});
  b.node("Relu", {"x"}, {"r"});
  b.node("Mystery", {"r"}, {"m"}, "mystery", "com.example");
  b.node("Relu", {"m"}, {"y"});
  b.output("y", {2, 3});
  auto model = test::make_model(b.graph());
  auto* op = model.add_opset_import();
  op->set_domain("com.example");
  op->set_version(1);
  // The custom op's output shape is known from elsewhere; inference must not drop it.
  auto* vi = model.mutable_graph()->add_value_info();
  vi->set_name("m");
  vi->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  vi->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(6);
  auto o = test::optimize_with(model, {"infer_shapes"});
  ASSERT_NE(find_value_info(o.model.proto.graph(), "r"), nullptr);
  const auto* m = find_value_info(o.model.proto.graph(), "m");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->type().tensor_type().shape().dim(0).dim_value(), 6);
}

TEST(InferShapes, NewerOpsetThanLibonnxKeepsExistingShapes) {
  test::GraphBuilder b;
  b.input("x", {2, 3});
  b.node("Relu", {"x"}, {"r"});
  b.node("Relu", {"r"}, {"y"});
  b.output("y", {2, 3});
  auto o = test::optimize_with(test::make_model(b.graph(), 21), {"infer_shapes"});
  EXPECT_EQ(o.model.proto.graph().value_info_size(), 0);
  ASSERT_FALSE(o.report.notes.empty());
  EXPECT_NE(o.report.notes[0].find("newer than libonnx"), std::string::npos) << o.report.notes[0];
}
