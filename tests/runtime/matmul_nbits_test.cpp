// com.microsoft MatMulNBits: the runtime against a double-precision
// reference of the operator's definition (codes unpacked here, independently)
// and against ONNX Runtime; the bits do not depend on the thread count or on
// the instruction set (every copy of the dot-product loops agrees).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "base/error.h"
#include "model/model_io.h"
#include "runtime/kernels/lane_dot.h"
#include "runtime/session.h"
#include "support/model_builder.h"
#include "support/ort_oracle.h"
#include "support/temp_dir.h"

using namespace winml;

namespace {

enum class nbZero { kImplied, kPacked, kFloat };

struct nbCase {
  std::int64_t m = 3, k = 96, n = 40;
  std::int64_t bits = 4, block = 32;
  nbZero zero = nbZero::kImplied;
  bool bias = false;
  bool rank3 = true;  // A [1, m, k], else [m, k]
};

// Random codes, scales and zero points in the operator's layout, and the
// weights they stand for ([k, n], double), computed from the definition.
struct nbQuantized {
  std::vector<std::uint8_t> b, zero_packed;
  std::vector<float> scales, zero_float, bias;
  std::vector<double> w;  // [k, n]
};

nbQuantized nb_make_weights(const nbCase& c, std::uint32_t seed) {
  std::mt19937 rng(seed);
  const std::int64_t blocks = (c.k + c.block - 1) / c.block, blob = c.block * c.bits / 8;
  const std::uint32_t levels = 1u << c.bits;
  nbQuantized q;
  q.b.resize(static_cast<std::size_t>(c.n * blocks * blob));
  for (auto& byte : q.b) byte = static_cast<std::uint8_t>(rng() & 0xff);
  q.scales.resize(static_cast<std::size_t>(c.n * blocks));
  for (auto& s : q.scales) s = 0.001f + static_cast<float>(rng() % 1000) * 1e-4f;
  const std::int64_t zrow = (blocks * c.bits + 7) / 8;
  std::vector<double> zeros(static_cast<std::size_t>(c.n * blocks), static_cast<double>(levels / 2));
  if (c.zero == nbZero::kPacked) {
    q.zero_packed.assign(static_cast<std::size_t>(c.n * zrow), 0);
    for (std::int64_t j = 0; j < c.n; ++j)
      for (std::int64_t blk = 0; blk < blocks; ++blk) {
        const std::uint32_t z = rng() % levels;
        zeros[static_cast<std::size_t>(j * blocks + blk)] = z;
        const std::int64_t bit = blk * c.bits;
        q.zero_packed[static_cast<std::size_t>(j * zrow + bit / 8)] |= static_cast<std::uint8_t>(z << (bit % 8));
      }
  } else if (c.zero == nbZero::kFloat) {
    for (std::int64_t i = 0; i < c.n * blocks; ++i) {
      q.zero_float.push_back(static_cast<float>(rng() % levels) + 0.25f);
      zeros[static_cast<std::size_t>(i)] = q.zero_float.back();
    }
  }
  if (c.bias)
    for (std::int64_t j = 0; j < c.n; ++j) q.bias.push_back(static_cast<float>(static_cast<int>(rng() % 200) - 100) / 50.0f);
  q.w.assign(static_cast<std::size_t>(c.k * c.n), 0.0);
  for (std::int64_t j = 0; j < c.n; ++j)
    for (std::int64_t kk = 0; kk < c.k; ++kk) {
      const std::int64_t blk = kk / c.block, t = kk % c.block;
      const std::int64_t bit = t * c.bits;
      const std::uint8_t byte = q.b[static_cast<std::size_t>((j * blocks + blk) * blob + bit / 8)];
      const std::uint32_t code = (byte >> (bit % 8)) & (levels - 1);
      const double z = zeros[static_cast<std::size_t>(j * blocks + blk)];
      // (code - zero) rounded to float, times the scale, as float: DequantizeLinear's value.
      const float dq = static_cast<float>(static_cast<double>(code) - z) * q.scales[static_cast<std::size_t>(j * blocks + blk)];
      q.w[static_cast<std::size_t>(kk * c.n + j)] = dq;
    }
  return q;
}

onnx::TensorProto& nb_raw_initializer(test::GraphBuilder& g, const std::string& name, std::int32_t type,
                                   std::vector<std::int64_t> dims, const void* data, std::size_t bytes) {
  onnx::TensorProto& t = *g.graph().add_initializer();
  t.set_name(name);
  t.set_data_type(type);
  for (auto d : dims) t.add_dims(d);
  t.set_raw_data(data, bytes);
  return t;
}

model::Model nb_nbits_model(const nbCase& c, const nbQuantized& q) {
  const std::int64_t blocks = (c.k + c.block - 1) / c.block, blob = c.block * c.bits / 8;
  test::GraphBuilder g;
  std::vector<test::Dim> a_shape = c.rank3 ? std::vector<test::Dim>{1, c.m, c.k} : std::vector<test::Dim>{c.m, c.k};
  std::vector<test::Dim> y_shape = c.rank3 ? std::vector<test::Dim>{1, c.m, c.n} : std::vector<test::Dim>{c.m, c.n};
  g.input("a", a_shape);
  g.output("y", y_shape);
  nb_raw_initializer(g, "b", onnx::TensorProto::UINT8, {c.n, blocks, blob}, q.b.data(), q.b.size());
  nb_raw_initializer(g, "scales", onnx::TensorProto::FLOAT, {c.n, blocks}, q.scales.data(), q.scales.size() * 4);
  std::vector<std::string> inputs = {"a", "b", "scales"};
  if (c.zero == nbZero::kPacked) {
    nb_raw_initializer(g, "zero", onnx::TensorProto::UINT8, {c.n, (blocks * c.bits + 7) / 8}, q.zero_packed.data(),
                    q.zero_packed.size());
    inputs.push_back("zero");
  } else if (c.zero == nbZero::kFloat) {
    nb_raw_initializer(g, "zero", onnx::TensorProto::FLOAT, {c.n, blocks}, q.zero_float.data(), q.zero_float.size() * 4);
    inputs.push_back("zero");
  }
  if (c.bias) {
    if (inputs.size() == 3) inputs.push_back("");
    inputs.push_back("");  // g_idx
    nb_raw_initializer(g, "bias", onnx::TensorProto::FLOAT, {c.n}, q.bias.data(), q.bias.size() * 4);
    inputs.push_back("bias");
  }
  auto& node = g.node("MatMulNBits", inputs, {"y"}, "nbits", "com.microsoft");
  test::set_attr(node, "K", c.k);
  test::set_attr(node, "N", c.n);
  test::set_attr(node, "bits", c.bits);
  test::set_attr(node, "block_size", c.block);
  onnx::ModelProto p = test::make_model(g.graph(), 17);
  auto* ms = p.add_opset_import();
  ms->set_domain("com.microsoft");
  ms->set_version(1);
  model::Model m;
  m.proto = p;
  m.path = "nbits.onnx";
  return m;
}

model::TensorFile nb_input_a(const nbCase& c, std::uint32_t seed) {
  return test::random_tensor(c.rank3 ? std::vector<std::int64_t>{1, c.m, c.k} : std::vector<std::int64_t>{c.m, c.k},
                             seed);
}

// max |y - reference| / max |reference| over the output.
double nb_span_relative_to_reference(const nbCase& c, const nbQuantized& q, const model::TensorFile& a,
                                  const runtime::Tensor& y) {
  double diff = 0, scale = 0;
  for (std::int64_t i = 0; i < c.m; ++i)
    for (std::int64_t j = 0; j < c.n; ++j) {
      double ref = c.bias ? q.bias[static_cast<std::size_t>(j)] : 0.0;
      for (std::int64_t kk = 0; kk < c.k; ++kk)
        ref += static_cast<double>(a.as<float>()[i * c.k + kk]) * q.w[static_cast<std::size_t>(kk * c.n + j)];
      diff = std::max(diff, std::fabs(ref - y.data<float>()[i * c.n + j]));
      scale = std::max(scale, std::fabs(ref));
    }
  return diff / scale;
}

runtime::Tensor nb_run(const model::Model& m, const model::TensorFile& a, int threads) {
  runtime::Session s(m, {.threads = threads});
  return s.run({{"a", runtime::from_tensor_file(a)}}).at("y");
}

void nb_expect_definition(const nbCase& c) {
  const nbQuantized q = nb_make_weights(c, 11);
  const model::Model m = nb_nbits_model(c, q);
  const model::TensorFile a = nb_input_a(c, 5);
  const runtime::Tensor y = nb_run(m, a, 2);
  EXPECT_LT(nb_span_relative_to_reference(c, q, a, y), 1e-5);
}

void nb_expect_matches_ort(const nbCase& c) {
  const nbQuantized q = nb_make_weights(c, 13);
  model::Model m = nb_nbits_model(c, q);
  test::TempDir dir;
  model::save_model(m, dir / "nbits.onnx");
  const model::TensorFile a = nb_input_a(c, 6);
  const runtime::Tensor y = nb_run(m, a, 2);
  auto ort = test::run_in_ort(dir / "nbits.onnx", {{"a", a}});
  ASSERT_TRUE(ort.ok) << ort.error;
  const model::TensorFile got = runtime::to_tensor_file(y);
  const model::TensorFile& want = ort.outputs.at("y");
  ASSERT_EQ(got.shape, want.shape);
  double diff = 0, lo = INFINITY, hi = -INFINITY;
  for (std::int64_t i = 0; i < want.element_count(); ++i) {
    diff = std::max(diff, std::fabs(static_cast<double>(got.as<float>()[i]) - want.as<float>()[i]));
    lo = std::min(lo, static_cast<double>(want.as<float>()[i]));
    hi = std::max(hi, static_cast<double>(want.as<float>()[i]));
  }
  EXPECT_LE(diff, 1e-4 * (hi - lo)) << "span " << hi - lo;
}

}  // namespace

