// A model with an If whose branches read an outer-scope value and their own
// initializers, and a Loop whose body reads an outer-scope initializer and
// its own, compiled for ref (embedded and sidecar blob) and run through
// `winml-make run` and the runtime: the outputs equal ONNX Runtime's on the
// uncompiled model, for either branch, run after run.
#include <gtest/gtest.h>

#include "support/compile_util.h"
#include "model/tensor_file.h"
#include "support/cli_runner.h"
#include "support/model_builder.h"
#include "support/ort_oracle.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

constexpr std::int64_t kInt64 = onnx::TensorProto::INT64;
constexpr std::int64_t kBool = onnx::TensorProto::BOOL;

// out = Unsqueeze(Gather(h * W, index, axis 1), axes): h from the outer scope.
onnx::GraphProto branch(const std::string& name, float scale, std::int64_t column) {
  test::GraphBuilder b(name);
  b.initializer(name + "_w", {2, 3}, test::random_floats(6, static_cast<std::uint32_t>(column + 7)));
  b.initializer_i64(name + "_index", {2}, {column, 2 - column});
  b.initializer_i64(name + "_axes", {1}, {0});
  b.initializer(name + "_scale", {}, {scale});
  b.node("Mul", {"h", name + "_w"}, {name + "_m"});
  b.node("Mul", {name + "_m", name + "_scale"}, {name + "_s"});
  test::set_attr(b.node("Gather", {name + "_s", name + "_index"}, {name + "_g"}), "axis", std::int64_t{1});
  b.node("Unsqueeze", {name + "_g", name + "_axes"}, {name + "_out"});
  b.output(name + "_out", {1, 2, 2});
  return b.graph();
}

// s <- s * step + bias, bias from the outer scope, step its own.
onnx::GraphProto loop_body() {
  test::GraphBuilder b("body");
  b.input("i", {}, kInt64);
  b.input("cond_in", {}, kBool);
  b.input("s_in", {2, 3});
  b.initializer("step", {3}, {0.5f, -1.0f, 1.5f});
  b.node("Identity", {"cond_in"}, {"cond_out"});
  b.node("Mul", {"s_in", "step"}, {"s_scaled"});
  b.node("Add", {"s_scaled", "bias"}, {"s_out"});
  b.output("cond_out", {}, kBool);
  b.output("s_out", {2, 3});
  return b.graph();
}

onnx::ModelProto control_flow_model() {
  test::GraphBuilder g;
  g.input("x", {2, 3});
  g.output("y", {1, 2, 2});
  g.output("z", {2, 3});
  g.initializer("bias", {3}, {0.25f, -0.5f, 1.0f});
  g.initializer("zero", {}, {0.0f});
  g.initializer_i64("trips", {}, {3});
  g.node("Add", {"x", "bias"}, {"h"});
  test::set_attr(g.node("ReduceSum", {"x"}, {"sum"}), "keepdims", std::int64_t{0});
  g.node("Greater", {"sum", "zero"}, {"positive"});
  auto& n = g.node("If", {"positive"}, {"y"});
  test::set_attr(n, "then_branch", branch("then", 0.5f, 0));
  test::set_attr(n, "else_branch", branch("else", -2.0f, 1));
  test::set_attr(g.node("Loop", {"trips", "", "h"}, {"z"}), "body", loop_body());
  return test::make_model(g.graph(), 13);
}

// x with a positive sum (then branch) or a negative one (else branch).
model::TensorFile input(float sign) {
  std::vector<float> v;
  for (int i = 0; i < 6; ++i) v.push_back(sign * (0.25f + 0.5f * static_cast<float>(i)));
  return runtime::to_tensor_file(runtime::Tensor::from_vector(onnx::TensorProto::FLOAT, {2, 3}, v));
}

}  // namespace

TEST(CompileControlFlowOrt, IfAndLoopBodiesCompiledForRefMatchOnnxRuntime) {
  test::TempDir dir;
  const fs::path source = dir / "in.onnx";
  test::write_model(control_flow_model(), source);
  for (const bool embed : {false, true}) {
    const std::string mode = embed ? "embedded" : "sidecar";
    const fs::path out = dir / mode / "compiled.onnx";
    std::vector<std::string> args = {"compile", "-m", source.string(), "-o", out.string(), "--ep", "ref"};
    if (embed) args.push_back("--embed");
    auto r = test::run_cli(args);  // validation runs the compiled model too
    ASSERT_EQ(r.exit_code, 0) << mode << ": " << r.err;
    ASSERT_EQ(fs::exists(dir / mode / "compiled_ref.bin"), !embed) << mode;

    for (const float sign : {1.0f, -1.0f}) {
      const auto x = input(sign);
      const auto ort = test::run_in_ort(source, {{"x", x}});
      ASSERT_TRUE(ort.ok) << ort.error;
      const fs::path x_file = dir / "x.npy";
      model::write_npy(x_file, x);
      for (int round = 0; round < 3; ++round) {  // freed memory would read differently each time
        const fs::path outputs = dir / (mode + std::to_string(round));
        fs::create_directories(outputs);
        auto run = test::run_cli(
            {"run", "-m", out.string(), "--input", "x=" + x_file.string(), "--output-dir", outputs.string()});
        ASSERT_EQ(run.exit_code, 0) << mode << ", sign " << sign << ": " << run.err;
        for (const char* name : {"y", "z"}) {
          const auto got = model::read_npy(outputs / (std::string(name) + ".npy"));
          EXPECT_LE(test::max_relative_diff(got, ort.outputs.at(name)), 1e-5)
              << mode << ", sign " << sign << ", " << name;
        }
      }
      const auto in_process = test::run_model(out, {{"x", runtime::from_tensor_file(x)}});
      for (const char* name : {"y", "z"})
        EXPECT_LE(test::max_relative_diff(runtime::to_tensor_file(in_process.at(name)), ort.outputs.at(name)), 1e-5)
            << mode << ", sign " << sign << ", " << name;
    }
  }
}
