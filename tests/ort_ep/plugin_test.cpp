// libwinml_ref_ep.so in stock ONNX Runtime (1.29 and 1.30, through
// ort_harness, which links nothing of winml-make's runtime): compiling small
// real models with ORT's compile API, loading what it writes and what
// winml-make's built-in `ref` backend writes, partitions ORT's CPU EP
// completes, and the errors a user sees.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "support/compile_util.h"
#include "model/epcontext.h"
#include "model/model_io.h"
#include "ort_ep/harness.h"
#include "runtime/tensor.h"
#include "support/cli_runner.h"
#include "support/model_builder.h"
#include "support/ort_oracle.h"
#include "support/temp_dir.h"

using namespace winml;
using test::HarnessOptions;
using test::OrtVersion;
namespace fs = std::filesystem;

namespace {

const OrtVersion kVersions[] = {OrtVersion::k1_29, OrtVersion::k1_30};

std::map<std::string, model::TensorFile> feeds_for(const std::string& name, std::vector<std::int64_t> shape,
                                                   std::uint32_t seed) {
  return {{name, test::random_tensor(shape, seed)}};
}

// ORT's CPU EP on the uncompiled model: the reference.
std::map<std::string, model::TensorFile> cpu_outputs(const fs::path& model,
                                                     const std::map<std::string, model::TensorFile>& feeds) {
  auto r = test::run_in(model, {}, feeds);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.outputs;
}

void expect_close(const std::map<std::string, model::TensorFile>& got,
                  const std::map<std::string, model::TensorFile>& want, double tolerance, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (const auto& [name, w] : want) {
    ASSERT_TRUE(got.count(name)) << what << ": output " << name;
    EXPECT_LE(test::span_relative_diff(got.at(name), w), tolerance) << what << ": output " << name;
  }
}

std::vector<model::EpContextNode> contexts_of(const fs::path& model) {
  const model::Model m = model::load_model(model);
  return model::find_ep_contexts(m.proto, model.parent_path());
}

// x[1,6] -> Mul(2) -> Cast(int32) -> BitwiseNot (no kernel in the runtime)
// -> Cast(float) -> Add(x) -> y: two partitions around a node ORT's CPU EP runs.
onnx::ModelProto split_model() {
  test::GraphBuilder b("split");
  b.input("x", {1, 6});
  b.initializer("two", {1}, {2.0f});
  b.node("Mul", {"x", "two"}, {"doubled"}, "mul");
  auto& to_int = b.node("Cast", {"doubled"}, {"as_int"}, "to_int");
  test::set_attr(to_int, "to", std::int64_t{onnx::TensorProto::INT32});
  b.node("BitwiseNot", {"as_int"}, {"inverted"}, "not");
  auto& to_float = b.node("Cast", {"inverted"}, {"as_float"}, "to_float");
  test::set_attr(to_float, "to", std::int64_t{onnx::TensorProto::FLOAT});
  b.node("Add", {"as_float", "x"}, {"y"}, "add");
  b.output("y", {1, 6});
  return test::make_model(b.graph(), 18);
}

TEST(RefPlugin, CompilesThroughOnnxRuntimeAndRunsInBothVersions) {
  test::TempDir dir;
  test::write_model(test::small_model(), dir / "model.onnx");
  const auto feeds = feeds_for("x", {2, 8}, 3);
  HarnessOptions o;
  o.dims = {{"batch", 2}};
  o.provider_options = {{"dims", "batch=2"}};
  const auto want = cpu_outputs(dir / "model.onnx", feeds);
  for (bool embed : {false, true}) {
    const fs::path out = dir / (embed ? "embed" : "bin") / "compiled.onnx";
    fs::create_directories(out.parent_path());
    auto c = test::compile_with_plugin(dir / "model.onnx", out, embed, o);
    ASSERT_EQ(c.exit_code, 0) << c.err;
    // Every node became one EPContext node of ours, its blob where the embed mode says.
    const auto contexts = contexts_of(out);
    ASSERT_EQ(contexts.size(), 1u);
    EXPECT_EQ(contexts[0].source, "WinmlMakeRefExecutionProvider");
    EXPECT_EQ(contexts[0].ep_sdk_version, "winml-make-ref-3");
    EXPECT_EQ(contexts[0].embed_mode, embed ? 1 : 0);
    if (!embed) {
      EXPECT_EQ(contexts[0].blob_file, "compiled_ref.bin");
    }
    EXPECT_EQ(fs::exists(out.parent_path() / "compiled_ref.bin"), !embed);
    for (OrtVersion v : kVersions) {
      HarnessOptions with_plugin = o;
      with_plugin.ort = v;
      with_plugin.plugin = true;
      auto r = test::run_in(out, with_plugin, feeds);
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(r.ort_version, test::ort_version_name(v));
      expect_close(r.outputs, want, 1e-4, std::string(embed ? "embedded" : ".bin") + " in " + r.ort_version);
    }
    // The same blob format: winml-make's runtime runs what ORT wrote.
    auto ours = test::run_model(out, {{"x", runtime::from_tensor_file(feeds.at("x"))}});
    std::map<std::string, model::TensorFile> ours_files;
    for (const auto& [name, t] : ours) ours_files[name] = runtime::to_tensor_file(t);
    expect_close(ours_files, want, 1e-4, "winml-make's runtime");
  }
}

TEST(RefPlugin, LeavesWhatTheRuntimeLacksToOnnxRuntimesCpuEp) {
  test::TempDir dir;
  test::write_model(split_model(), dir / "model.onnx");
  const auto feeds = feeds_for("x", {1, 6}, 5);
  const auto want = cpu_outputs(dir / "model.onnx", feeds);
  const fs::path out = dir / "compiled.onnx";
  auto c = test::compile_with_plugin(dir / "model.onnx", out, false);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const model::Model compiled = model::load_model(out);
  int contexts = 0, bitwise = 0;
  for (const auto& n : compiled.proto.graph().node()) {
    contexts += model::is_epcontext_node(n);
    bitwise += n.op_type() == "BitwiseNot";
  }
  EXPECT_EQ(contexts, 2) << "Mul+Cast before BitwiseNot, Cast+Add after";
  EXPECT_EQ(bitwise, 1);
  EXPECT_TRUE(fs::exists(dir / "compiled_ref.bin"));
  EXPECT_TRUE(fs::exists(dir / "compiled_ref_1.bin"));
  for (OrtVersion v : kVersions) {
    auto r = test::run_in(out, {.ort = v, .plugin = true}, feeds);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_close(r.outputs, want, 0, std::string("partitioned, ORT ") + r.ort_version);
    // The uncompiled model in one session: the plugin plans its partitions as it loads.
    r = test::run_in(dir / "model.onnx", {.ort = v, .plugin = true}, feeds);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_close(r.outputs, want, 0, std::string("uncompiled, partitioned, ORT ") + r.ort_version);
  }
}

// An EPContext node whose input ORT finds constant (here ORT folds
// BitwiseNot of an initializer on its CPU EP, as any application's session
// at the default optimization level does) still gets that input: the blob
// holds only the partition's own weights.
TEST(RefPlugin, AConstantInputOfACompiledNodeReachesItsPlan) {
  test::GraphBuilder b("folded");
  b.input("x", {1, 6});
  b.initializer("two", {1}, {2.0f});
  b.initializer_i64("bits", {6}, {1, 2, 3, 4, 5, 6});
  b.node("Mul", {"x", "two"}, {"doubled"}, "mul");
  b.node("BitwiseNot", {"bits"}, {"inverted"}, "not");
  test::set_attr(b.node("Cast", {"inverted"}, {"as_float"}, "to_float"), "to", std::int64_t{onnx::TensorProto::FLOAT});
  b.node("Add", {"doubled", "as_float"}, {"y"}, "add");
  b.output("y", {1, 6});
  test::TempDir dir;
  test::write_model(test::make_model(b.graph(), 18), dir / "model.onnx");
  const auto feeds = feeds_for("x", {1, 6}, 7);
  const auto want = cpu_outputs(dir / "model.onnx", feeds);
  for (bool embed : {false, true}) {
    const fs::path out = dir / (embed ? "embed" : "bin") / "compiled.onnx";
    fs::create_directories(out.parent_path());
    ASSERT_EQ(test::compile_with_plugin(dir / "model.onnx", out, embed).exit_code, 0);
    EXPECT_EQ(contexts_of(out).size(), 2u);
    for (OrtVersion v : kVersions)
      for (const char* level : {"disabled", "all"}) {
        auto r = test::run_in(out, {.ort = v, .plugin = true, .opt_level = level}, feeds);
        ASSERT_EQ(r.exit_code, 0) << level << ": " << r.err;
        expect_close(r.outputs, want, 0, std::string(level) + ", ORT " + r.ort_version);
      }
  }
}

TEST(RefPlugin, RunsAnUncompiledModelAsItsCompiledFormDoes) {
  test::TempDir dir;
  test::write_model(test::small_model(), dir / "model.onnx");
  const auto feeds = feeds_for("x", {3, 8}, 11);
  HarnessOptions o;
  o.plugin = true;
  o.provider_options = {{"dims", "batch=3"}};
  auto c = test::compile_with_plugin(dir / "model.onnx", dir / "compiled.onnx", false, o);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  auto compiled = test::run_in(dir / "compiled.onnx", o, feeds);
  ASSERT_EQ(compiled.exit_code, 0) << compiled.err;
  auto uncompiled = test::run_in(dir / "model.onnx", o, feeds);
  ASSERT_EQ(uncompiled.exit_code, 0) << uncompiled.err;
  ASSERT_EQ(uncompiled.outputs.size(), compiled.outputs.size());
  for (const auto& [name, t] : compiled.outputs) EXPECT_EQ(uncompiled.outputs.at(name).data, t.data) << name;
  expect_close(uncompiled.outputs, cpu_outputs(dir / "model.onnx", feeds), 1e-4, "uncompiled with the plugin");
}

TEST(RefPlugin, RunsWhatTheBuiltInRefBackendCompiled) {
  test::TempDir dir;
  test::write_model(test::small_model(), dir / "model.onnx");
  const auto feeds = feeds_for("x", {1, 8}, 9);
  const auto want = cpu_outputs(dir / "model.onnx", feeds);
  for (bool embed : {false, true}) {
    const fs::path out = dir / (embed ? "embed" : "bin") / "compiled.onnx";
    std::vector<std::string> args = {"compile", "-m", (dir / "model.onnx").string(), "-o", out.string(), "--ep", "ref"};
    if (embed) args.push_back("--embed");
    auto r = test::run_cli(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (OrtVersion v : kVersions) {
      auto run = test::run_in(out, {.ort = v, .plugin = true}, feeds);
      ASSERT_EQ(run.exit_code, 0) << run.err;
      expect_close(run.outputs, want, 1e-4, std::string("built-in ref blob in ORT ") + run.ort_version);
    }
    // Without the plugin, ORT has no EP for the nodes, and says so.
    auto bare = test::run_in(out, {}, feeds);
    EXPECT_NE(bare.exit_code, 0);
    EXPECT_NE(bare.err.find("WinmlMakeRefExecutionProvider"), std::string::npos) << bare.err;
  }
}

// ORT hands an EP an attribute only as a copy; the plugin reads an embedded
// blob where it lies in the model file instead, at a 64-byte offset when
// winml-make wrote the file (its built-in backend, or its `ort` backend
// after ORT), and copies only a small blob or one it cannot find there.
TEST(RefPlugin, ReadsAnEmbeddedBlobWhereItLiesInTheModelFile) {
  test::TempDir dir;
  test::write_model(test::linear_model(64, 300, 5), dir / "model.onnx");  // a blob of over 64 KiB
  const auto feeds = feeds_for("x", {1, 64}, 2);
  const auto want = cpu_outputs(dir / "model.onnx", feeds);
  const fs::path builtin = dir / "builtin" / "compiled.onnx", through_ort = dir / "ort" / "compiled.onnx",
                 ort_backend = dir / "ort_backend" / "compiled.onnx";
  for (const auto& [out, backend] : {std::pair{builtin, "ref"}, {ort_backend, "ort"}}) {
    auto r = test::run_cli({"compile", "-m", (dir / "model.onnx").string(), "-o", out.string(), "--ep", "ref",
                            "--backend", backend, "--embed", "--no-validate"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  fs::create_directories(through_ort.parent_path());
  auto c = test::compile_with_plugin(dir / "model.onnx", through_ort, true);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  for (OrtVersion v : kVersions) {
    HarnessOptions o{.ort = v, .plugin = true};
    o.log_level = "info";
    for (const fs::path& model : {builtin, ort_backend, through_ort}) {
      auto r = test::run_in(model, o, feeds);
      ASSERT_EQ(r.exit_code, 0) << r.err;
      expect_close(r.outputs, want, 1e-4, model.string() + " in " + r.ort_version);
      EXPECT_NE(r.err.find("bytes is read where it lies in " + model.string()), std::string::npos) << r.err;
      if (model != through_ort)  // (where ORT places the blob is ORT's: winml-make aligns it afterwards)
        EXPECT_EQ(r.err.find("not at a 64-byte offset"), std::string::npos) << model << ":\n" << r.err;
    }
  }
  // A small blob is copied: mapping the file would cost more.
  test::write_model(test::small_model(), dir / "small.onnx");
  ASSERT_EQ(test::compile_with_plugin(dir / "small.onnx", dir / "small_compiled.onnx", true).exit_code, 0);
  HarnessOptions o{.plugin = true};
  o.log_level = "info";
  auto r = test::run_in(dir / "small_compiled.onnx", o, feeds_for("x", {1, 8}, 1));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("bytes is copied out of ONNX Runtime's attribute"), std::string::npos) << r.err;
}

TEST(RefPlugin, RefusesACorruptSidecarNamingIt) {
  test::TempDir dir;
  test::write_model(test::small_model(), dir / "model.onnx");
  auto c = test::compile_with_plugin(dir / "model.onnx", dir / "compiled.onnx", false);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  test::flip_byte(dir / "compiled_ref.bin", 100);
  auto r = test::run_in(dir / "compiled.onnx", {.plugin = true}, feeds_for("x", {1, 8}, 1));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("compiled_ref.bin"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("checksum mismatch"), std::string::npos) << r.err;
}

TEST(RefPlugin, ErrorsNameTheirCause) {
  test::TempDir dir;
  test::write_model(test::small_model(), dir / "model.onnx");
  // An unknown provider option.
  HarnessOptions typo;
  typo.provider_options = {{"dimz", "batch=1"}};
  auto r = test::compile_with_plugin(dir / "model.onnx", dir / "typo.onnx", false, typo);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("unknown provider option 'dimz'"), std::string::npos) << r.err;
  // A malformed one.
  HarnessOptions bad;
  bad.provider_options = {{"dims", "batch"}};
  r = test::compile_with_plugin(dir / "model.onnx", dir / "bad.onnx", false, bad);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("'batch' is not NAME=SIZE"), std::string::npos) << r.err;
  // A compiled model as the input.
  ASSERT_EQ(test::compile_with_plugin(dir / "model.onnx", dir / "compiled.onnx", true).exit_code, 0);
  r = test::compile_with_plugin(dir / "compiled.onnx", dir / "again.onnx", true);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("already compiled"), std::string::npos) << r.err;
  // Nothing the runtime runs: ORT's flag makes that an error instead of an empty artifact.
  test::GraphBuilder b("only_bitwise");
  b.input("x", {4}, onnx::TensorProto::INT32);
  b.node("BitwiseNot", {"x"}, {"y"});
  b.output("y", {4}, onnx::TensorProto::INT32);
  test::write_model(test::make_model(b.graph(), 18), dir / "bitwise.onnx");
  r = test::compile_with_plugin(dir / "bitwise.onnx", dir / "bitwise_compiled.onnx", false);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_FALSE(fs::exists(dir / "bitwise_compiled.onnx"));
}

TEST(RefPlugin, ExportsOnlyOnnxRuntimesEntryPointsAndNeedsNoOnnxRuntimeLibrary) {
  auto nm = test::run_program({"nm", "-D", "--defined-only", test::ref_ep_library().string()});
  ASSERT_EQ(nm.exit_code, 0) << nm.err;
  std::vector<std::string> symbols;
  std::istringstream lines(nm.out);
  std::string line;
  while (std::getline(lines, line)) {
    auto space = line.rfind(' ');
    if (space != std::string::npos && line[space - 1] != 'A') symbols.push_back(line.substr(space + 1));
  }
  std::sort(symbols.begin(), symbols.end());
  EXPECT_EQ(symbols, (std::vector<std::string>{"CreateEpFactories", "ReleaseEpFactory"})) << nm.out;
  auto ldd = test::run_program({"ldd", test::ref_ep_library().string()});
  ASSERT_EQ(ldd.exit_code, 0) << ldd.err;
  EXPECT_EQ(ldd.out.find("onnxruntime"), std::string::npos) << ldd.out;
}

}  // namespace
