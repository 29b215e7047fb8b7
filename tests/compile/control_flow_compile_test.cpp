// Models whose work lives in If branches with their own initializers,
// compiled for the ref backend: the blob's subgraph plans hold views of those
// initializers, which must live as long as the loaded plan (they once pointed
// into freed memory: garbage indices, axes and sizes at run time).
#include <gtest/gtest.h>

#include "support/compile_util.h"
#include "model/onnx.h"
#include "support/cli_runner.h"
#include "support/model_builder.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

// y = Unsqueeze(x * W_branch) * shape(x)[1], x: [2, 3]; each branch reads
// x from the outer scope and has its own W, index and axes initializers.
onnx::GraphProto branch(const std::string& name, float scale) {
  test::GraphBuilder b(name);
  std::vector<float> w;
  for (int i = 0; i < 6; ++i) w.push_back(static_cast<float>(i + 1) * scale);
  b.initializer(name + "_w", {2, 3}, w);
  b.initializer_i64(name + "_index", {1}, {1});
  b.initializer_i64(name + "_axes", {1}, {0});
  b.node("Shape", {"x"}, {name + "_shape"});
  test::set_attr(b.node("Gather", {name + "_shape", name + "_index"}, {name + "_n"}), "axis", std::int64_t{0});
  b.node("Mul", {"x", name + "_w"}, {name + "_m"});
  b.node("Unsqueeze", {name + "_m", name + "_axes"}, {name + "_u"});
  test::set_attr(b.node("Cast", {name + "_n"}, {name + "_nf"}), "to", std::int64_t{onnx::TensorProto::FLOAT});
  b.node("Mul", {name + "_u", name + "_nf"}, {name + "_out"});
  b.output(name + "_out", {1, 2, 3});
  return b.graph();
}

onnx::ModelProto if_model() {
  test::GraphBuilder g;
  g.input("x", {2, 3});
  g.output("y", {1, 2, 3});
  g.initializer("zero", {}, {0.0f});
  test::set_attr(g.node("ReduceSum", {"x"}, {"sum"}), "keepdims", std::int64_t{0});
  g.node("Greater", {"sum", "zero"}, {"positive"});
  auto& n = g.node("If", {"positive"}, {"y"});
  test::set_attr(n, "then_branch", branch("then", 0.5f));
  test::set_attr(n, "else_branch", branch("else", -2.0f));
  return test::make_model(g.graph(), 13);
}

runtime::Tensor input(float sign) {
  std::vector<float> v;
  for (int i = 0; i < 6; ++i) v.push_back(sign * (0.25f + 0.5f * static_cast<float>(i)));
  return runtime::Tensor::from_vector(onnx::TensorProto::FLOAT, {2, 3}, v);
}

}  // namespace

TEST(CompileControlFlow, IfBranchesWithTheirOwnInitializersRunAsUncompiled) {
  test::TempDir dir;
  test::write_model(if_model(), dir / "in.onnx");
  for (const bool embed : {false, true}) {
    const fs::path out = dir / (embed ? "embedded" : "sidecar") / "compiled.onnx";
    std::vector<std::string> args = {"compile", "-m", (dir / "in.onnx").string(), "-o", out.string(), "--ep", "ref"};
    if (embed) args.push_back("--embed");
    // Validation runs the compiled model too (it used to fail with bad_alloc).
    auto r = test::run_cli(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const float sign : {1.0f, -1.0f}) {  // the then branch, then the else branch
      const auto x = input(sign);
      const auto expected = test::run_model(dir / "in.onnx", {{"x", x}}).at("y");
      // Each branch by hand: x * W * 3 (x's second dimension).
      const float scale = sign > 0 ? 0.5f : -2.0f;
      for (int i = 0; i < 6; ++i)
        ASSERT_FLOAT_EQ(expected.data<float>()[i], x.data<float>()[i] * static_cast<float>(i + 1) * scale * 3.0f);
      for (int round = 0; round < 3; ++round) {  // freed memory reads differently each time
        const auto y = test::run_model(out, {{"x", x}}).at("y");
        EXPECT_TRUE(y.same_as(expected)) << (embed ? "embedded" : "sidecar") << ", sign " << sign;
      }
    }
  }
}