TEST(MatMulNBits, FourBitsWithTheImpliedZeroPointIsTheDefinition) { nb_expect_definition({}); }
TEST(MatMulNBits, PackedZeroPointsBiasAndAPartialLastBlock) {
  nb_expect_definition({.m = 5, .k = 100, .n = 33, .bits = 4, .block = 16, .zero = nbZero::kPacked, .bias = true});
}
TEST(MatMulNBits, EightBitsOneZeroPointPerByte) {
  nb_expect_definition({.m = 2, .k = 128, .n = 24, .bits = 8, .block = 64, .zero = nbZero::kPacked, .rank3 = false});
}
TEST(MatMulNBits, TwoBitsAndFloatZeroPoints) {
  nb_expect_definition({.m = 4, .k = 64, .n = 17, .bits = 2, .block = 16, .zero = nbZero::kFloat});
}
TEST(MatMulNBits, ManyRowsSpanSeveralRowChunks) {
  nb_expect_definition({.m = 70, .k = 256, .n = 48, .bits = 4, .block = 128, .zero = nbZero::kPacked, .bias = true});
}

TEST(MatMulNBits, SameBitsForAnyThreadCount) {
  const nbCase c{.m = 9, .k = 200, .n = 70, .bits = 4, .block = 32, .zero = nbZero::kPacked, .bias = true};
  const nbQuantized q = nb_make_weights(c, 3);
  const model::Model m = nb_nbits_model(c, q);
  const model::TensorFile a = nb_input_a(c, 4);
  EXPECT_TRUE(nb_run(m, a, 1).same_as(nb_run(m, a, 3)));
}

