// The build through the real CLI on small real models: no-op builds, touch,
// config edits, source changes, disabled stages, replay, reproducibility.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "base/path_text.h"
#include "support/platform.h"
#include "support/project.h"
#include "model/model_io.h"
#include "store/digest.h"

using namespace winml;
using test::Project;
namespace fs = std::filesystem;
using Stages = std::vector<std::string>;

namespace {

const char* kOneModel = "[model]\nsource = \"net.onnx\"\n";

void one_model(Project& p) {
  p.write_model("net.onnx", 1);
  p.write_config(kOneModel);
}

}  // namespace

TEST(BuildCli, FirstBuildWritesTheLayoutAndSecondIsANoOp) {
  Project p;
  one_model(p);
  auto first = p.build();
  EXPECT_EQ(test::stages_with(first, "net", "completed"),
            (Stages{"export", "optimize", "analyze", "quantize", "compile", "package"}));
  for (const char* f : {"export.onnx", "optimized.onnx", "quantized.onnx", "compiled.onnx", "model.onnx",
                        "build_manifest.json", "winml_build_config.json"})
    EXPECT_TRUE(fs::exists(p.out("net", f))) << f;
  EXPECT_NO_THROW(model::load_model(p.out("net", "model.onnx")));
  auto manifest_time = fs::last_write_time(p.out("net", "build_manifest.json"));

  auto second = p.build();
  EXPECT_EQ(test::stages_with(second, "net", "up-to-date"),
            (Stages{"export", "optimize", "analyze", "quantize", "compile", "package"}));
  EXPECT_TRUE(test::stages_with(second, "net", "completed").empty());
  // Nothing was rebuilt, so the manifest still describes the build that made the artifacts.
  EXPECT_EQ(fs::last_write_time(p.out("net", "build_manifest.json")), manifest_time);
  auto text = p.run({});
  EXPECT_NE(text.out.find("nothing to do"), std::string::npos) << text.out;
}

// The model tools (and libonnx, libprotobuf behind them) are loaded when a
// stage runs, never for a build with nothing to do, nor for status: the
// dynamic loader says what it opened (LD_DEBUG=files).
TEST(BuildCli, ANoOpLoadsNeitherTheModelToolsNorOnnx) {
  if (!test::on_posix()) GTEST_SKIP() << "the trace is glibc's dynamic loader's (LD_DEBUG)";
  Project p;
  one_model(p);
  const std::map<std::string, std::string> trace = {{"LD_DEBUG", "files"}};
  auto first = p.run({"--no-cache"}, trace);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.err.find("winml-make-tools.so"), std::string::npos) << "the loader's trace lacks the module";
  EXPECT_NE(first.err.find("libonnx"), std::string::npos);
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--no-cache"}, {"status"}, {"-n"}}) {
    auto r = p.run(args, trace);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find(args[0] == "--no-cache" ? "nothing to do" : "up to date"), std::string::npos) << r.out;
    for (const char* absent : {"winml-make-tools.so", "libonnx", "libprotobuf"})
      EXPECT_EQ(r.err.find(absent), std::string::npos) << args[0] << " loaded " << absent;
  }
}

TEST(BuildCli, ManifestHasTheDocumentedFields) {
  Project p;
  one_model(p);
  p.build();
  auto m = nlohmann::json::parse(test::read_text(p.out("net", "build_manifest.json")));
  EXPECT_EQ(m["schema_version"], 2);
  EXPECT_EQ(m["model"], "net");
  EXPECT_EQ(m["final_artifact"], "model.onnx");
  EXPECT_EQ(m["cache_key"].get<std::string>().size(), 32u);
  EXPECT_EQ(m["config_hash"].get<std::string>().size(), 32u);
  EXPECT_TRUE(m.contains("timestamp"));
  EXPECT_TRUE(m.contains("elapsed_seconds"));
  EXPECT_EQ(m["analyze_iterations"], 0);
  ASSERT_EQ(m["stages"].size(), 6u);
  for (const auto& s : m["stages"]) {
    for (const char* k : {"name", "status", "filename", "elapsed_seconds", "inputs", "outputs", "implementation"})
      EXPECT_TRUE(s.contains(k)) << s.dump() << " lacks " << k;
    if (s["status"] == "completed") {
      EXPECT_EQ(s["key"].get<std::string>().size(), 32u);
    }
  }
  // Each stage names its implementation; quantize reports what it did.
  EXPECT_EQ(m["stages"][1]["name"], "optimize");
  EXPECT_EQ(m["stages"][1]["implementation"], "winml-optimize");
  ASSERT_EQ(m["stages"][3]["name"], "quantize");
  EXPECT_GT(m["stages"][3]["nodes_quantized"].get<int>(), 0);
  EXPECT_TRUE(m["stages"][3].contains("nodes_skipped"));
  EXPECT_TRUE(m["stages"][3].contains("calibration_time_seconds"));
  EXPECT_EQ(m["stages"][3]["accuracy"].size(), 1u);
  EXPECT_EQ(m["stages"][5]["outputs"][0]["digest"], store::hash_file(p.out("net", "model.onnx")).hex());
}

