// backend = "ort": compiling through ONNX Runtime's compile API. The plan
// finds the ORT library, the EP library, the EP and its device before any
// stage runs: each missing one is exit 2 naming it and the key that points
// at it, with nothing built (export never ran). A build with compile
// disabled needs none of them; an EP that compiles no node is a build
// failure naming it and the operators it left.
#include <gtest/gtest.h>

#include <fstream>

#include "support/compile_util.h"
#include "support/project.h"
#include "model/epcontext.h"
#include "model/model_io.h"
#include "model/tensor_file.h"
#include "ort_ep/harness.h"
#include "support/ort_oracle.h"
#include "support/cli_runner.h"
#include "support/model_builder.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

// examples/quickstart's model, imported, with `compile` as its [compile] table.
void write_quickstart(test::Project& p, const std::string& compile) {
  fs::copy_file(test::source_dir() / "examples/quickstart/model.onnx", p.root() / "model.onnx",
                fs::copy_options::overwrite_existing);
  p.write_config("[model]\nname = \"net\"\nsource = \"model.onnx\"\n[quantize]\nsamples = 2\n[compile]\n" + compile);
}

// Runs a build expected to stop before any stage: exit 2, nothing exported.
std::string stopped_before_export(const test::Project& p) {
  auto r = p.run({});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_FALSE(fs::exists(p.out("net", "export.onnx")));
  EXPECT_EQ(r.err.find("running"), std::string::npos) << r.err;
  return r.err;
}

void expect_contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "expected \"" << part << "\" in:\n" << text;
}

nlohmann::json compile_metrics(const test::Project& p) {
  const auto m = nlohmann::json::parse(test::read_text(p.out("net", "build_manifest.json")));
  for (const auto& s : m["stages"])
    if (s["name"] == "compile") return s;
  ADD_FAILURE() << "no compile stage in the manifest";
  return {};
}

// The stages of `report` that ran (completed), in order.
std::vector<std::string> ran(const nlohmann::json& report) { return test::stages_with(report, "net", "completed"); }

const fs::path kRefPlugin = test::winml_make_binary().parent_path() / "libwinml_ref_ep.so";

}  // namespace

TEST(OrtBackend, AMissingOrtLibraryStopsTheBuildBeforeExport) {
  test::Project p;
  write_quickstart(p, "ep = \"cpu\"\nbackend = \"ort\"\nort_library = \"ort/libonnxruntime.so.1\"\n");
  const std::string err = stopped_before_export(p);
  expect_contains(err, (p.root() / "ort/libonnxruntime.so.1").string() + ": no such file");
  expect_contains(err, "[compile] ort_library (set in " + (p.root() / "winml.toml").string() + ":9:1");
  expect_contains(err, "scripts/fetch-ort.sh");
  // The same path holding something that is not ORT.
  p.write("ort/libonnxruntime.so.1", "not a library");
  expect_contains(stopped_before_export(p), "cannot be loaded as ONNX Runtime");
}

// Only what runs a stage needs ONNX Runtime: status shows compile would
// fail and why (exit 0, as always), graph draws it, clean cleans; once the
// library is where the setting says, the build goes through.
TEST(OrtBackend, StatusGraphAndCleanWorkWithoutOnnxRuntime) {
  test::Project p;
  write_quickstart(p, "ep = \"ref\"\nbackend = \"ort\"\nort_library = \"ort/libonnxruntime.so.1\"\n");
  const std::string missing = (p.root() / "ort/libonnxruntime.so.1").string() + ": no such file";
  auto status = p.run({"status"});
  EXPECT_EQ(status.exit_code, 0) << status.err;
  expect_contains(status.out, "compile   would fail: " + missing);
  expect_contains(status.out, "1 stage would fail (net/compile: " + missing);
  auto graph = p.run({"graph"});
  EXPECT_EQ(graph.exit_code, 0) << graph.err;
  expect_contains(graph.out, "digraph");
  auto clean = p.run({"clean"});
  EXPECT_EQ(clean.exit_code, 0) << clean.err;
  expect_contains(stopped_before_export(p), missing);

  fs::create_directories(p.root() / "ort");
  fs::create_symlink(WINML_ORT_LIBRARY_1_29, p.root() / "ort" / "libonnxruntime.so.1");
  p.build();
  status = p.run({"status"});
  expect_contains(status.out, "compile   up to date");
}

