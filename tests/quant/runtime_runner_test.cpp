// The runtime runner runs QDQ models with their constant DequantizeLinear
// already evaluated (once, by the runtime's own kernel): the same results as
// the model run as it is, and the weights' DequantizeLinear no longer runs.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <set>

#include "quant/quantize.h"
#include "quant/runtime_runner.h"
#include "support/quant_models.h"
#include "runtime/session.h"
#include "support/model_builder.h"

namespace winml::test {
namespace {

model::TensorFile floats(std::vector<std::int64_t> shape, const std::vector<float>& v) {
  model::TensorFile t{onnx::TensorProto::FLOAT, std::move(shape), {}};
  t.data.resize(v.size() * sizeof(float));
  std::memcpy(t.data.data(), v.data(), t.data.size());
  return t;
}

std::vector<float> values_of(const model::TensorFile& t) {
  std::vector<float> v(t.data.size() / sizeof(float));
  std::memcpy(v.data(), t.data.data(), t.data.size());
  return v;
}

// What the runner ran: its outputs and the names its observer saw.
struct Ran {
  std::map<std::string, model::TensorFile> outputs;
  std::set<std::string> observed;
};

Ran run_with_runner(const model::Model& m, const quant::Feeds& feeds) {
  Ran r;
  auto runner = quant::runtime_runner_factory({.threads = 1})(m, {});
  r.outputs = runner->run(feeds, [&](const std::string& name, const quant::ValueView&) { r.observed.insert(name); });
  return r;
}

std::vector<float> run_as_it_is(const model::Model& m, const std::string& input, const model::TensorFile& x,
                                const std::string& output) {
  runtime::Session session(m, runtime::SessionOptions{.threads = 1});
  auto out = session.run({{input, runtime::from_tensor_file(x)}});
  return values_of(runtime::to_tensor_file(out.at(output)));
}

}  // namespace

TEST(RuntimeRunner, EvaluatesConstantDequantizeOnceWithTheKernelsBits) {
  // y = x + DequantizeLinear(w_q, scale, zero point): the folded weights
  // must be the kernel's floats to the bit. The activation's Q/DQ stays.
  GraphBuilder b;
  b.input("x", {1, 6});
  onnx::TensorProto* w = b.graph().add_initializer();
  w->set_name("w_q");
  w->set_data_type(onnx::TensorProto::INT8);
  w->add_dims(6);
  w->set_raw_data(std::string("\x80\xff\x00\x01\x7f\x35", 6));
  b.initializer("scale", {}, {0.0371f});
  onnx::TensorProto* zp = b.graph().add_initializer();
  zp->set_name("zero_point");
  zp->set_data_type(onnx::TensorProto::INT8);
  zp->set_raw_data(std::string("\x03", 1));
  b.initializer("act_scale", {}, {0.02f});
  b.node("DequantizeLinear", {"w_q", "scale", "zero_point"}, {"w"}, "weight_dq");
  b.node("QuantizeLinear", {"x", "act_scale"}, {"x_q"}, "act_q");
  b.node("DequantizeLinear", {"x_q", "act_scale"}, {"x_dq"}, "act_dq");
  b.node("Add", {"x_dq", "w"}, {"y"}, "add");
  b.output("y", {1, 6});
  model::Model m = in_memory(make_model(b.graph(), 13));

  auto x = floats({1, 6}, {0.5f, -1.25f, 2.0f, 0.01f, -0.3f, 1.7f});
  Ran ran = run_with_runner(m, {{"x", x}});
  EXPECT_FALSE(ran.observed.count("w")) << "the weight's DequantizeLinear still ran";
  EXPECT_TRUE(ran.observed.count("x_dq")) << "an activation's DequantizeLinear must run";
  const std::vector<float> got = values_of(ran.outputs.at("y")), want = run_as_it_is(m, "x", x, "y");
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_EQ(std::bit_cast<std::uint32_t>(got[i]), std::bit_cast<std::uint32_t>(want[i])) << i;
}

TEST(RuntimeRunner, RunsAQuantizedCnnAsItRunsUnfolded) {
  // A real QDQ model from the quantizer: its Convs now read constants (and
  // may take other algorithms), so outputs agree to rounding.
  model::Model f = in_memory(small_cnn());
  quant::QuantizeContext ctx;
  ctx.accuracy_report = false;
  model::Model q = quant::quantize_model(f, quant_config(), ctx).model;
  std::vector<float> xs = random_floats(3 * 16 * 16, 5);
  auto x = floats({1, 3, 16, 16}, xs);
  const std::string input = q.proto.graph().input(0).name(), output = q.proto.graph().output(0).name();
  Ran ran = run_with_runner(q, {{input, x}});
  const std::vector<float> got = values_of(ran.outputs.at(output)), want = run_as_it_is(q, input, x, output);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-4f * (1 + std::fabs(want[i]))) << i;
  int weights = 0;
  for (const auto& n : q.proto.graph().node())
    if (n.op_type() == "DequantizeLinear" && initializer(q.proto.graph(), n.input(0))) {
      ++weights;
      EXPECT_FALSE(ran.observed.count(n.output(0))) << n.output(0) << " is a weight's and still ran";
    }
  EXPECT_GE(weights, 3) << "small_cnn's two Convs and Gemm read quantized weights";
}

}  // namespace winml::test