TEST(BuildCli, TouchingEveryFileRerunsNothing) {
  Project p;
  one_model(p);
  p.build();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  for (auto& e : fs::recursive_directory_iterator(p.root()))
    if (e.is_regular_file()) fs::last_write_time(e.path(), fs::file_time_type::clock::now());
  auto r = p.build();
  EXPECT_EQ(test::stages_with(r, "net", "up-to-date"),
            (Stages{"export", "optimize", "analyze", "quantize", "compile", "package"}));
}

TEST(BuildCli, EditingOneQuantizeKeyRerunsOnlyFromQuantize) {
  Project p;
  one_model(p);
  p.build();
  auto quantized_before = store::hash_file(p.out("net", "quantized.onnx"));
  p.write_config(std::string(kOneModel) + "[quantize]\nper_channel = true\n");
  auto r = p.build({"--explain"});
  auto s = test::statuses(r);
  EXPECT_EQ(s["net/export"], "up-to-date");
  EXPECT_EQ(s["net/optimize"], "up-to-date");
  EXPECT_EQ(s["net/quantize"], "completed");
  // Downstream reruns exactly when quantize's output changed (early cutoff).
  bool changed = store::hash_file(p.out("net", "quantized.onnx")) != quantized_before;
  EXPECT_EQ(s["net/compile"], changed ? "completed" : "up-to-date");
  EXPECT_EQ(s["net/package"], changed ? "completed" : "up-to-date");
  // --explain names the key, with old and new values.
  const auto& q = r["models"][0]["stages"][3];
  ASSERT_EQ(q["name"], "quantize");
  EXPECT_EQ(q["reason"], "config quantize.per_channel changed");
  ASSERT_EQ(q["explanation"].size(), 1u);
  EXPECT_EQ(q["explanation"][0].get<std::string>().substr(0, 46), "config quantize.per_channel: false -> true (di");
  auto text = p.run({"-n"});  // nothing left to do
  EXPECT_EQ(text.out.find("would run"), std::string::npos) << text.out;
}

TEST(BuildCli, ChangingTheSourceModelRerunsEverything) {
  Project p;
  one_model(p);
  p.build();
  p.write_model("net.onnx", 2);
  auto r = p.build({"--explain"});
  EXPECT_EQ(test::stages_with(r, "net", "completed"),
            (Stages{"export", "optimize", "analyze", "quantize", "compile", "package"}));
  EXPECT_EQ(r["models"][0]["stages"][0]["reason"], "model net.onnx changed");
}

