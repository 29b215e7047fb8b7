// fuse_bn_into_conv, fuse_add_bias_into_conv and fuse_pad_into_conv on small real convolutions.
#include <gtest/gtest.h>

#include "model/node_util.h"
#include "pass_harness.h"
#include "support/model_builder.h"
#include "support/ort_oracle.h"

using namespace winml;
using test::count_op;

namespace {
// x[1,3,8,8] -> Conv(4 filters, 3x3, pad 1) [-> +bias] -> ...
test::GraphBuilder conv_graph(bool with_bias) {
  test::GraphBuilder b;
  b.input("x", {1, 3, 8, 8});
  b.initializer("W", {4, 3, 3, 3}, test::random_floats(4 * 3 * 3 * 3, 1));
  std::vector<std::string> inputs = {"x", "W"};
  if (with_bias) {
    b.initializer("B", {4}, test::random_floats(4, 2));
    inputs.push_back("B");
  }
  auto& conv = b.node("Conv", inputs, {"c"}, "conv");
  test::set_attr(conv, "pads", std::vector<std::int64_t>{1, 1, 1, 1});
  return b;
}

std::vector<float> positive(std::size_t n, std::uint32_t seed) {
  auto v = test::random_floats(n, seed);
  for (auto& x : v) x = 0.5f + std::abs(x);
  return v;
}
}  // namespace

TEST(FuseBnIntoConv, FoldsBatchNormWithAndWithoutConvBias) {
  for (bool with_bias : {false, true}) {
    auto b = conv_graph(with_bias);
    b.initializer("scale", {4}, test::random_floats(4, 3));
    b.initializer("shift", {4}, test::random_floats(4, 4));
    b.initializer("mean", {4}, test::random_floats(4, 5));
    b.initializer("var", {4}, positive(4, 6));
    auto& bn = b.node("BatchNormalization", {"c", "scale", "shift", "mean", "var"}, {"y"}, "bn");
    test::set_attr(bn, "epsilon", 1e-3f);
    b.output("y", {1, 4, 8, 8});
    auto model = test::make_model(b.graph());
    auto o = test::optimize_with(model, {"fuse_bn_into_conv", "eliminate_unused_initializers"});
    EXPECT_EQ(count_op(o.model.proto.graph(), "BatchNormalization"), 0);
    ASSERT_EQ(o.model.proto.graph().node_size(), 1);
    EXPECT_EQ(o.model.proto.graph().node(0).output(0), "y");
    EXPECT_EQ(o.model.proto.graph().initializer_size(), 2) << "new W and B; the BN parameters are gone";
    test::expect_checker_accepts(o.model.proto);
    test::expect_same_outputs(model, o.model.proto, {{"x", test::random_tensor({1, 3, 8, 8}, 11)}}, 1e-4);
  }
}

TEST(FuseBnIntoConv, KeepsBatchNormWhenTheConvOutputIsReadElsewhere) {
  auto b = conv_graph(false);
  for (const char* p : {"scale", "shift", "mean"}) b.initializer(p, {4}, test::random_floats(4, 9));
  b.initializer("var", {4}, positive(4, 6));
  b.node("BatchNormalization", {"c", "scale", "shift", "mean", "var"}, {"y"}, "bn");
  b.node("Relu", {"c"}, {"z"});
  b.output("y", {1, 4, 8, 8});
  b.output("z", {1, 4, 8, 8});
  auto o = test::optimize_with(test::make_model(b.graph()), {"fuse_bn_into_conv"});
  EXPECT_EQ(count_op(o.model.proto.graph(), "BatchNormalization"), 1);
}

TEST(FuseAddBiasIntoConv, FoldsPerChannelAndScalarAdds) {
  for (std::vector<std::int64_t> dims : {std::vector<std::int64_t>{1, 4, 1, 1}, {4, 1, 1}, {}}) {
    auto b = conv_graph(true);
    std::size_t n = dims.empty() ? 1 : 4;
    b.initializer("bias", dims, test::random_floats(n, 8));
    b.node("Add", {"bias", "c"}, {"y"}, "add");
    b.output("y", {1, 4, 8, 8});
    auto model = test::make_model(b.graph());
    auto o = test::optimize_with(model, {"fuse_add_bias_into_conv"});
    EXPECT_EQ(count_op(o.model.proto.graph(), "Add"), 0) << dims.size();
    test::expect_same_outputs(model, o.model.proto, {{"x", test::random_tensor({1, 3, 8, 8}, 12)}}, 1e-5);
  }
}

