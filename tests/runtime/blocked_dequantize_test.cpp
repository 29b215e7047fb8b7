// DequantizeLinear at opset 21: 4-bit integers (packed two to a byte) and
// blocks of scales along an axis, against the definition computed here and
// against ONNX Runtime; the weight-only QDQ pattern (DequantizeLinear of
// int4 blocks into a MatMul) too.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "base/error.h"
#include "model/model_io.h"
#include "model/tensor_data.h"
#include "runtime/ref_blob/ref_blob.h"
#include "runtime/session.h"
#include "support/model_builder.h"
#include "support/ort_oracle.h"
#include "support/temp_dir.h"

using namespace winml;

namespace {

struct dqCase {
  std::vector<std::int64_t> shape = {70, 6};
  std::int64_t axis = 0, block = 32;  // block 0: per axis (scale 1-D)
  std::int32_t type = model::kInt4;
  bool zero = true;
  bool matmul = false;  // y = x @ DequantizeLinear(...) instead of the dequantized values
};

std::int64_t dq_count(const std::vector<std::int64_t>& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

// Random integers of the type, as values and as the tensor's bytes.
struct dqIntegers {
  std::vector<std::int32_t> values;
  std::string bytes;
};

dqIntegers dq_random_integers(std::int32_t type, std::int64_t n, std::mt19937& rng) {
  dqIntegers r;
  const bool four = model::is_four_bit(type);
  const bool is_signed = type == model::kInt4 || type == onnx::TensorProto::INT8;
  const std::int32_t levels = four ? 16 : 256;
  for (std::int64_t i = 0; i < n; ++i)
    r.values.push_back(static_cast<std::int32_t>(rng() % levels) - (is_signed ? levels / 2 : 0));
  if (four) {
    r.bytes.assign(static_cast<std::size_t>((n + 1) / 2), '\0');
    for (std::int64_t i = 0; i < n; ++i)
      r.bytes[static_cast<std::size_t>(i / 2)] |= static_cast<char>((r.values[static_cast<std::size_t>(i)] & 15) << (4 * (i % 2)));
  } else {
    for (auto v : r.values) r.bytes.push_back(static_cast<char>(v));
  }
  return r;
}

struct dqBuilt {
  model::Model model;
  std::vector<float> expected;  // the dequantized values (row-major, as x)
};

dqBuilt dq_build(const dqCase& c) {
  std::mt19937 rng(17);
  const std::int64_t n = dq_count(c.shape);
  std::vector<std::int64_t> pshape;
  if (c.block) {
    pshape = c.shape;
    pshape[static_cast<std::size_t>(c.axis)] = (c.shape[static_cast<std::size_t>(c.axis)] + c.block - 1) / c.block;
  } else {
    pshape = {c.shape[static_cast<std::size_t>(c.axis)]};
  }
  const std::int64_t pn = dq_count(pshape);
  const dqIntegers x = dq_random_integers(c.type, n, rng);
  const dqIntegers z = dq_random_integers(c.type, pn, rng);
  std::vector<float> scales;
  for (std::int64_t i = 0; i < pn; ++i) scales.push_back(0.01f + static_cast<float>(rng() % 100) * 1e-3f);

  dqBuilt b;
  std::int64_t inner = 1;
  for (std::size_t d = static_cast<std::size_t>(c.axis) + 1; d < c.shape.size(); ++d) inner *= c.shape[d];
  const std::int64_t len = c.shape[static_cast<std::size_t>(c.axis)];
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t outer = i / (inner * len), along = (i / inner) % len, in = i % inner;
    std::int64_t p = along;
    if (c.block) p = (outer * pshape[static_cast<std::size_t>(c.axis)] + along / c.block) * inner + in;
    const std::int32_t zp = c.zero ? z.values[static_cast<std::size_t>(p)] : 0;
    b.expected.push_back(static_cast<float>(x.values[static_cast<std::size_t>(i)] - zp) * scales[static_cast<std::size_t>(p)]);
  }

  test::GraphBuilder g;
  auto add = [&](const std::string& name, std::int32_t type, const std::vector<std::int64_t>& dims,
                 const std::string& bytes) {
    onnx::TensorProto& t = *g.graph().add_initializer();
    t.set_name(name);
    t.set_data_type(type);
    for (auto d : dims) t.add_dims(d);
    t.set_raw_data(bytes);
  };
  add("w_q", c.type, c.shape, x.bytes);
  add("w_scale", onnx::TensorProto::FLOAT, pshape,
      std::string(reinterpret_cast<const char*>(scales.data()), scales.size() * 4));
  if (c.zero) add("w_zero", c.type, pshape, z.bytes);
  auto& dq = g.node("DequantizeLinear", {"w_q", "w_scale", c.zero ? "w_zero" : ""}, {c.matmul ? "w" : "y"}, "dq");
  test::set_attr(dq, "axis", c.axis);
  if (c.block) test::set_attr(dq, "block_size", c.block);
  if (c.matmul) {
    g.input("x", {2, c.shape[0]});
    g.node("MatMul", {"x", "w"}, {"y"}, "matmul");
    g.output("y", {2, c.shape[1]});
  } else {
    std::vector<test::Dim> dims(c.shape.begin(), c.shape.end());
    g.output("y", dims);
  }
  b.model.proto = test::make_model(g.graph(), 21, 10);
  b.model.path = "dq.onnx";
  return b;
}

std::map<std::string, runtime::Tensor> dq_run(const model::Model& m, const dqCase& c, int threads = 2) {
  runtime::Session s(m, {.threads = threads});
  std::map<std::string, runtime::Tensor> feeds;
  if (c.matmul) feeds.emplace("x", runtime::from_tensor_file(test::random_tensor({2, c.shape[0]}, 3)));
  return s.run(feeds);
}

void dq_expect_definition(const dqCase& c) {
  const dqBuilt b = dq_build(c);
  const runtime::Tensor y = dq_run(b.model, c).at("y");
  ASSERT_EQ(y.size(), static_cast<std::int64_t>(b.expected.size()));
  for (std::size_t i = 0; i < b.expected.size(); ++i) ASSERT_EQ(y.data<float>()[i], b.expected[i]) << i;
}

void dq_expect_matches_ort(const dqCase& c) {
  dqBuilt b = dq_build(c);
  test::TempDir dir;
  model::save_model(b.model, dir / "dq.onnx");
  const runtime::Tensor y = dq_run(b.model, c).at("y");
  std::map<std::string, model::TensorFile> feeds;
  if (c.matmul) feeds.emplace("x", test::random_tensor({2, c.shape[0]}, 3));
  auto ort = test::run_in_ort(dir / "dq.onnx", feeds);
  ASSERT_TRUE(ort.ok) << ort.error;
  const model::TensorFile got = runtime::to_tensor_file(y);
  const model::TensorFile& want = ort.outputs.at("y");
  ASSERT_EQ(got.shape, want.shape);
  double diff = 0, span = 0;
  for (std::int64_t i = 0; i < want.element_count(); ++i) {
    diff = std::max(diff, std::fabs(static_cast<double>(got.as<float>()[i]) - want.as<float>()[i]));
    span = std::max(span, std::fabs(static_cast<double>(want.as<float>()[i])));
  }
  EXPECT_LE(diff, (c.matmul ? 1e-5 : 0.0) * span);
}

}  // namespace

