// DequantizeLinear of 4-bit and blocked weights (opset 21) as ONNX Runtime
// defines it, op by op: winml-make's runtime must return ONNX Runtime's bits
// exactly. The weights hold every code of their type (the sign of int4's
// upper half, unsigned 15), odd element counts (the last byte's spare
// nibble), a last block shorter than the others, zero points packed like the
// codes or absent, and blocks along either axis.
#include <gtest/gtest.h>

#include <cstring>

#include "model/tensor_data.h"
#include "support/compile_util.h"
#include "support/model_builder.h"
#include "support/ort_oracle.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

constexpr std::int32_t kUInt4 = 21;  // onnx.TensorProto.UINT4 (libonnx 1.12 predates it)

struct BlockedCase {
  const char* name;
  std::int32_t type;                  // kInt4, kUInt4 or INT8
  std::vector<std::int64_t> shape;    // the weight's
  std::int64_t axis;
  std::int64_t block;                 // 0: per tensor or per axis
  bool zero_points;
};

std::ostream& operator<<(std::ostream& os, const BlockedCase& c) { return os << c.name; }

std::int64_t count(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

// The type's codes in turn, every one of them, from its lowest.
std::vector<std::int32_t> every_code(std::int32_t type, std::int64_t n, std::int32_t start) {
  const std::int32_t lo = type == kUInt4 ? 0 : type == model::kInt4 ? -8 : -128;
  const std::int32_t span = type == onnx::TensorProto::INT8 ? 256 : 16;
  std::vector<std::int32_t> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = lo + static_cast<std::int32_t>((start + i * 7) % span);
  return v;
}

// A tensor of codes; 4-bit ones two to a byte, the low nibble first.
onnx::TensorProto codes_tensor(const std::string& name, std::int32_t type, const std::vector<std::int64_t>& shape,
                               const std::vector<std::int32_t>& codes) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(type);
  for (auto d : shape) t.add_dims(d);
  std::string raw;
  if (type == onnx::TensorProto::INT8) {
    for (auto c : codes) raw.push_back(static_cast<char>(c));
  } else {
    raw.assign((codes.size() + 1) / 2, '\0');
    for (std::size_t i = 0; i < codes.size(); ++i)
      raw[i / 2] = static_cast<char>(raw[i / 2] | ((codes[i] & 15) << (4 * (i % 2))));
  }
  t.set_raw_data(raw);
  return t;
}

// The parameters' shape: the weight's with the axis cut into blocks, its
// length (per axis) or a scalar.
std::vector<std::int64_t> param_shape(const BlockedCase& c) {
  if (c.block == 0) return c.axis < 0 ? std::vector<std::int64_t>{} : std::vector<std::int64_t>{c.shape[c.axis]};
  auto s = c.shape;
  s[c.axis] = (s[c.axis] + c.block - 1) / c.block;
  return s;
}

// y = DequantizeLinear(w) * one: the weight is an initializer, as the
// quantizer writes it; multiplying by an input of ones keeps every bit (-0 too).
onnx::ModelProto blocked_model(const BlockedCase& c) {
  test::GraphBuilder b("dq");
  std::vector<test::Dim> dims(c.shape.begin(), c.shape.end());
  b.input("one", dims);
  *b.graph().add_initializer() = codes_tensor("w", c.type, c.shape, every_code(c.type, count(c.shape), 0));
  const auto ps = param_shape(c);
  std::vector<float> scales(static_cast<std::size_t>(count(ps)));
  for (std::size_t i = 0; i < scales.size(); ++i) scales[i] = 0.0123f * static_cast<float>(i + 1) + 1e-3f / 3;
  b.initializer("scale", ps, scales);
  std::vector<std::string> inputs = {"w", "scale"};
  if (c.zero_points) {
    *b.graph().add_initializer() = codes_tensor("zero_point", c.type, ps, every_code(c.type, count(ps), 5));
    inputs.push_back("zero_point");
  }
  auto& dq = b.node("DequantizeLinear", inputs, {"d"}, "dequantize");
  if (c.axis >= 0) test::set_attr(dq, "axis", c.axis);
  if (c.block) test::set_attr(dq, "block_size", c.block);
  b.node("Mul", {"d", "one"}, {"y"});
  b.output("y", dims);
  return test::make_model(b.graph(), 21, 10);
}

class BlockedDequantize : public ::testing::TestWithParam<BlockedCase> {};

TEST_P(BlockedDequantize, RuntimeGivesOnnxRuntimesBits) {
  const BlockedCase& c = GetParam();
  test::TempDir dir;
  const fs::path path = dir.path() / "dq.onnx";
  test::write_model(blocked_model(c), path);
  const auto r = test::run_in_runtime_and_ort(path, {{"one", test::ones(c.shape)}}, "y");
  ASSERT_TRUE(r.ort_error.empty()) << r.ort_error;
  ASSERT_EQ(r.ours.shape, r.ort.shape);
  const auto differ = test::differing_floats(r.ours, r.ort);
  const auto* g = reinterpret_cast<const float*>(r.ours.data.data());
  const auto* w = reinterpret_cast<const float*>(r.ort.data.data());
  for (std::size_t k = 0; k < std::min<std::size_t>(differ.size(), 5); ++k)
    ADD_FAILURE() << "element " << differ[k] << ": runtime " << g[differ[k]] << ", ONNX Runtime " << w[differ[k]];
  EXPECT_EQ(differ.size(), 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Types, BlockedDequantize,
    ::testing::Values(
        // MatMulNBits-like weights [K, N], blocks along K, the last one short.
        BlockedCase{"int4_blocks_along_k", model::kInt4, {10, 3}, 0, 4, false},
        BlockedCase{"int4_blocks_with_zero_points", model::kInt4, {10, 3}, 0, 4, true},
        BlockedCase{"uint4_blocks_with_zero_points", kUInt4, {12, 5}, 0, 3, true},
        // Blocks along the last axis, an odd element count (a spare nibble).
        BlockedCase{"uint4_blocks_along_n_odd_count", kUInt4, {3, 7}, 1, 2, true},
        BlockedCase{"int4_rank3_blocks_on_the_middle_axis", model::kInt4, {2, 9, 3}, 1, 4, true},
        BlockedCase{"int4_per_tensor", model::kInt4, {5, 3}, -1, 0, true},
        BlockedCase{"uint4_per_axis", kUInt4, {4, 3}, 1, 0, true},
        BlockedCase{"int8_blocks", onnx::TensorProto::INT8, {33, 4}, 0, 8, true}),
    [](const ::testing::TestParamInfo<BlockedCase>& i) { return std::string(i.param.name); });

}  // namespace