TEST(BuildCli, DryRunSaysWhatWouldRunAndWritesNothing) {
  Project p;
  one_model(p);
  auto r = p.run({"-n"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("would run  net/export: never built"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(p.root() / "build" / "net"));
  p.build();
  p.write_config(std::string(kOneModel) + "[compile]\nvalidate = false\n");
  r = p.run({"-n", "--explain"});
  EXPECT_NE(r.out.find("would run  net/compile: config compile.validate changed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("config compile.validate: true -> false"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("would run  net/package: an input will be rebuilt"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("net/quantize"), std::string::npos) << r.out;
}

TEST(BuildCli, DisabledStagesAreSkippedAndModelIsTheLastThatRan) {
  Project p;
  one_model(p);
  p.build();
  ASSERT_TRUE(fs::exists(p.out("net", "quantized.onnx")));
  p.write_config(std::string(kOneModel) + "quantize = false\n[compile]\nenabled = false\n");
  auto r = p.build();
  auto s = test::statuses(r);
  EXPECT_EQ(s["net/quantize"], "skipped");
  EXPECT_EQ(s["net/compile"], "skipped");
  EXPECT_FALSE(fs::exists(p.out("net", "quantized.onnx")));
  EXPECT_FALSE(fs::exists(p.out("net", "compiled.onnx")));
  // model.onnx is a copy of optimized.onnx, the last stage that ran.
  EXPECT_EQ(test::read_text(p.out("net", "model.onnx")), test::read_text(p.out("net", "optimized.onnx")));
  auto m = nlohmann::json::parse(test::read_text(p.out("net", "build_manifest.json")));
  EXPECT_EQ(m["stages"][3]["status"], "skipped");
  EXPECT_EQ(m["stages"][3]["reason"], "disabled in winml.toml:3 (quantize.enabled = false)");
  EXPECT_EQ(m["stages"][5]["inputs"][0]["name"], "input:optimized.onnx");
  // Optimize off too: model.onnx comes from export.onnx.
  p.write_config(std::string(kOneModel) + "optimize = false\nquantize = false\ncompile = false\n");
  p.build();
  EXPECT_EQ(test::read_text(p.out("net", "model.onnx")), test::read_text(p.out("net", "export.onnx")));
}

TEST(BuildCli, ReplayingTheSavedConfigGivesIdenticalArtifacts) {
  Project p;
  one_model(p);
  p.write_config(std::string(kOneModel) + "[build]\nauto = true\n[optimize]\nlevel = \"extended\"\n");
  auto r = p.build();
  auto m = nlohmann::json::parse(test::read_text(p.out("net", "build_manifest.json")));
  // One analysis of the optimized model; a linear model offers nothing to discover.
  EXPECT_EQ(m["analyze_iterations"], 1);
  auto saved = nlohmann::json::parse(test::read_text(p.out("net", "winml_build_config.json")));
  EXPECT_EQ(saved["build"]["auto"], false);
  EXPECT_EQ(saved["optimize"]["level"], "extended");
  auto replay = p.run({"-c", p.out("net", "winml_build_config.json").string(), "-o", "replayed", "--no-cache"});
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  auto original = test::artifacts(p.out("net"));
  auto again = test::artifacts(p.root() / "replayed" / "net");
  EXPECT_EQ(original.size(), again.size());
  for (const auto& [name, bytes] : original) EXPECT_EQ(again[name], bytes) << name;
}

TEST(BuildCli, CleanBuildsInTwoDirectoriesAreByteIdentical) {
  Project a, b;
  one_model(a);
  one_model(b);
  a.build({"--no-cache"});
  b.build({"--no-cache"});
  auto x = test::artifacts(a.root() / "build"), y = test::artifacts(b.root() / "build");
  ASSERT_FALSE(x.empty());
  EXPECT_EQ(x, y);
  auto ma = nlohmann::json::parse(test::read_text(a.out("net", "build_manifest.json")));
  auto mb = nlohmann::json::parse(test::read_text(b.out("net", "build_manifest.json")));
  EXPECT_EQ(ma["cache_key"], mb["cache_key"]);
  EXPECT_EQ(ma["config_hash"], mb["config_hash"]);
}

// The sidecars a source model names depend on its bytes alone, but its own file name does not:
// two copies of one model under other names and folders are two models with no file of each other's.
TEST(BuildCli, TwoCopiesOfOneSourceModelUnderOtherNamesAreIndependentInputs) {
  Project p;
  p.write_model("x/a.onnx", 5);
  p.write_model("y/b.onnx", 5);
  p.write_config("[[model]]\nname = \"a\"\nsource = \"x/a.onnx\"\n[[model]]\nname = \"b\"\nsource = \"y/b.onnx\"\n");
  auto r = p.build({"-j", "1"});
  EXPECT_EQ(test::stages_with(r, "a", "completed").size(), 6u) << r.dump();
  EXPECT_EQ(test::stages_with(r, "b", "completed").size() + test::stages_with(r, "b", "cached").size(), 6u)
      << r.dump();
  auto manifest = nlohmann::json::parse(test::read_text(p.out("b", "build_manifest.json")));
  const std::string inputs = manifest["stages"][0]["inputs"].dump();
  EXPECT_NE(inputs.find("model:y/b.onnx"), std::string::npos) << inputs;
  EXPECT_EQ(inputs.find("a.onnx"), std::string::npos) << inputs;
}

TEST(BuildCli, SeveralModelsInParallelAndKeepGoingPastABadOne) {
  Project p;
  std::string toml;
  for (int i = 0; i < 4; ++i) {
    p.write_model("m" + std::to_string(i) + ".onnx", 10 + i);
    toml += "[[model]]\nsource = \"m" + std::to_string(i) + ".onnx\"\n";
  }
  p.write("m2.onnx", "this is not a model");
  p.write_config(toml);
  auto stop = p.build({"-j", "1"}, 2);
  EXPECT_EQ(test::statuses(stop)["m2/export"], "failed");
  EXPECT_EQ(test::statuses(stop)["m3/export"], "not-run");  // stopped after the failure

  auto r = p.build({"-j", "3", "-k"}, 2);
  auto s = test::statuses(r);
  EXPECT_EQ(s["m2/export"], "failed");
  EXPECT_EQ(s["m2/package"], "not-run");
  EXPECT_EQ(s["m3/package"], "completed");
  EXPECT_TRUE(fs::exists(p.out("m3", "model.onnx")));
  std::string reason = r["models"][2]["stages"][0]["reason"];
  EXPECT_NE(reason.find("m2.onnx"), std::string::npos) << reason;
  auto m = nlohmann::json::parse(test::read_text(p.out("m2", "build_manifest.json")));
  EXPECT_EQ(m["status"], "failed");
  // Only the named target.
  p.write_model("m2.onnx", 12);
  auto only = p.build({"m2"});
  EXPECT_EQ(only["models"].size(), 1u);
  EXPECT_EQ(test::statuses(only)["m2/package"], "completed");
}

TEST(BuildCli, UnknownTargetIsAnInputError) {
  Project p;
  one_model(p);
  auto r = p.run({"nett"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no model named 'nett' (did you mean 'net'?)"), std::string::npos) << r.err;
}

TEST(BuildCli, RebuildRunsEverythingAgainWithoutTheCache) {
  Project p;
  one_model(p);
  p.build();
  auto r = p.build({"--rebuild"});
  EXPECT_EQ(test::stages_with(r, "net", "completed"),
            (Stages{"export", "optimize", "analyze", "quantize", "compile", "package"}));
  p.write_config(std::string(kOneModel) + "[build]\nrebuild = true\n");
  r = p.build();
  EXPECT_EQ(test::stages_with(r, "net", "completed").size(), 6u);
}

TEST(BuildCli, ExportCommandWithDeclaredInputsAndEnvironment) {
  Project p;
  p.write_model("weights.onnx", 3);
  // export.steps: a script of winml_test_command's steps (the same program on every system).
  p.write("export.steps", "copy weights.onnx $1\n");
  p.write_config("[model]\nname = \"exported\"\n[export]\ncommand = ['" + to_utf8(test::test_command()) +
                 "', 'script', 'export.steps', '{output}']\ninputs = [\"export.steps\", \"*.onnx\"]\n"
                 "env = [\"EXPORT_FLAVOR\"]\n");
  auto r = p.build({}, 0, {{"EXPORT_FLAVOR", "a"}});
  EXPECT_EQ(test::statuses(r)["exported/export"], "completed");
  EXPECT_EQ(test::read_text(p.out("exported", "export.onnx")),
            model::serialize_deterministic(model::load_model(p.root() / "weights.onnx").proto));
  EXPECT_EQ(test::statuses(p.build({}, 0, {{"EXPORT_FLAVOR", "a"}}))["exported/export"], "up-to-date");
  // The value of a listed variable is part of the key...
  auto env = p.build({"--explain"}, 0, {{"EXPORT_FLAVOR", "b"}});
  EXPECT_EQ(env["models"][0]["stages"][0]["reason"], "env EXPORT_FLAVOR changed");
  // ...and so is every declared input file.
  p.write("export.steps", "# a comment\ncopy weights.onnx $1\n");
  auto script = p.build({}, 0, {{"EXPORT_FLAVOR", "b"}});
  EXPECT_EQ(script["models"][0]["stages"][0]["reason"], "file export.steps changed");
  // A failing command is a build failure (exit 1) with its output.
  p.write("export.steps", "eprint no torch here\nexit 3\n");
  auto bad = p.run({}, {{"EXPORT_FLAVOR", "b"}});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.out.find("export command failed with exit code 3"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("no torch here"), std::string::npos) << bad.out;  // the log's last lines
}

TEST(BuildCli, StatusAndGraph) {
  Project p;
  one_model(p);
  auto before = p.run({"status"});
  EXPECT_EQ(before.exit_code, 0) << before.err;
  EXPECT_NE(before.out.find("export    would run: never built"), std::string::npos) << before.out;
  p.build();
  auto after = p.run({"status"});
  EXPECT_NE(after.out.find("everything is up to date"), std::string::npos) << after.out;
  EXPECT_NE(after.out.find("analyze   up to date"), std::string::npos) << after.out;
  auto dot = p.run({"graph"});
  EXPECT_EQ(dot.exit_code, 0);
  EXPECT_NE(dot.out.find("digraph winml_make"), std::string::npos);
  EXPECT_NE(dot.out.find("\"net/quantize\" -> \"net/compile\";"), std::string::npos) << dot.out;
  auto clean = p.run({"clean"});
  EXPECT_EQ(clean.exit_code, 0) << clean.err;
  EXPECT_FALSE(fs::exists(p.out("net")));
  EXPECT_EQ(test::statuses(p.build())["net/export"], "cached");
}

TEST(BuildCli, AFailedStageIsOneErrorLineOnStderrNamingTheFile) {
  Project p;
  p.write("net.onnx", "this is not a protobuf");
  p.write_config(kOneModel);
  auto r = p.run({});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.first_error_line().rfind("winml-make: error: net/export: ", 0), 0u) << r.err;
  EXPECT_NE(r.first_error_line().find("net.onnx"), std::string::npos) << r.err;
}

TEST(BuildCli, NoProjectFileSaysWhatToDo) {
  Project p;
  auto r = p.run({});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.first_error_line().find("winml.toml: no such file: run winml-make in a project directory"),
            std::string::npos)
      << r.err;
}

TEST(BuildCli, OutputDirIsGlobalBeforeOrAfterTheSubcommand) {
  Project p;
  one_model(p);
  p.build({"-o", "elsewhere"});
  EXPECT_TRUE(fs::exists(p.root() / "elsewhere" / "net" / "model.onnx"));
  for (const auto& args :
       {std::vector<std::string>{"-o", "elsewhere", "status"}, std::vector<std::string>{"status", "-o", "elsewhere"}}) {
    auto r = p.run(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("everything is up to date"), std::string::npos) << r.out;
  }
}

TEST(BuildCli, BuildOptionsGivenToAnotherSubcommandAreRefused) {
  Project p;
  one_model(p);
  auto graph = p.run({"graph", "--json"});
  EXPECT_EQ(graph.exit_code, 2);
  EXPECT_NE(graph.err.find("--json applies to building, not to 'winml-make graph'"), std::string::npos) << graph.err;
  auto status = p.run({"--json", "status"});
  EXPECT_EQ(status.exit_code, 2);
  EXPECT_NE(status.err.find("write 'winml-make status --json'"), std::string::npos) << status.err;
  // Global options are fine on either side.
  EXPECT_EQ(p.run({"status", "--cache-dir", (p.root() / "c").string()}).exit_code, 0);
  EXPECT_EQ(p.run({"cache", "stats", "--cache-dir", (p.root() / "c").string()}).exit_code, 0);
}

TEST(BuildCli, AMistypedSubcommandOrModelIsSuggested) {
  Project p;
  p.write_model("net.onnx", 1);
  p.write_config("[model]\nsource = \"net.onnx\"\n");
  auto sub = p.run({"statsu"});
  EXPECT_EQ(sub.exit_code, 2);
  EXPECT_NE(sub.err.find("no model named 'statsu'"), std::string::npos) << sub.err;
  EXPECT_NE(sub.err.find("did you mean 'winml-make status'?"), std::string::npos) << sub.err;
  auto model = p.run({"nett"});
  EXPECT_EQ(model.exit_code, 2);
  EXPECT_NE(model.err.find("did you mean 'net'?"), std::string::npos) << model.err;
  EXPECT_EQ(model.err.find("winml-make status"), std::string::npos) << model.err;
}

TEST(BuildCli, DefinesSetKeysExactlyAsTheFileWould) {
  // -D quantize.samples=4 == samples = 4 in the file: same bytes, same
  // recorded config; the per-model value is overridden too.
  const std::string file = "[[model]]\nname = \"net\"\nsource = \"net.onnx\"\n[model.quantize]\nsamples = 2\n";
  Project with_define, in_file;
  for (Project* p : {&with_define, &in_file}) p->write_model("net.onnx", 3, 32, 16);
  with_define.write_config(file);
  in_file.write_config("[[model]]\nname = \"net\"\nsource = \"net.onnx\"\n[model.quantize]\nsamples = 4\n");
  with_define.build({"-D", "quantize.samples=4", "--no-cache"});
  in_file.build({"--no-cache"});
  EXPECT_EQ(test::artifacts(with_define.root() / "build"), test::artifacts(in_file.root() / "build"));
  auto recorded = nlohmann::json::parse(test::read_text(with_define.out("net", "winml_build_config.json")));
  EXPECT_EQ(recorded["quantize"]["samples"], 4);

  // status agrees only when given the same settings; without them the key differs.
  auto same = nlohmann::json::parse(with_define.run({"status", "--json", "-D", "quantize.samples=4"}).out);
  for (const auto& [stage, status] : test::statuses(same)) EXPECT_EQ(status, "up-to-date") << stage;
  auto plain = with_define.build({"--no-cache"});
  EXPECT_EQ(test::statuses(plain)["net/quantize"], "completed");

  // Shorthands, and errors that name the argument.
  auto no_quant = with_define.build({"--no-quant", "--no-cache"});
  EXPECT_EQ(test::statuses(no_quant)["net/quantize"], "skipped");
  auto bad = with_define.run({"-D", "quantize.samples=abc"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("-D quantize.samples=abc: 'quantize.samples' must be an integer"), std::string::npos)
      << bad.err;
  auto unknown = with_define.run({"-D", "quantize.sample=4"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("did you mean 'quantize.samples'"), std::string::npos) << unknown.err;
  EXPECT_EQ(with_define.run({"-D", "samples"}).exit_code, 2);
}

TEST(BuildCli, TheSummaryShowsTheArtifactAndItsAccuracyAndMinSqnrEnforcesIt) {
  Project p;
  p.write_model("net.onnx", 5, 32, 16);
  p.write_config("[model]\nsource = \"net.onnx\"\n");
  auto r = p.run({});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  net: build/net/model.onnx "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("quantized 2 nodes"), std::string::npos) << r.out;  // MatMul and Add
  EXPECT_NE(r.out.find("SQNR y "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("; validated"), std::string::npos) << r.out;

  // --json carries the figures the line was made of.
  auto report = p.build();
  double sqnr = 0;
  for (const auto& s : report["models"][0]["stages"])
    if (s["name"] == "quantize") sqnr = s["metrics"]["accuracy"][0]["sqnr_db"].get<double>();
  ASSERT_GT(sqnr, 10.0);

  // A floor above the figure fails quantize, naming the output and the figure.
  auto strict = p.run({"--min-sqnr", std::to_string(sqnr + 10)});
  EXPECT_EQ(strict.exit_code, 1);
  EXPECT_NE(strict.err.find("net/quantize: output 'y' has an SQNR of"), std::string::npos) << strict.err;
  EXPECT_EQ(strict.out.find("  net: build/net/model.onnx"), std::string::npos) << "no artifact line for a failed model";
  // Downstream of the failure, -k would not help, so it is not suggested.
  EXPECT_EQ(strict.out.find("use -k"), std::string::npos) << strict.out;
  auto lenient = p.run({"--min-sqnr", std::to_string(sqnr - 10)});
  EXPECT_EQ(lenient.exit_code, 0) << lenient.err;
}