TEST(OrtBackend, AMissingEpLibraryStopsTheBuildBeforeExport) {
  test::Project p;
  write_quickstart(p, "ep = \"qnn\"\nep_library = \"qnn/libonnxruntime_providers_qnn.so\"\n");
  const std::string err = stopped_before_export(p);
  expect_contains(err, (p.root() / "qnn/libonnxruntime_providers_qnn.so").string() + ": no such file: [compile] ep_library");
  // A shared library that is not an EP library.
  fs::create_directories(p.root() / "qnn");
  fs::copy_file("/lib/x86_64-linux-gnu/libm.so.6", p.root() / "qnn/libonnxruntime_providers_qnn.so");
  const std::string not_ep = stopped_before_export(p);
  expect_contains(not_ep, "cannot register it as an execution provider library");
  expect_contains(not_ep, "CreateEpFactories");
}

TEST(OrtBackend, AnUnknownEpStopsTheBuildBeforeExport) {
  test::Project p;
  write_quickstart(p, "ep = \"qnn\"\n");  // ort is qnn's default backend; stock ORT has no QNN
  const std::string err = stopped_before_export(p);
  expect_contains(err, "ONNX Runtime 1.29.0 has no execution provider QNNExecutionProvider (ep = \"qnn\"");
  expect_contains(err, "it offers CPUExecutionProvider (cpu)");
  expect_contains(err, "Point [compile] ep_library at the library that provides QNNExecutionProvider");
  expect_contains(err, "[compile] command");
}

TEST(OrtBackend, AnEpWithoutTheDeviceStopsTheBuildBeforeExport) {
  test::Project p;
  write_quickstart(p, "ep = \"cpu\"\nbackend = \"ort\"\ndevice = \"npu\"\n");
  const std::string err = stopped_before_export(p);
  expect_contains(err, "CPUExecutionProvider has no npu device on this machine ([compile] device = \"npu\"");
  expect_contains(err, "it offers cpu");
}

TEST(OrtBackend, WithCompileDisabledNoEpIsNeeded) {
  test::Project p;
  write_quickstart(p, "ep = \"qnn\"\nenabled = false\n");
  auto report = p.build();
  EXPECT_TRUE(fs::exists(p.out("net", "model.onnx")));
  EXPECT_EQ(test::statuses(report)["net/compile"], "skipped");
  // Nor is the ORT library: not even one that is missing.
  p.write_config("[model]\nname = \"net\"\nsource = \"model.onnx\"\n[quantize]\nsamples = 2\n[compile]\nep = \"cpu\"\n"
                 "enabled = false\n");
  EXPECT_EQ(p.run({}, {{"WINML_ORT_CACHE", (p.root() / "none").string()}}).exit_code, 0);
}

TEST(OrtBackend, AnEpThatCompilesNothingFailsNamingWhatItLeft) {
  // ORT's CPU EP runs every node but compiles none: ORT would write the
  // model unchanged; the build fails instead, with no compiled.onnx.
  test::Project p;
  write_quickstart(p, "ep = \"cpu\"\nbackend = \"ort\"\n");
  auto r = p.run({});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  expect_contains(r.err, "CPUExecutionProvider compiled no node of the model (through ONNX Runtime 1.29.0)");
  expect_contains(r.err, "Conv x");
  EXPECT_TRUE(fs::exists(p.out("net", "quantized.onnx")));
  EXPECT_FALSE(fs::exists(p.out("net", "compiled.onnx")));
  EXPECT_FALSE(fs::exists(p.out("net", "model.onnx")));
}

TEST(OrtBackend, TheDefaultOrtLibraryFollowsItsCacheVariables) {
  // An empty cache: the default library is missing, and the message says where it was looked for.
  test::Project p;
  write_quickstart(p, "ep = \"cpu\"\nbackend = \"ort\"\n");
  auto r = p.run({}, {{"WINML_ORT_CACHE", (p.root() / "cache").string()}});
  EXPECT_EQ(r.exit_code, 2);
  expect_contains(r.err, (p.root() / "cache/1.29.0/lib/libonnxruntime.so.1").string() + ": no such file");
  // The variable enters the stored plan's memo: unset, the next build finds the default again.
  auto again = p.run({});
  EXPECT_EQ(again.exit_code, 1) << again.err;  // (past the plan: CPU compiles nothing)
  expect_contains(again.err, "compiled no node");
}