TEST(BlockedDequantize, Int4BlocksAlongTheFirstAxisWithAPartialLastBlock) { dq_expect_definition({}); }
TEST(BlockedDequantize, Uint4BlocksWithoutZeroPoint) {
  dq_expect_definition({.shape = {4, 64}, .axis = 1, .block = 16, .type = model::kUint4, .zero = false});
}
TEST(BlockedDequantize, Int8BlocksInAThreeDimensionalTensor) {
  dq_expect_definition({.shape = {3, 40, 5}, .axis = 1, .block = 16, .type = onnx::TensorProto::INT8});
}
TEST(BlockedDequantize, Int4PerAxisAndAnOddElementCount) {
  dq_expect_definition({.shape = {7, 5}, .axis = 1, .block = 0, .type = model::kInt4});
}

TEST(BlockedDequantize, ScalesOfTheWrongShapeAreAnInputError) {
  dqBuilt b = dq_build({});
  auto* scale = b.model.proto.mutable_graph()->mutable_initializer(1);
  scale->set_dims(0, 2);  // 70 rows in blocks of 32 need 3
  scale->set_raw_data(scale->raw_data().substr(0, 2 * 6 * 4));
  auto* zero = b.model.proto.mutable_graph()->mutable_initializer(2);
  zero->set_dims(0, 2);
  zero->set_raw_data(zero->raw_data().substr(0, 6));
  runtime::Session s(b.model, {});
  EXPECT_THROW(s.run({}), InputError);
}

TEST(BlockedDequantize, MatchesOnnxRuntimeInt4) { dq_expect_matches_ort({}); }
TEST(BlockedDequantize, MatchesOnnxRuntimeUint4AlongTheLastAxis) {
  dq_expect_matches_ort({.shape = {6, 96}, .axis = 1, .block = 32, .type = model::kUint4});
}
TEST(BlockedDequantize, WeightOnlyMatMulMatchesOnnxRuntime) {
  dq_expect_matches_ort({.shape = {128, 24}, .axis = 0, .block = 32, .type = model::kInt4, .matmul = true});
}

// A `ref` blob stores 4-bit constants as they are, two to a byte (an odd
// count included), and the plan it holds computes the same bits.
TEST(BlockedDequantize, RefBlobHoldsFourBitWeights) {
  const dqCase c{.shape = {7, 5}, .axis = 0, .block = 16, .type = model::kInt4, .matmul = true};
  const dqBuilt b = dq_build(c);
  const auto plan = runtime::build_plan(b.model, {});
  const std::string blob = runtime::ref_blob::blob_bytes({*plan, b.model.proto.graph(), "part", {}});
  runtime::ref_blob::check_blob(blob, "blob", true);
  const auto loaded = runtime::ref_blob::load_plan(blob, nullptr, "blob");
  const std::map<std::string, runtime::Tensor> feeds = {
      {"x", runtime::from_tensor_file(test::random_tensor({2, 7}, 3))}};
  runtime::Session original(plan, {}), restored(loaded, {});
  EXPECT_TRUE(original.run(feeds).at("y").same_as(restored.run(feeds).at("y")));
}