TEST(FuseAddBiasIntoConv, KeepsAddsThatVaryAlongSpatialAxes) {
  auto b = conv_graph(false);
  b.initializer("bias", {1, 4, 8, 8}, test::random_floats(256, 8));
  b.node("Add", {"c", "bias"}, {"y"}, "add");
  b.output("y", {1, 4, 8, 8});
  auto o = test::optimize_with(test::make_model(b.graph()), {"fuse_add_bias_into_conv"});
  EXPECT_EQ(count_op(o.model.proto.graph(), "Add"), 1);
}

namespace {
// x[1,3,8,8] -> Pad(pads, value) -> `op` (3x3) -> y, pads as an input (opset 17).
onnx::ModelProto pad_then(const std::string& op, std::vector<std::int64_t> pads, float value = 0.0f,
                          std::vector<std::int64_t> own_pads = {}) {
  test::GraphBuilder b;
  b.input("x", {1, 3, 8, 8});
  b.initializer_i64("pads", {8}, pads);
  b.initializer("value", {}, {value});
  b.node("Pad", {"x", "pads", "value"}, {"p"}, "pad");
  std::vector<std::string> inputs = {"p"};
  if (op == "Conv") {
    b.initializer("W", {4, 3, 3, 3}, test::random_floats(4 * 3 * 3 * 3, 1));
    inputs.push_back("W");
  }
  auto& n = b.node(op, inputs, {"y"}, "op");
  test::set_attr(n, "kernel_shape", std::vector<std::int64_t>{3, 3});
  if (!own_pads.empty()) test::set_attr(n, "pads", own_pads);
  b.output("y", {1, op == "Conv" ? 4 : 3, "", ""});
  return test::make_model(b.graph());
}

const std::vector<std::int64_t> kSpatialPads = {0, 0, 1, 2, 0, 0, 2, 1};  // H: 1 before, 2 after; W: 2, 1
}  // namespace

TEST(FusePadIntoConv, FoldsAZeroSpatialPadIntoAConvOrAnAveragePool) {
  for (const std::string op : {"Conv", "AveragePool"}) {
    // The Conv has padding of its own, added to the Pad's.
    const bool conv = op == "Conv";
    const auto model = pad_then(op, kSpatialPads, 0.0f, conv ? std::vector<std::int64_t>{1, 0, 0, 1}
                                                             : std::vector<std::int64_t>{});
    auto o = test::optimize_with(model, {"fuse_pad_into_conv"});
    ASSERT_EQ(count_op(o.model.proto.graph(), "Pad"), 0) << op;
    const auto& n = o.model.proto.graph().node(0);
    const std::vector<std::int64_t> want = conv ? std::vector<std::int64_t>{2, 2, 2, 2}
                                                : std::vector<std::int64_t>{1, 2, 2, 1};
    EXPECT_EQ(model::attr_ints(n, "pads"), want) << op;
    if (!conv) {
      EXPECT_EQ(model::attr_int(n, "count_include_pad", 0), 1);
    }
    test::expect_checker_accepts(o.model.proto);
    test::expect_same_outputs(model, o.model.proto, {{"x", test::random_tensor({1, 3, 8, 8}, 11)}}, 1e-5);
  }
}

TEST(FusePadIntoConv, KeepsPadsThatAreNotZerosOfTheSpatialAxesOrFeedAMaxPool) {
  struct Kept {
    const char* why;
    onnx::ModelProto model;
  };
  std::vector<Kept> kept = {
      {"a MaxPool pads with -inf", pad_then("MaxPool", kSpatialPads)},
      {"a value other than 0", pad_then("Conv", kSpatialPads, 1.0f)},
      {"the channel axis is padded", pad_then("Conv", {0, 1, 1, 1, 0, 0, 1, 1})},
      {"a pool that does not count its own padding", pad_then("AveragePool", kSpatialPads, 0.0f, {1, 1, 1, 1})},
  };
  for (auto& k : kept) {
    auto o = test::optimize_with(k.model, {"fuse_pad_into_conv"});
    EXPECT_EQ(count_op(o.model.proto.graph(), "Pad"), 1) << k.why;
  }
}
