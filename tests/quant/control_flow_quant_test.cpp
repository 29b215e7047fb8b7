// Quantization inside If and Loop bodies, as ONNX Runtime's quantizer does:
// calibration observes the values a body computes (on the branches the
// samples take), each reached body gets its Q/DQ, weights it reads from the
// main graph are quantized into the body and the float originals go; a
// branch the samples never take stays float and is reported. The quantized
// model runs in ONNX Runtime, close to the float model on the branch taken
// and identical on the other.
#include <gtest/gtest.h>

#include <cstring>

#include "model/model_io.h"
#include "model/walk.h"
#include "quant/accuracy.h"
#include "quant/quantize.h"
#include "support/quant_models.h"
#include "support/model_builder.h"
#include "support/ort_oracle.h"
#include "support/temp_dir.h"

namespace winml::test {
namespace {

constexpr std::int64_t kBool = onnx::TensorProto::BOOL;
constexpr std::int64_t kInt64 = onnx::TensorProto::INT64;

// then: Relu(MatMul(x, W_outer) + b_then), W_outer from the main graph; else: MatMul(x, W_else).
onnx::GraphProto branch(bool then) {
  const std::string p = then ? "then" : "else";
  GraphBuilder b(p);
  if (then) {
    b.initializer("b_then", {4}, random_floats(4, 11));
    b.node("MatMul", {"x", "W_outer"}, {"then_mm"});
    b.node("Add", {"then_mm", "b_then"}, {"then_add"});
    b.node("Relu", {"then_add"}, {"then_out"});
  } else {
    b.initializer("W_else", {8, 4}, random_floats(32, 12));
    b.node("MatMul", {"x", "W_else"}, {"else_out"});
  }
  b.output(p + "_out", {2, 4});
  return b.graph();
}

// s <- MatMul(s, W_loop), three times.
onnx::GraphProto loop_body() {
  GraphBuilder b("body");
  b.input("i", {}, kInt64);
  b.input("cond_in", {}, kBool);
  b.input("s_in", {2, 4});
  b.initializer("W_loop", {4, 4}, random_floats(16, 13));
  b.node("Identity", {"cond_in"}, {"cond_out"});
  b.node("MatMul", {"s_in", "W_loop"}, {"s_out"});
  b.output("cond_out", {}, kBool);
  b.output("s_out", {2, 4});
  return b.graph();
}

// y = If(c, then, else); z = Loop(3, MatMul(x, W_in)).
onnx::ModelProto control_flow_model() {
  GraphBuilder g;
  g.input("x", {2, 8});
  g.input("c", {}, kBool);
  g.output("y", {2, 4});
  g.output("z", {2, 4});
  g.initializer("W_outer", {8, 4}, random_floats(32, 10));
  g.initializer("W_in", {8, 4}, random_floats(32, 14));
  g.initializer_i64("trips", {}, {3});
  auto& n = g.node("If", {"c"}, {"y"});
  set_attr(n, "then_branch", branch(true));
  set_attr(n, "else_branch", branch(false));
  g.node("MatMul", {"x", "W_in"}, {"s0"});
  set_attr(g.node("Loop", {"trips", "", "s0"}, {"z"}), "body", loop_body());
  return make_model(g.graph(), 13);
}

model::TensorFile boolean(bool v) {
  model::TensorFile t{onnx::TensorProto::BOOL, {}, {}};
  t.data.push_back(std::byte{v ? std::uint8_t{1} : std::uint8_t{0}});
  return t;
}

int count(const onnx::GraphProto& g, const std::string& op) {
  int n = 0;
  for (const auto& node : g.node()) n += node.op_type() == op;
  return n;
}

const onnx::GraphProto& body(const onnx::GraphProto& g, const std::string& op, const std::string& attr) {
  for (const auto& n : g.node())
    if (n.op_type() == op)
      for (const auto& a : n.attribute())
        if (a.name() == attr) return a.g();
  throw std::runtime_error("no " + op + "." + attr);
}

double sqnr(const OrtResult& want, const OrtResult& got, const std::string& output) {
  quant::AccuracyMeter meter;
  meter.add(output, want.outputs.at(output), got.outputs.at(output));
  return meter.results().at(0).sqnr_db.value_or(1e9);  // none: identical
}

TEST(ControlFlowQuantization, ReachedBodiesAreQuantizedAndTheBranchNotTakenStaysFloat) {
  TempDir dir;
  model::Model float_model = in_memory(control_flow_model());
  for (int s = 0; s < 4; ++s) {  // every sample takes the then branch
    const auto sample = dir / "calib" / ("s" + std::to_string(s));
    std::filesystem::create_directories(sample);
    model::write_npy(sample / "x.npy", random_tensor({2, 8}, 20 + s));
    model::write_npy(sample / "c.npy", boolean(true));
  }
  config::QuantizeConfig c = quant_config("int8", "uint8", false);
  c.calibration_data = (dir / "calib").string();
  c.samples = 4;
  quant::QuantizeContext ctx;
  ctx.threads = 1;
  const quant::QuantizeResult r = quant::quantize_model(float_model, c, ctx);

  EXPECT_EQ(r.report["subgraphs_quantized"], 2) << r.report.dump(2);  // then branch and loop body
  EXPECT_GE(r.report["nodes_quantized"].get<int>(), 3) << r.report.dump(2);
  bool warned = false;
  for (const auto& w : r.report["warnings"])
    warned = warned || w.get<std::string>().find("never ran") != std::string::npos;
  EXPECT_TRUE(warned) << r.report["warnings"].dump();

  const auto& g = r.model.proto.graph();
  const auto& then_g = body(g, "If", "then_branch");
  EXPECT_GE(count(then_g, "QuantizeLinear"), 1);
  EXPECT_GE(count(then_g, "DequantizeLinear"), 2);  // activation and the body's own copy of W_outer
  EXPECT_EQ(count(body(g, "If", "else_branch"), "DequantizeLinear"), 0);
  EXPECT_GE(count(body(g, "Loop", "body"), "DequantizeLinear"), 2);
  bool float_outer = false;
  for (const auto& t : g.initializer()) float_outer = float_outer || t.name() == "W_outer";
  EXPECT_FALSE(float_outer) << "the main graph's float W_outer is read by nothing any more";

  // ONNX Runtime runs it: close on the branch the samples took, identical on the other.
  model::Model q = r.model;
  model::save_model(q, dir / "quant.onnx");
  model::save_model(float_model, dir / "float.onnx");
  const auto x = random_tensor({2, 8}, 99);
  for (bool branch_taken : {true, false}) {
    OrtResult want = run_in_ort(dir / "float.onnx", {{"x", x}, {"c", boolean(branch_taken)}});
    OrtResult got = run_in_ort(dir / "quant.onnx", {{"x", x}, {"c", boolean(branch_taken)}});
    ASSERT_TRUE(want.ok) << want.error;
    ASSERT_TRUE(got.ok) << got.error;
    // 8-element int8/uint8 dot products give ~22 dB and four chained ones ~13; a body quantized on
    // the wrong ranges gives ~0 dB.
    if (branch_taken) EXPECT_GT(sqnr(want, got, "y"), 18.0);
    else EXPECT_EQ(max_abs_diff(got.outputs.at("y"), want.outputs.at("y")), 0.0) << "the else branch is float";
    EXPECT_GT(sqnr(want, got, "z"), 10.0) << "the loop body, quantized on the ranges of its three iterations";
  }
}

}  // namespace
}  // namespace winml::test