TEST(OrtBackend, KeysOfOtherBackendsAreRefused) {
  test::Project p;
  write_quickstart(p, "ep = \"ref\"\nep_library = \"x.so\"\n");
  auto r = p.run({});
  EXPECT_EQ(r.exit_code, 2);
  expect_contains(r.err, "[compile] ep_library is used by backend = \"ort\" only (backend = \"ref\")");
  write_quickstart(p, "ep = \"qnn\"\nbackend = \"ref\"\n");
  r = p.run({});
  EXPECT_EQ(r.exit_code, 2);
  expect_contains(r.err, "backend = \"ref\" is winml-make's own compiler, for ep = \"ref\" only");
}

TEST(OrtBackend, CompileCommandStopsBeforeWritingAnything) {
  test::TempDir dir;
  fs::copy_file(test::source_dir() / "examples/quickstart/model.onnx", dir / "in.onnx");
  auto compile = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"compile", "-m", (dir / "in.onnx").string(), "-o", (dir / "out/c.onnx").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return test::run_cli(args);
  };
  auto r = compile({"--ep", "qnn"});
  EXPECT_EQ(r.exit_code, 2);
  expect_contains(r.err, "has no execution provider QNNExecutionProvider");
  expect_contains(r.err, "Point --ep-library at");
  r = compile({"--ep", "cpu", "--backend", "ort", "--device", "gpu"});
  EXPECT_EQ(r.exit_code, 2);
  expect_contains(r.err, "no gpu device");
  r = compile({"--ep", "cpu", "--backend", "ort", "--ort-library", (dir / "none.so").string()});
  EXPECT_EQ(r.exit_code, 2);
  expect_contains(r.err, "--ort-library (in the command line, relative to the working directory) names it");
  r = compile({"--ep", "cpu", "--backend", "ort", "--provider-option", "novalue"});
  EXPECT_EQ(r.exit_code, 2);
  expect_contains(r.err, "--provider-option novalue: expected KEY=VALUE");
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(OrtBackend, NeitherTheBinaryNorTheModuleLinksOnnxRuntime) {
  // ORT is opened with dlopen only when the plan or a stage needs it.
  const fs::path module = test::winml_make_binary().parent_path() / "winml-make-tools.so";
  ASSERT_TRUE(fs::exists(module));
  for (const fs::path& file : {test::winml_make_binary(), module}) {
    auto r = test::run_program({"ldd", file.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("libc.so"), std::string::npos) << r.out;  // (ldd did list the libraries)
    EXPECT_EQ(r.out.find("onnxruntime"), std::string::npos) << file << ":\n" << r.out;
  }
}

// The ref backend as ORT's plugin EP: what ORT compiled is checked, placed,
// validated in ORT against the uncompiled model, and runs in ORT as an
// application loads it.
TEST(OrtBackend, CompilesWithThePluginEpInSidecarsAndEmbedded) {
  test::Project p;
  write_quickstart(p, "ep = \"ref\"\nbackend = \"ort\"\n");
  p.build();
  nlohmann::json c = compile_metrics(p);
  EXPECT_EQ(c["backend"], "ort");
  EXPECT_EQ(c["onnxruntime"]["version"], "1.29.0");
  EXPECT_EQ(c["execution_provider"]["name"], "WinmlMakeRefExecutionProvider");
  EXPECT_EQ(c["execution_provider"]["vendor"], "winml-make");
  EXPECT_EQ(c["nodes_not_compiled"], nlohmann::json::object());
  ASSERT_EQ(c["blobs"].size(), 1u) << c.dump(1);
  const std::string blob = c["blobs"][0]["file"];
  EXPECT_TRUE(fs::exists(p.out("net", blob)));
  EXPECT_EQ(c["epcontext_nodes"][0]["file"], blob);  // as placed, not as ORT named it
  EXPECT_TRUE(fs::exists(p.out("net", "model" + blob.substr(std::string("compiled").size()))));
  EXPECT_EQ(c["validation"]["mode"], "run");
  EXPECT_EQ(c["validation"]["runtime"], "onnxruntime 1.29.0");
  const auto& d = c["validation"]["difference"]["logits"];
  EXPECT_LE(d["max_abs"].get<double>(), 1e-4 * d["span"].get<double>()) << d.dump();
  // model.onnx in ORT with the plugin: the outputs winml-make's runtime gives.
  auto in_ort = p.run({"run", "-m", p.out("net", "model.onnx").string(), "--runtime", "ort", "--ep", "ref", "--random",
                       "--output-dir", (p.root() / "ort").string()});
  ASSERT_EQ(in_ort.exit_code, 0) << in_ort.err;
  auto in_winml = p.run({"run", "-m", p.out("net", "model.onnx").string(), "--random", "--output-dir",
                         (p.root() / "winml").string()});
  ASSERT_EQ(in_winml.exit_code, 0) << in_winml.err;
  EXPECT_EQ(model::read_npy(p.root() / "ort" / "logits.npy").data, model::read_npy(p.root() / "winml" / "logits.npy").data);

  write_quickstart(p, "ep = \"ref\"\nbackend = \"ort\"\nembed = true\n");
  auto report = p.build();
  EXPECT_EQ(ran(report), (std::vector<std::string>{"compile", "package"}));
  c = compile_metrics(p);
  EXPECT_TRUE(c["blobs"].empty());
  EXPECT_EQ(c["epcontext_nodes"][0]["file"], "embedded");
  const model::Model m = model::load_model(p.out("net", "model.onnx"));
  const auto contexts = model::find_ep_contexts(m.proto);
  ASSERT_EQ(contexts.size(), 1u);
  EXPECT_EQ(contexts[0].embed_mode, 1);
  EXPECT_EQ(contexts[0].source, "WinmlMakeRefExecutionProvider");
  for (const auto& e : fs::directory_iterator(p.out("net")))
    EXPECT_FALSE(e.path().extension() == ".bin") << e.path();  // the earlier blobs went with the earlier model
}

TEST(OrtBackend, NodesTheEpLeavesStayForOrtsCpuEp) {
  // x -> Mul -> Cast -> BitwiseNot (the runtime has no kernel) -> Cast -> Add -> y.
  test::GraphBuilder b("split");
  b.input("x", {1, 6});
  b.initializer("two", {1}, {2.0f});
  b.node("Mul", {"x", "two"}, {"doubled"}, "mul");
  test::set_attr(b.node("Cast", {"doubled"}, {"as_int"}, "to_int"), "to", std::int64_t{onnx::TensorProto::INT32});
  b.node("BitwiseNot", {"as_int"}, {"inverted"}, "not");
  test::set_attr(b.node("Cast", {"inverted"}, {"as_float"}, "to_float"), "to", std::int64_t{onnx::TensorProto::FLOAT});
  b.node("Add", {"as_float", "x"}, {"y"}, "add");
  b.output("y", {1, 6});
  test::TempDir dir;
  test::write_model(test::make_model(b.graph(), 18), dir / "split.onnx");
  auto r = test::run_cli({"compile", "-m", (dir / "split.onnx").string(), "-o", (dir / "out" / "c.onnx").string(),
                          "--ep", "ref", "--backend", "ort", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto c = nlohmann::json::parse(r.out);
  EXPECT_EQ(c["epcontext_nodes"].size(), 2u) << c.dump(1);
  EXPECT_EQ(c["nodes_not_compiled"], nlohmann::json({{"BitwiseNot", 1}}));
  EXPECT_EQ(c["validation"]["difference"]["y"]["max_abs"], 0.0);
  // Every node on the EP or nothing: the same model then fails.
  auto strict = test::run_cli({"compile", "-m", (dir / "split.onnx").string(), "-o", (dir / "strict" / "c.onnx").string(),
                               "--ep", "ref", "--backend", "ort", "--session-option",
                               "session.disable_cpu_ep_fallback=1"});
  EXPECT_NE(strict.exit_code, 0);
  EXPECT_FALSE(fs::exists(dir / "strict" / "c.onnx"));
}

// A model at or over the external-data threshold keeps the weights ORT
// leaves outside the blobs in compiled.onnx.data (ORT's external
// initializers file), which travels with the model: model.onnx.data.
TEST(OrtBackend, WeightsLeftOutsideTheBlobsStayInTheModelsDataSidecar) {
  // x -> Mul(2) -> Add -> y, where Add's other input is Cast(BitwiseNot(bits)):
  // `bits` (1.6 MB) feeds only BitwiseNot, which the runtime lacks, so it
  // stays in the compiled graph for ORT's CPU EP.
  constexpr std::int64_t n = 200000;
  std::vector<std::int64_t> bits(n);
  for (std::int64_t i = 0; i < n; ++i) bits[static_cast<std::size_t>(i)] = (i * 7919) % 1000;
  test::GraphBuilder b("split");
  b.input("x", {1, n});
  b.initializer("two", {1}, {2.0f});
  b.initializer_i64("bits", {n}, bits);
  b.node("Mul", {"x", "two"}, {"doubled"}, "mul");
  b.node("BitwiseNot", {"bits"}, {"inverted"}, "not");
  test::set_attr(b.node("Cast", {"inverted"}, {"as_float"}, "to_float"), "to", std::int64_t{onnx::TensorProto::FLOAT});
  b.node("Add", {"doubled", "as_float"}, {"y"}, "add");
  b.output("y", {1, n});
  test::Project p;
  test::write_model(test::make_model(b.graph(), 18), p.root() / "net.onnx");
  p.write_config("[build]\nexternal_data_threshold_mib = 1\n[model]\nname = \"net\"\nsource = \"net.onnx\"\n"
                 "quantize = false\n[compile]\nep = \"ref\"\nbackend = \"ort\"\n");
  p.build();
  const nlohmann::json c = compile_metrics(p);
  EXPECT_EQ(c["nodes_not_compiled"], nlohmann::json({{"BitwiseNot", 1}})) << c.dump(1);
  EXPECT_EQ(c["epcontext_nodes"].size(), 2u);
  ASSERT_TRUE(fs::exists(p.out("net", "compiled.onnx.data")));
  EXPECT_GE(fs::file_size(p.out("net", "compiled.onnx.data")), static_cast<std::uintmax_t>(n * 8));
  EXPECT_LT(fs::file_size(p.out("net", "compiled.onnx")), 1u << 20);
  const model::Model packaged = model::load_model(p.out("net", "model.onnx"));
  ASSERT_EQ(packaged.external_files.size(), 1u);
  EXPECT_EQ(packaged.external_files.begin()->first, "model.onnx.data");
  // The packaged model and its sidecars, moved, run in ORT with the plugin as the source does on ORT's CPU EP.
  const fs::path moved = p.root() / "deploy";
  fs::rename(p.out("net"), moved);
  const std::map<std::string, model::TensorFile> feeds = {{"x", test::random_tensor({1, n}, 3)}};
  auto want = test::run_in(p.root() / "net.onnx", {}, feeds);
  ASSERT_EQ(want.exit_code, 0) << want.err;
  for (test::OrtVersion v : {test::OrtVersion::k1_29, test::OrtVersion::k1_30}) {
    auto got = test::run_in(moved / "model.onnx", {.ort = v, .plugin = true}, feeds);
    ASSERT_EQ(got.exit_code, 0) << got.err;
    EXPECT_EQ(got.outputs.at("y").data, want.outputs.at("y").data) << "ORT " << got.ort_version;
  }
}

// The library files are inputs of the compile key though their paths are
// not: the same path holding another ORT (1.29 -> 1.30) or another EP
// library reruns compile, nothing before it, and --explain says why.
TEST(OrtBackend, SwappingTheOrtOrEpLibraryRerunsCompileOnly) {
  test::Project p;
  fs::create_directories(p.root() / "lib");
  fs::create_symlink(WINML_ORT_LIBRARY_1_29, p.root() / "lib" / "libonnxruntime.so.1");
  fs::copy_file(kRefPlugin, p.root() / "lib" / "libref.so");
  write_quickstart(p, "ep = \"ref\"\nbackend = \"ort\"\nort_library = \"lib/libonnxruntime.so.1\"\n"
                      "ep_library = \"lib/libref.so\"\n");
  p.build();
  EXPECT_EQ(compile_metrics(p)["onnxruntime"]["version"], "1.29.0");
  EXPECT_TRUE(ran(p.build()).empty());

  fs::remove(p.root() / "lib" / "libonnxruntime.so.1");
  fs::create_symlink(WINML_ORT_LIBRARY_1_30, p.root() / "lib" / "libonnxruntime.so.1");
  auto dry = p.build({"-n", "--explain"});
  EXPECT_EQ(test::stages_with(dry, "net", "would-run"), (std::vector<std::string>{"compile", "package"})) << dry.dump(1);
  expect_contains(dry["_stderr"], "net/compile: value onnxruntime.library changed (+1 more)");
  expect_contains(dry["_stderr"], "value onnxruntime.version: 1.29.0 -> 1.30.0");
  auto report = p.build();
  const auto stages = ran(report);
  ASSERT_FALSE(stages.empty());
  EXPECT_EQ(stages.front(), "compile");
  for (const auto& s : stages) EXPECT_TRUE(s == "compile" || s == "package") << s;
  EXPECT_EQ(compile_metrics(p)["onnxruntime"]["version"], "1.30.0");

  // Another EP library at the same path (the same code, one byte longer).
  std::ofstream(p.root() / "lib" / "libref.so", std::ios::app) << '\0';
  dry = p.build({"-n", "--explain"});
  EXPECT_EQ(test::stages_with(dry, "net", "would-run"), (std::vector<std::string>{"compile", "package"})) << dry.dump(1);
  expect_contains(dry["_stderr"], "net/compile: value ep.library changed");
  report = p.build();
  EXPECT_EQ(ran(report).front(), "compile");
  EXPECT_TRUE(ran(p.build()).empty());
}

// The same libraries at other paths (another machine's install): their
// digests are the compile key's ingredients, their paths are not, so
// nothing reruns (and a shared cache serves another machine's result).
TEST(OrtBackend, TheSameLibrariesElsewhereKeepTheCompileResult) {
  test::Project p;
  for (const char* dir : {"lib", "elsewhere"}) {
    fs::create_directories(p.root() / dir);
    fs::create_symlink(WINML_ORT_LIBRARY_1_29, p.root() / dir / "libonnxruntime.so.1");
    fs::copy_file(kRefPlugin, p.root() / dir / "libref.so");
  }
  write_quickstart(p, "ep = \"ref\"\nbackend = \"ort\"\nort_library = \"lib/libonnxruntime.so.1\"\n"
                      "ep_library = \"lib/libref.so\"\n");
  p.build();
  const std::string compiled = test::read_text(p.out("net", "compiled.onnx"));

  write_quickstart(p, "ep = \"ref\"\nbackend = \"ort\"\nort_library = \"elsewhere/libonnxruntime.so.1\"\n"
                      "ep_library = \"elsewhere/libref.so\"\n");
  auto dry = p.build({"-n", "--explain"});
  EXPECT_TRUE(test::stages_with(dry, "net", "would-run").empty()) << dry.dump(1);
  EXPECT_TRUE(ran(p.build()).empty());
  EXPECT_EQ(test::read_text(p.out("net", "compiled.onnx")), compiled);

  // A different library at the new path still reruns compile.
  fs::remove(p.root() / "elsewhere" / "libonnxruntime.so.1");
  fs::create_symlink(WINML_ORT_LIBRARY_1_30, p.root() / "elsewhere" / "libonnxruntime.so.1");
  EXPECT_EQ(ran(p.build()).front(), "compile");
}

TEST(OrtBackend, ANoOpBuildLoadsNoOnnxRuntime) {
  test::Project p;
  write_quickstart(p, "ep = \"ref\"\nbackend = \"ort\"\n");
  p.build();
  // The dynamic loader lists every library a process opens.
  auto noop = p.run({}, {{"LD_DEBUG", "files"}});
  ASSERT_EQ(noop.exit_code, 0) << noop.err;
  EXPECT_NE(noop.err.find("file="), std::string::npos) << "LD_DEBUG printed nothing";
  EXPECT_EQ(noop.err.find("libonnxruntime"), std::string::npos) << noop.err.substr(0, 4000);
  EXPECT_EQ(noop.err.find("libwinml_ref_ep"), std::string::npos);
}

// The `ref` plugin EP is looked for where the model tools are: a binary
// copied without it names each place, as a missing module does, and what to
// build or install.
TEST(OrtBackend, AMissingRefPluginNamesEveryPlaceItWasLookedFor) {
  test::TempDir dir;
  fs::create_directories(dir / "bin");
  for (const char* file : {"winml-make", "winml-make-tools.so"})
    fs::copy_file(test::winml_make_binary().parent_path() / file, dir / "bin" / file);
  const std::string exe = (dir / "bin" / "winml-make").string();
  test::Project p;
  write_quickstart(p, "ep = \"ref\"\nbackend = \"ort\"\n");
  const auto built = test::run_program({exe}, p.root(), p.cache_env());
  const auto ran = test::run_program({exe, "run", "-m", "model.onnx", "--runtime", "ort", "--ep", "ref"}, p.root());
  for (const auto* r : {&built, &ran}) {
    EXPECT_EQ(r->exit_code, 2) << r->err;
    expect_contains(r->err, "cannot find the `ref` plugin EP (libwinml_ref_ep.so)");
    for (const fs::path& place : {dir / "bin" / "libwinml_ref_ep.so", dir / "lib" / "winml-make" / "libwinml_ref_ep.so",
                                  fs::path("/usr/lib/winml-make/libwinml_ref_ep.so")})
      expect_contains(r->err, "\n  " + place.string() + ": not there");
  }
  expect_contains(built.err, "or point [compile] ep_library at it");
  expect_contains(ran.err, "or point --ep-library at it");
  EXPECT_FALSE(fs::exists(p.out("net", "export.onnx")));
}

// A setting's error names where it was set: the -D argument, the file's
// line, or, for the default ONNX Runtime, the variable that chose its folder.
TEST(OrtBackend, ASettingsErrorNamesWhereItWasSet) {
  test::Project p;
  write_quickstart(p, "ep = \"cpu\"\nbackend = \"ort\"\n");
  const std::string toml = (p.root() / "winml.toml").string();
  auto r = p.run({"-D", "compile.ep_library=qnn/libqnn.so"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  expect_contains(r.err, "[compile] ep_library (set by -D compile.ep_library=qnn/libqnn.so, relative to");
  r = p.run({"-D", "compile.ort_library=ort/libonnxruntime.so.1"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  expect_contains(r.err, "[compile] ort_library (set by -D compile.ort_library=ort/libonnxruntime.so.1, relative to");
  r = p.run({"-D", "compile.device=npu"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  expect_contains(r.err, "([compile] device = \"npu\", set by -D compile.device=npu)");
  for (const char* d : {"compile.ep_library", "compile.ort_library", "compile.device"})
    EXPECT_EQ(r.err.find("in " + toml), std::string::npos) << d << ": " << r.err;
  // In the file: its line.
  write_quickstart(p, "ep = \"cpu\"\nbackend = \"ort\"\ndevice = \"npu\"\n");
  r = p.run({});
  expect_contains(r.err, "([compile] device = \"npu\", set in " + toml + ":9:1)");
  // The default ONNX Runtime, missing: the variable that chose its folder.
  write_quickstart(p, "ep = \"cpu\"\nbackend = \"ort\"\n");
  const std::string cache = (p.root() / "ort-cache").string();
  r = p.run({}, {{"WINML_ORT_CACHE", cache}});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  expect_contains(r.err, "this is the default, ONNX Runtime 1.29.0 as scripts/fetch-ort.sh fetches it into "
                         "$WINML_ORT_CACHE (" + cache + ")");
  // run --runtime ort: its own flags, and no word of builds.
  for (const std::vector<std::string>& ep : {std::vector<std::string>{}, {"--ep", "cpu"}}) {
    std::vector<std::string> args = {"run", "-m", "model.onnx", "--runtime", "ort"};
    args.insert(args.end(), ep.begin(), ep.end());
    auto run = test::run_cli(args, p.root(), {{"WINML_ORT_CACHE", cache}});
    EXPECT_EQ(run.exit_code, 2) << run.err;
    expect_contains(run.err, "$WINML_ORT_CACHE (" + cache + ")");
    expect_contains(run.err, "or set --ort-library to a libonnxruntime.so");
    EXPECT_EQ(run.err.find("[compile]"), std::string::npos) << run.err;
    EXPECT_EQ(run.err.find("build"), std::string::npos) << run.err;
  }
}
