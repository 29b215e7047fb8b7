// compile on small real models: the ref backend's EPContext nodes and
// blobs, embed modes, partial partitions, the prepared model for load-time
// EPs, validation, and the sidecar lifecycle up to packaging.
#include <gtest/gtest.h>

#include "base/atomic_file.h"
#include "base/error.h"
#include "compile/compile.h"
#include "support/compile_util.h"
#include "compile/epcontext_node.h"
#include "model/epcontext.h"
#include "model/model_io.h"
#include "model/node_util.h"
#include "model/sidecars.h"
#include "runtime/ref_blob/ref_blob.h"
#include "support/cli_runner.h"
#include "support/model_builder.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

void expect_same_outputs(const std::map<std::string, runtime::Tensor>& a,
                         const std::map<std::string, runtime::Tensor>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [name, t] : a) EXPECT_TRUE(t.same_as(b.at(name))) << name;
}

std::string attr_s(const onnx::NodeProto& n, const std::string& name) {
  const auto* a = model::find_attr(n, name);
  return a ? a->s() : "<missing>";
}

std::int64_t attr_i(const onnx::NodeProto& n, const std::string& name) {
  const auto* a = model::find_attr(n, name);
  return a ? a->i() : -99;
}

}  // namespace

TEST(CompileRef, SidecarBlobNodeAttributesAndEqualOutputs) {
  test::TempDir dir;
  test::write_model(test::small_model(), dir / "in.onnx");
  auto r = test::run_cli(
      {"compile", "-m", (dir / "in.onnx").string(), "-o", (dir / "out" / "compiled.onnx").string(), "--ep", "ref"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("validate: ran on all-ones inputs"), std::string::npos) << r.out;
  ASSERT_TRUE(fs::exists(dir / "out" / "compiled_ref.bin"));

  model::Model m = model::load_model(dir / "out" / "compiled.onnx");
  ASSERT_EQ(m.proto.graph().node_size(), 1);
  const auto& n = m.proto.graph().node(0);
  EXPECT_EQ(n.op_type(), "EPContext");
  EXPECT_EQ(n.domain(), "com.microsoft");
  EXPECT_EQ(attr_i(n, "main_context"), 1);
  EXPECT_EQ(attr_i(n, "embed_mode"), 0);  // written explicitly
  EXPECT_EQ(attr_s(n, "ep_cache_context"), "compiled_ref.bin");
  EXPECT_EQ(attr_s(n, "source"), runtime::ref_blob::kSource);
  EXPECT_EQ(attr_s(n, "ep_sdk_version"), runtime::ref_blob::kSdkVersion);
  EXPECT_EQ(attr_s(n, "partition_name"), "winml_ref_0");
  EXPECT_NE(attr_s(n, "notes").find("ref plan: 6 steps"), std::string::npos) << attr_s(n, "notes");
  bool imports_ms = false;
  for (const auto& o : m.proto.opset_import()) imports_ms |= o.domain() == "com.microsoft" && o.version() == 1;
  EXPECT_TRUE(imports_ms);
  EXPECT_EQ(m.proto.graph().initializer_size(), 0);  // the weights live in the blob

  auto x = test::random_input({2, 8}, 5);  // symbolic batch: any size runs
  expect_same_outputs(test::run_model(dir / "in.onnx", {{"x", x}}),
                      test::run_model(dir / "out" / "compiled.onnx", {{"x", x}}));
}

TEST(CompileRef, EmbeddedBlobHasNoSidecar) {
  test::TempDir dir;
  test::write_model(test::small_model(), dir / "in.onnx");
  compile::CompileOptions o;
  o.ep = "ref";
  o.embed = true;
  auto metrics = compile::compile_model_file(dir / "in.onnx", dir / "c.onnx", o);
  EXPECT_EQ(metrics["partitions"][0]["blob"], "embedded");
  EXPECT_EQ(metrics["validation"]["mode"], "run");
  EXPECT_EQ(metrics["validation"]["ref_blobs_verified"], 1);
  EXPECT_FALSE(fs::exists(dir / "c_ref.bin"));
  model::Model m = model::load_model(dir / "c.onnx");
  const auto& n = m.proto.graph().node(0);
  EXPECT_EQ(attr_i(n, "embed_mode"), 1);
  EXPECT_NO_THROW(runtime::ref_blob::check_blob(attr_s(n, "ep_cache_context"), "embedded", true));
  auto x = test::random_input({1, 8}, 6);
  expect_same_outputs(test::run_model(dir / "in.onnx", {{"x", x}}), test::run_model(dir / "c.onnx", {{"x", x}}));
}

TEST(CompileRef, NodesOnConstantsAreEvaluatedAtCompileTime) {
  test::TempDir dir;
  test::GraphBuilder b;
  b.input("x", {2, 6});
  b.initializer("W", {4, 6}, test::random_floats(24, 8));
  b.node("Transpose", {"W"}, {"Wt"}, "transpose");  // a weight prepared at run time
  b.node("MatMul", {"x", "Wt"}, {"y"}, "matmul");
  b.output("y", {2, 4});
  test::write_model(test::make_model(b.graph()), dir / "in.onnx");
  compile::CompileOptions o;
  o.ep = "ref";
  auto metrics = compile::compile_model_file(dir / "in.onnx", dir / "c.onnx", o);
  EXPECT_EQ(metrics["partitions"][0]["nodes"], 2);
  EXPECT_EQ(metrics["partitions"][0]["folded_nodes"], 1);
  EXPECT_EQ(metrics["partitions"][0]["steps"], 1);
  auto summary = runtime::ref_blob::check_blob(read_file(dir / "c_ref.bin"), "b", true);
  EXPECT_EQ(summary.constants, 1u);  // Wt only: W is read by nothing any more
  auto x = test::random_input({2, 6}, 3);
  expect_same_outputs(test::run_model(dir / "in.onnx", {{"x", x}}), test::run_model(dir / "c.onnx", {{"x", x}}));
}

TEST(CompileRef, OutputIsDeterministic) {
  test::TempDir dir;
  test::write_model(test::small_model(), dir / "in.onnx");
  compile::CompileOptions o;
  o.ep = "ref";
  compile::compile_model_file(dir / "in.onnx", dir / "a" / "c.onnx", o);
  compile::compile_model_file(dir / "in.onnx", dir / "b" / "c.onnx", o);
  for (const char* f : {"c.onnx", "c_ref.bin"})
    EXPECT_EQ(test::read_text(dir / "a" / f), test::read_text(dir / "b" / f)) << f;
}

TEST(CompileRef, UnsupportedNodesStayBetweenPartitions) {
  test::TempDir dir;
  test::write_model(test::model_with_custom_op("Negate"), dir / "in.onnx");
  compile::CompileOptions o;
  o.ep = "ref";
  auto metrics = compile::compile_model_file(dir / "in.onnx", dir / "c.onnx", o);
  EXPECT_EQ(metrics["nodes_not_compiled"], nlohmann::json({{"Negate", 1}}));
  ASSERT_EQ(metrics["partitions"].size(), 2u);
  EXPECT_EQ(metrics["partitions"][1]["blob"], "c_ref_1.bin");
  // The runtime cannot run the custom op: validation says so instead of running.
  EXPECT_EQ(metrics["validation"]["mode"], "structure");
  EXPECT_NE(metrics["validation"]["reason"].get<std::string>().find("Negate"), std::string::npos);

  model::Model m = model::load_model(dir / "c.onnx");
  std::vector<std::string> ops;
  for (const auto& n : m.proto.graph().node()) ops.push_back(n.op_type());
  EXPECT_EQ(ops, (std::vector<std::string>{"EPContext", "Negate", "EPContext"}));

  // With a kernel for the custom op, the compiled model runs: two blobs
  // around the node left in the graph give the original's outputs.
  test::register_negate_kernel();
  auto x = test::random_input({1, 6}, 9);
  expect_same_outputs(test::run_model(dir / "in.onnx", {{"x", x}}), test::run_model(dir / "c.onnx", {{"x", x}}));
}

TEST(CompileRef, DimsResolveShapesAndReachValidation) {
  test::TempDir dir;
  test::write_model(test::small_model(), dir / "in.onnx");
  auto r = test::run_cli({"compile", "-m", (dir / "in.onnx").string(), "-o", (dir / "c.onnx").string(), "--ep", "ref",
                          "--dim", "batch=5", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto metrics = nlohmann::json::parse(r.out);
  EXPECT_EQ(metrics["validation"]["inputs"]["x"], nlohmann::json({5, 8}));
  auto blob = read_file(dir / "c_ref.bin");
  EXPECT_EQ(runtime::ref_blob::check_blob(blob, "b", true).dims.at("batch"), 5);
  EXPECT_EQ(
      test::run_cli({"compile", "-m", (dir / "in.onnx").string(), "-o", (dir / "d.onnx").string(), "--dim", "batch"})
          .exit_code,
      2);
}

TEST(CompileRef, RecompilingRemovesStaleSidecars) {
  test::TempDir dir;
  test::write_model(test::model_with_custom_op(), dir / "in.onnx");
  compile::CompileOptions o;
  o.ep = "ref";
  o.validate = false;
  compile::compile_model_file(dir / "in.onnx", dir / "c.onnx", o);
  ASSERT_TRUE(fs::exists(dir / "c_ref_1.bin"));
  o.embed = true;
  compile::compile_model_file(dir / "in.onnx", dir / "c.onnx", o);
  EXPECT_FALSE(fs::exists(dir / "c_ref.bin"));
  EXPECT_FALSE(fs::exists(dir / "c_ref_1.bin"));
  EXPECT_TRUE(fs::exists(dir / "c.onnx"));
}

TEST(CompileRef, PackagedCopyRenamesBlobsAndLoadsAfterMovingTheDirectory) {
  test::TempDir dir;
  test::write_model(test::small_model(), dir / "in.onnx");
  compile::CompileOptions o;
  o.ep = "ref";
  compile::compile_model_file(dir / "in.onnx", dir / "build" / "compiled.onnx", o);
  // What the package stage does: model.onnx from the last stage's output.
  model::copy_model(dir / "build" / "compiled.onnx", dir / "build" / "model.onnx");
  ASSERT_TRUE(fs::exists(dir / "build" / "model_ref.bin"));
  EXPECT_EQ(test::read_text(dir / "build" / "model_ref.bin"), test::read_text(dir / "build" / "compiled_ref.bin"));
  model::Model packaged = model::load_model(dir / "build" / "model.onnx");
  EXPECT_EQ(attr_s(packaged.proto.graph().node(0), "ep_cache_context"), "model_ref.bin");

  fs::rename(dir / "build", dir / "elsewhere");
  auto x = test::random_input({1, 8}, 2);
  auto expected = test::run_model(dir / "in.onnx", {{"x", x}});
  expect_same_outputs(expected, test::run_model(dir / "elsewhere" / "model.onnx", {{"x", x}}));
  // model.onnx with its sidecar copied on its own keeps loading too.
  fs::create_directories(dir / "deploy");
  fs::copy_file(dir / "elsewhere" / "model.onnx", dir / "deploy" / "model.onnx");
  fs::copy_file(dir / "elsewhere" / "model_ref.bin", dir / "deploy" / "model_ref.bin");
  expect_same_outputs(expected, test::run_model(dir / "deploy" / "model.onnx", {{"x", x}}));
}

TEST(CompileRef, EpContextInputIsRefused) {
  test::TempDir dir;
  test::write_model(test::small_model(), dir / "in.onnx");
  ASSERT_EQ(test::run_cli({"compile", "-m", (dir / "in.onnx").string(), "-o", (dir / "c.onnx").string(), "--ep", "ref"})
                .exit_code,
            0);
  auto r =
      test::run_cli({"compile", "-m", (dir / "c.onnx").string(), "-o", (dir / "again.onnx").string(), "--ep", "ref"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.first_error_line(), "winml-make: error: " + (dir / "c.onnx").string() +
                                      ": Input model is a compiled EPContext artifact (EPContext nodes from " +
                                      runtime::ref_blob::kSource +
                                      ") and cannot be compiled again. Compile the model from before compilation.");
  EXPECT_FALSE(fs::exists(dir / "again.onnx"));
}

TEST(CompileCpu, PreparedModelIsPlainOnnxWithShapes) {
  test::TempDir dir;
  test::write_model(test::small_model(), dir / "in.onnx");
  compile::CompileOptions o;
  o.ep = "cpu";
  auto metrics = compile::compile_model_file(dir / "in.onnx", dir / "c.onnx", o);
  EXPECT_EQ(metrics["backend"], "prepare");
  EXPECT_EQ(metrics["checker"], "passed");
  model::Model m = model::load_model(dir / "c.onnx");
  EXPECT_FALSE(model::is_epcontext_model(m.proto));
  EXPECT_EQ(m.proto.graph().node_size(), 6);
  EXPECT_GE(m.proto.graph().value_info_size(), 4);  // xw, xwb, r, rs
  for (const auto& v : m.proto.graph().value_info())
    EXPECT_EQ(v.type().tensor_type().shape().dim(0).dim_param(), "batch") << v.name();  // still symbolic
  auto x = test::random_input({3, 8}, 4);
  expect_same_outputs(test::run_model(dir / "in.onnx", {{"x", x}}), test::run_model(dir / "c.onnx", {{"x", x}}));
}

TEST(CompileCpu, OperatorsOrtDoesNotImplementAreRefused) {
  test::TempDir dir;
  test::write_model(test::model_with_custom_op(), dir / "in.onnx");
  auto r = test::run_cli({"compile", "-m", (dir / "in.onnx").string(), "-o", (dir / "c.onnx").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("CPUExecutionProvider cannot load operators of domain com.example (Opaque)"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir / "c.onnx"));
}

TEST(Validate, NonFiniteOutputFailsNamingItAndWritesNothing) {
  test::TempDir dir;
  test::GraphBuilder b;
  b.input("x", {1, 3});
  b.initializer("one", {1}, {1.0f});
  b.node("Sub", {"x", "one"}, {"zero"}, "sub");
  b.node("Log", {"zero"}, {"log_of_zero"}, "log");  // -inf on all-ones input
  b.node("Relu", {"x"}, {"fine"}, "relu");
  b.output("fine", {1, 3});
  b.output("log_of_zero", {1, 3});
  test::write_model(test::make_model(b.graph()), dir / "in.onnx");
  for (const char* ep : {"cpu", "ref"}) {
    auto r = test::run_cli({"compile", "-m", (dir / "in.onnx").string(), "-o", (dir / "c.onnx").string(), "--ep", ep});
    EXPECT_EQ(r.exit_code, 1) << ep;
    EXPECT_NE(r.err.find("validation failed: output 'log_of_zero' has 0 NaN and 3 Inf values (of 3) on all-ones "
                         "inputs"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(dir / "c.onnx"));
    EXPECT_FALSE(fs::exists(dir / "c_ref.bin"));
    auto skipped = test::run_cli(
        {"compile", "-m", (dir / "in.onnx").string(), "-o", (dir / "c.onnx").string(), "--ep", ep, "--no-validate"});
    EXPECT_EQ(skipped.exit_code, 0) << skipped.err;
    EXPECT_NE(skipped.out.find("validate: skipped"), std::string::npos);
    fs::remove(dir / "c.onnx");
    fs::remove(dir / "c_ref.bin");
  }
}
