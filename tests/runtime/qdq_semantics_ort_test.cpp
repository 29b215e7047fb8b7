// QuantizeLinear and DequantizeLinear as ONNX Runtime defines them, op by op:
// each model quantizes a float input and dequantizes it again, and winml-make's
// runtime must return ONNX Runtime's bits exactly. The inputs hold what tells
// implementations apart: exact ties (x / scale = k + 0.5, which round to the
// even neighbour), values past either end of the type (saturation), negative
// ties, per-axis scales and zero points, and the 16-bit types of opset 21.
#include <gtest/gtest.h>

#include <cstring>

#include "support/compile_util.h"
#include "support/model_builder.h"
#include "support/ort_oracle.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

struct QdqCase {
  const char* name;
  std::int32_t type;             // the quantized element type
  std::int64_t opset;            // 13, or 21 for 16-bit types
  std::vector<float> scales;     // one (per tensor) or one per channel of axis 1
  std::vector<std::int64_t> zero_points;
};

std::ostream& operator<<(std::ostream& os, const QdqCase& c) { return os << c.name; }

// A zero point initializer of `type` (raw little-endian data of its width).
onnx::TensorProto zero_point_tensor(std::int32_t type, const std::vector<std::int64_t>& values) {
  onnx::TensorProto t;
  t.set_name("zero_point");
  t.set_data_type(type);
  if (values.size() > 1) t.add_dims(static_cast<std::int64_t>(values.size()));
  std::string raw;
  const int width = (type == onnx::TensorProto::UINT16 || type == onnx::TensorProto::INT16) ? 2 : 1;
  for (std::int64_t v : values) {
    const auto u = static_cast<std::uint16_t>(v);
    raw.push_back(static_cast<char>(u & 0xff));
    if (width == 2) raw.push_back(static_cast<char>(u >> 8));
  }
  t.set_raw_data(raw);
  return t;
}

// x[1, C, 16] -> QuantizeLinear -> DequantizeLinear -> y.
onnx::ModelProto qdq_model(const QdqCase& c) {
  const std::int64_t channels = static_cast<std::int64_t>(c.scales.size());
  test::GraphBuilder b("qdq");
  b.input("x", {1, channels, 16});
  if (channels == 1) b.initializer("scale", {}, c.scales);
  else b.initializer("scale", {channels}, c.scales);
  *b.graph().add_initializer() = zero_point_tensor(c.type, c.zero_points);
  auto& q = b.node("QuantizeLinear", {"x", "scale", "zero_point"}, {"q"}, "quantize");
  auto& d = b.node("DequantizeLinear", {"q", "scale", "zero_point"}, {"y"}, "dequantize");
  if (channels > 1) {
    test::set_attr(q, "axis", std::int64_t{1});
    test::set_attr(d, "axis", std::int64_t{1});
  }
  b.output("y", {1, channels, 16});
  return test::make_model(b.graph(), c.opset, c.opset >= 21 ? 10 : 8);
}

// Per channel: exact ties either side of zero and of the zero point, values
// past both ends of every type, and seeded values in between.
model::TensorFile tricky_input(const QdqCase& c) {
  const std::size_t channels = c.scales.size();
  std::vector<float> v;
  for (std::size_t ch = 0; ch < channels; ++ch) {
    const float s = c.scales[ch];
    const float zp = static_cast<float>(c.zero_points[ch]);
    const std::vector<float> row = {0.5f * s,  1.5f * s,   2.5f * s,   -0.5f * s, -1.5f * s, -2.5f * s,
                                    (zp + 0.5f) * s, (-zp - 0.5f) * s, 1e9f, -1e9f, 70000.0f * s, -70000.0f * s,
                                    0.0f,      0.3f * s,   -0.7f * s,  127.5f * s};
    v.insert(v.end(), row.begin(), row.end());
  }
  model::TensorFile t;
  t.dtype = onnx::TensorProto::FLOAT;
  t.shape = {1, static_cast<std::int64_t>(channels), 16};
  t.data.resize(v.size() * sizeof(float));
  std::memcpy(t.data.data(), v.data(), t.data.size());
  return t;
}

class QdqSemantics : public ::testing::TestWithParam<QdqCase> {};

TEST_P(QdqSemantics, RuntimeGivesOnnxRuntimesBits) {
  const QdqCase& c = GetParam();
  test::TempDir dir;
  const fs::path path = dir.path() / "qdq.onnx";
  test::write_model(qdq_model(c), path);
  const model::TensorFile x = tricky_input(c);

  const auto r = test::run_in_runtime_and_ort(path, {{"x", x}}, "y");
  ASSERT_TRUE(r.ort_error.empty()) << r.ort_error;
  ASSERT_EQ(r.ours.shape, r.ort.shape);
  const auto* g = reinterpret_cast<const float*>(r.ours.data.data());
  const auto* w = reinterpret_cast<const float*>(r.ort.data.data());
  const auto* in = reinterpret_cast<const float*>(x.data.data());
  for (std::size_t i : test::differing_floats(r.ours, r.ort))
    ADD_FAILURE() << "x = " << in[i] << " (x / scale = " << in[i] / c.scales[i / 16] << "): runtime " << g[i]
                  << ", ONNX Runtime " << w[i];
}

INSTANTIATE_TEST_SUITE_P(
    Types, QdqSemantics,
    ::testing::Values(QdqCase{"uint8", onnx::TensorProto::UINT8, 13, {0.5f}, {128}},
                      QdqCase{"uint8_zero_point_0", onnx::TensorProto::UINT8, 13, {0.25f}, {0}},
                      QdqCase{"int8", onnx::TensorProto::INT8, 13, {0.5f}, {-3}},
                      QdqCase{"int8_per_axis", onnx::TensorProto::INT8, 13, {0.5f, 0.125f, 2.0f}, {0, 5, -7}},
                      QdqCase{"uint8_per_axis", onnx::TensorProto::UINT8, 13, {0.25f, 1.0f}, {128, 3}},
                      QdqCase{"uint8_odd_scale", onnx::TensorProto::UINT8, 13, {0.0123f}, {121}},
                      QdqCase{"uint16", onnx::TensorProto::UINT16, 21, {0.5f}, {32768}},
                      QdqCase{"int16", onnx::TensorProto::INT16, 21, {0.25f}, {-100}},
                      QdqCase{"int16_per_axis", onnx::TensorProto::INT16, 21, {0.5f, 0.001f}, {0, 17}}),
    [](const ::testing::TestParamInfo<QdqCase>& i) { return std::string(i.param.name); });

}  // namespace
