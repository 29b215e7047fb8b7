// Relus folded into the Conv or Add before them: the plan drops the Relu
// steps it may (and only those), and every output has the bits of the plan
// that folds nothing, on each Conv path (Winograd, pointwise, im2col in
// one piece or in column blocks, depthwise, weights known only at run time,
// with and without a bias) and on Adds with and without broadcasting.
#include <gtest/gtest.h>

#include <cstring>
#include <set>

#include "model/model.h"
#include "runtime/session.h"
#include "support/model_builder.h"

using namespace winml;
using runtime::Tensor;

namespace {

model::Model folding_model() {
  test::GraphBuilder b;
  b.input("x", {2, 16, 12, 12});
  b.input("s", {1, 3, 58, 58});
  b.input("w_runtime", {8, 16, 3, 3});
  auto weights = [&](const std::string& name, std::vector<std::int64_t> dims, std::uint32_t seed) {
    std::int64_t n = 1;
    for (auto d : dims) n *= d;
    b.initializer(name, dims, test::random_floats(static_cast<std::size_t>(n), seed));
  };
  auto conv = [&](const std::string& x, const std::string& w, const std::string& bias, const std::string& y,
                  std::int64_t pad, std::int64_t stride, std::int64_t group) -> onnx::NodeProto& {
    std::vector<std::string> in{x, w};
    if (!bias.empty()) in.push_back(bias);
    auto& n = b.node("Conv", in, {y}, y);
    test::set_attr(n, "pads", std::vector<std::int64_t>{pad, pad, pad, pad});
    test::set_attr(n, "strides", std::vector<std::int64_t>{stride, stride});
    test::set_attr(n, "group", group);
    return n;
  };
  weights("w3", {16, 16, 3, 3}, 1);
  weights("b16", {16}, 2);
  weights("w1", {24, 16, 1, 1}, 3);
  weights("b24", {24}, 4);
  weights("w3s2", {16, 24, 3, 3}, 5);
  weights("wdw", {16, 1, 3, 3}, 6);
  weights("w7", {16, 3, 7, 7}, 7);
  weights("row", {16, 1, 1}, 8);
  conv("x", "w3", "b16", "winograd", 1, 1, 1);  // Winograd (3x3, >= 16 channels)
  b.node("Relu", {"winograd"}, {"r1"});
  conv("r1", "w1", "b24", "pointwise", 0, 1, 1);  // packed 1x1
  b.node("Relu", {"pointwise"}, {"r2"});
  conv("r2", "w3s2", "", "strided", 1, 2, 1);  // im2col in one piece, packed, no bias
  b.node("Relu", {"strided"}, {"r3"});
  conv("r1", "wdw", "b16", "depthwise", 1, 1, 16);
  b.node("Relu", {"depthwise"}, {"r4"});
  conv("r1", "w_runtime", "", "unpacked", 1, 1, 1);  // weights known only at run time
  b.node("Relu", {"unpacked"}, {"r5"});
  conv("s", "w7", "b16", "blocked", 0, 1, 1);  // im2col in column blocks (52x52 outputs)
  b.node("Relu", {"blocked"}, {"r6"});
  b.node("Add", {"r1", "r4"}, {"sum"});  // same shapes
  b.node("Relu", {"sum"}, {"r7"});
  b.node("Add", {"r7", "row"}, {"biased"});  // broadcast
  b.node("Relu", {"biased"}, {"r8"});
  // Not folded: a value read by another step too, and a graph output.
  conv("r8", "w3", "", "shared", 1, 1, 1);
  b.node("Relu", {"shared"}, {"r9"});
  b.node("Add", {"r9", "shared"}, {"r10"});
  b.node("Add", {"r10", "r8"}, {"exposed"});
  b.node("Relu", {"exposed"}, {"r11"});
  b.output("r2", {2, 24, 12, 12});
  b.output("r3", {2, 16, 6, 6});
  b.output("r5", {2, 8, 12, 12});
  b.output("r6", {1, 16, 52, 52});
  b.output("r11", {2, 16, 12, 12});
  b.output("exposed", {2, 16, 12, 12});
  model::Model m;
  m.proto = test::make_model(b.graph());
  m.path = "folding.onnx";
  return m;
}

std::map<std::string, Tensor> feeds() {
  auto tensor = [](runtime::Shape shape, std::uint32_t seed) {
    std::int64_t n = 1;
    for (auto d : shape) n *= d;
    return Tensor::from_vector<float>(onnx::TensorProto::FLOAT, shape,
                                      test::random_floats(static_cast<std::size_t>(n), seed));
  };
  return {{"x", tensor({2, 16, 12, 12}, 11)}, {"s", tensor({1, 3, 58, 58}, 12)},
          {"w_runtime", tensor({8, 16, 3, 3}, 13)}};
}

std::size_t relus(const runtime::Session& s) {
  std::size_t n = 0;
  for (const auto& step : s.plan().steps) n += step.op_type == "Relu";
  return n;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.raw(), b.raw(), a.bytes()) == 0;
}

}  // namespace

TEST(ReluFolding, FoldedPlansGiveTheBitsOfPlansThatFoldNothing) {
  model::Model m = folding_model();
  for (int threads : {1, 3}) {
    runtime::Session plain(m, {.threads = threads});
    runtime::Session folded(m, {.threads = threads, .observed = std::set<std::string>{}});
    EXPECT_EQ(relus(plain), 10u);
    // Every Relu but the one after `shared` (read twice) and after `exposed` (a graph output).
    EXPECT_EQ(relus(folded), 2u);
    const auto in = feeds();
    const auto want = plain.run(in);
    for (int run = 0; run < 2; ++run) {
      const auto got = folded.run(in);
      ASSERT_EQ(got.size(), want.size());
      for (const auto& [name, t] : want) {
        std::size_t zeros = 0;
        for (std::int64_t i = 0; i < t.size(); ++i) zeros += t.data<float>()[i] == 0.0f;
        if (name != "exposed") {
          EXPECT_GT(zeros, 0u) << name << ": the Relu clamps something";
        }
        EXPECT_TRUE(same_bits(got.at(name), t)) << name << ", " << threads << " threads";
      }
    }
  }
}

TEST(ReluFolding, ObservedValuesAreProducedAsTheGraphDefinesThem) {
  model::Model m = folding_model();
  runtime::Session plain(m, {.threads = 2});
  runtime::Session folded(m, {.threads = 2, .observed = std::set<std::string>{"pointwise", "sum"}});
  EXPECT_EQ(relus(folded), 4u);
  std::map<std::string, Tensor> seen_plain, seen_folded;
  const auto in = feeds();
  plain.run(in, [&](const std::string& name, const Tensor& t) { seen_plain[name] = t.clone(); });
  folded.run(in, [&](const std::string& name, const Tensor& t) { seen_folded[name] = t.clone(); });
  for (const char* name : {"pointwise", "sum", "r1", "r2", "r7", "r8"}) {
    ASSERT_TRUE(seen_folded.count(name)) << name;
    EXPECT_TRUE(same_bits(seen_folded.at(name), seen_plain.at(name))) << name;
  }
  EXPECT_FALSE(seen_folded.count("winograd")) << "folded: never produced";
  EXPECT_TRUE(seen_plain.count("winograd"));
}
