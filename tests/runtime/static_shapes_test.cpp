// Static shapes from ONNX's shape inference (runtime/static_shapes.h) on
// graphs libonnx only half knows.
#include <gtest/gtest.h>

#include <cstring>

#include "model/model.h"
#include "runtime/session.h"
#include "runtime/static_shapes.h"
#include "support/model_builder.h"

using namespace winml;

namespace {

// x[2,6] -> com.microsoft QuantizeLinear (uint16) -> com.microsoft DequantizeLinear
// -> Shape -> Reshape(x, that shape) -> y, and the dequantized value as z:
// the shape arithmetic of a 16-bit QDQ model below opset 21.
onnx::ModelProto microsoft_qdq_shape_model() {
  test::GraphBuilder b("qdq_shape");
  b.input("x", {2, 6});
  b.initializer("scale", {}, {0.01f});
  auto* zp = b.graph().add_initializer();
  zp->set_name("zero_point");
  zp->set_data_type(onnx::TensorProto::UINT16);
  const std::uint16_t zero = 32768;
  zp->set_raw_data(&zero, sizeof zero);
  b.node("QuantizeLinear", {"x", "scale", "zero_point"}, {"q"}, "q", "com.microsoft");
  b.node("DequantizeLinear", {"q", "scale", "zero_point"}, {"z"}, "dq", "com.microsoft");
  b.node("Shape", {"z"}, {"shape"}, "shape");
  b.node("Reshape", {"x", "shape"}, {"y"}, "reshape");
  b.output("y", {2, 6});
  b.output("z", {2, 6});
  onnx::ModelProto m = test::make_model(b.graph(), 17);
  auto* o = m.add_opset_import();
  o->set_domain("com.microsoft");
  o->set_version(1);
  return m;
}

TEST(StaticShapes, ShapeOfAMicrosoftDequantizeLinearIsInferredWithoutCrashing) {
  const onnx::ModelProto m = microsoft_qdq_shape_model();
  // (libonnx's data propagation used to follow a null type here: SIGSEGV)
  auto types = runtime::infer_static_types(m.graph(), runtime::model_opsets(m), {{"x", {2, 6}}});
  ASSERT_TRUE(types.count("z"));
  EXPECT_EQ(types.at("z").dtype, onnx::TensorProto::FLOAT);
  EXPECT_EQ(types.at("z").shape, (runtime::Shape{2, 6}));
  ASSERT_TRUE(types.count("q"));
  EXPECT_EQ(types.at("q").dtype, onnx::TensorProto::UINT16);
  ASSERT_TRUE(types.count("y"));
  EXPECT_EQ(types.at("y").shape, (runtime::Shape{2, 6}));
}

TEST(StaticShapes, OutputsOfNodesWithoutASchemaAreLeftUnknown) {
  test::GraphBuilder b("custom_shape");
  b.input("x", {3, 4});
  b.node("Opaque", {"x"}, {"o"}, "opaque", "com.example");
  b.node("Shape", {"o"}, {"s"}, "shape");
  b.output("s", {2}, onnx::TensorProto::INT64);
  onnx::ModelProto m = test::make_model(b.graph(), 17);
  auto* o = m.add_opset_import();
  o->set_domain("com.example");
  o->set_version(1);
  auto types = runtime::infer_static_types(m.graph(), runtime::model_opsets(m), {{"x", {3, 4}}});
  EXPECT_FALSE(types.count("o"));
}

TEST(StaticShapes, AMicrosoftQdqModelWithShapeArithmeticRuns) {
  model::Model m;
  m.proto = microsoft_qdq_shape_model();
  runtime::Session s(m, {.threads = 1});
  std::vector<float> values(12);
  for (int i = 0; i < 12; ++i) values[i] = 0.1f * static_cast<float>(i - 6);
  auto out = s.run({{"x", runtime::Tensor::from_vector(onnx::TensorProto::FLOAT, {2, 6}, values)}});
  ASSERT_EQ(out.at("y").shape(), (runtime::Shape{2, 6}));
  for (int i = 0; i < 12; ++i) EXPECT_NEAR(out.at("z").data<float>()[i], values[i], 0.006f);
}

}  // namespace