TEST(MatMulNBits, EveryInstructionSetCopyComputesTheSameBits) {
  std::mt19937 rng(1);
  for (std::int64_t k : {1, 7, 8, 9, 31, 64, 100}) {
    const std::int64_t rows = 5, cols = 7;
    std::vector<float> a = test::random_floats(static_cast<std::size_t>(rows * k), 1 + static_cast<std::uint32_t>(k));
    std::vector<float> w = test::random_floats(static_cast<std::size_t>(cols * k), 2 + static_cast<std::uint32_t>(k));
    std::vector<float> bias = test::random_floats(static_cast<std::size_t>(cols), 3);
    std::vector<std::vector<float>> results;
    for (const auto* variant : runtime::kernels::lane_dot_kernels_this_cpu_runs()) {
      std::vector<float> y(static_cast<std::size_t>(rows * cols));
      variant->dots(a.data(), k, rows, w.data(), k, cols, k, bias.data(), y.data(), cols);
      results.push_back(y);
      // The definition: eight lanes in order, combined pairwise, the bias after.
      for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < cols; ++j) {
          float lane[8] = {};
          for (std::int64_t p = 0; p < k; ++p) {
            const float product = a[static_cast<std::size_t>(i * k + p)] * w[static_cast<std::size_t>(j * k + p)];
            lane[p % 8] = lane[p % 8] + product;
          }
          const float sum = ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
          const float want = sum + bias[static_cast<std::size_t>(j)];
          EXPECT_EQ(std::memcmp(&want, &y[static_cast<std::size_t>(i * cols + j)], 4), 0)
              << variant->name << " k=" << k << " (" << i << "," << j << ")";
        }
    }
    for (const auto& r : results) EXPECT_EQ(r, results.front());
  }
}

TEST(MatMulNBits, MalformedNodesAreInputErrors) {
  nbCase c;
  const nbQuantized q = nb_make_weights(c, 1);
  model::Model m = nb_nbits_model(c, q);
  for (auto& a : *m.proto.mutable_graph()->mutable_node(0)->mutable_attribute())
    if (a.name() == "block_size") a.set_i(24);
  EXPECT_THROW(runtime::Session(m, {}), InputError);
  model::Model wrong_k = nb_nbits_model(c, q);
  for (auto& a : *wrong_k.proto.mutable_graph()->mutable_node(0)->mutable_attribute())
    if (a.name() == "K") a.set_i(64);
  runtime::Session s(wrong_k, {});
  EXPECT_THROW(s.run({{"a", runtime::from_tensor_file(nb_input_a(c, 1))}}), InputError);
}

TEST(MatMulNBits, MatchesOnnxRuntimeSymmetric) { nb_expect_matches_ort({.m = 4, .k = 128, .n = 40}); }
TEST(MatMulNBits, MatchesOnnxRuntimeWithZeroPointsAndBias) {
  nb_expect_matches_ort({.m = 3, .k = 96, .n = 24, .bits = 4, .block = 32, .zero = nbZero::kPacked, .bias = true});
}
TEST(MatMulNBits, MatchesOnnxRuntimeEightBits) {
  nb_expect_matches_ort({.m = 2, .k = 256, .n = 16, .bits = 8, .block = 128, .zero = nbZero::kPacked});
}
