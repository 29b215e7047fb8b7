// The stages layer without the CLI: the plan a config makes, its stored form,
// and the auto loop driven by fake optimize and analyze stages.
#include <gtest/gtest.h>

#include "base/path_text.h"
#include "base/this_process.h"
#include "stages/builtin.h"
#include "stages/save_options.h"
#include "config/project.h"
#include "graph/key.h"
#include "model/model_io.h"
#include "ort/library.h"
#include "pipeline/auto_optimize.h"
#include "pipeline/build_plan.h"
#include "pipeline/declarations.h"
#include "pipeline/manifest.h"
#include "pipeline/registry.h"
#include "store/digest.h"
#include "support/fake_pipeline.h"
#include "support/platform.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

config::ProjectConfig load(const test::TempDir& dir, const std::string& toml) {
  test::write_text(dir / "winml.toml", toml);
  return config::load_project(dir.path());
}

std::vector<std::string> ingredient_names(const graph::Node& n) {
  std::vector<std::string> out;
  for (const auto& i : n.static_ingredients) out.push_back(i.name);
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Writes the passes it was given into the output, so a test can see them.
class FakeOptimize : public pipeline::Stage {
 public:
  std::vector<std::map<std::string, bool>> calls;
  std::string implementation() const override { return "fake-optimize"; }
  pipeline::Declarations declare(const config::ModelSettings&) const override {
    return {.config = {"optimize"}, .rules = {"optimize/presets.toml"}, .values = {{"fake", "optimize"}}};
  }
  pipeline::StageResult run(const pipeline::StageContext& ctx) override {
    calls.push_back(ctx.config.optimize.passes);
    std::string text;
    for (const auto& [k, v] : ctx.config.optimize.passes) text += k + "=" + (v ? "1" : "0") + ";";
    test::write_text(ctx.output, text);
    pipeline::StageResult r;
    r.metrics["nodes_after"] = 7;
    return r;
  }
};

// Discovers one flag per round from a fixed list, reading what optimize wrote.
class FakeAnalyze : public pipeline::Stage {
 public:
  std::vector<std::string> script;  // flag discovered in round i (empty: nothing new)
  std::vector<std::string> always;  // discovered in every round
  std::vector<std::string> inputs_seen;
  std::string implementation() const override { return "fake-analyze"; }
  pipeline::Declarations declare(const config::ModelSettings&) const override {
    return {.config = {"compile.ep"}, .environment = {"FAKE_ANALYZE_ENV"}, .rules = {"ep/cpu.toml"}};
  }
  pipeline::StageResult run(const pipeline::StageContext& ctx) override {
    inputs_seen.push_back(test::read_text(ctx.input));
    test::write_text(ctx.output, "{}");
    pipeline::StageResult r;
    r.metrics["discovered_flags"] = nlohmann::json::object();
    std::size_t round = inputs_seen.size() - 1;
    // Everything found so far stays discovered, like a real analysis of a model optimized with it.
    for (std::size_t i = 0; i <= round && i < script.size(); ++i)
      if (!script[i].empty()) r.metrics["discovered_flags"][script[i]] = true;
    for (const auto& f : always) r.metrics["discovered_flags"][f] = true;
    return r;
  }
};

struct AutoRun {
  test::TempDir dir;
  config::ModelSettings config;
  std::shared_ptr<FakeOptimize> optimize = std::make_shared<FakeOptimize>();
  std::shared_ptr<FakeAnalyze> analyze = std::make_shared<FakeAnalyze>();
  pipeline::StageResult run() {
    config.build.auto_discover = true;
    test::write_text(dir / "export.onnx", "model");
    pipeline::AutoOptimizeStage stage(optimize, analyze);
    pipeline::StageContext ctx{.config = config,
                               .project_dir = dir.path(),
                               .config_file = "winml.toml",
                               .input = dir / "export.onnx",
                               .input_files = {dir / "export.onnx"},
                               .output = dir / "out" / "optimized.onnx",
                               .log_file = dir / "log"};
    fs::create_directories(dir / "out");
    return stage.run(ctx);
  }
};

}  // namespace

TEST(Plan, OneChainPerModelWithWhatEachStageReads) {
  test::TempDir dir;
  auto project = load(dir, "[[model]]\nsource = \"a.onnx\"\n[[model]]\nsource = \"b.onnx\"\nquantize = false\n");
  auto plan = pipeline::make_plan(project, stages::builtin_stages(), dir / "build");
  ASSERT_EQ(plan.graph.models, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(plan.graph.nodes.size(), 12u);
  const auto& g = plan.graph;
  std::size_t quantize_b = g.find("b", "quantize"), compile_b = g.find("b", "compile");
  EXPECT_FALSE(g.nodes[quantize_b].enabled);
  EXPECT_EQ(g.nodes[quantize_b].disabled_reason, "disabled in winml.toml:5 (quantize.enabled = false)");
  EXPECT_EQ(g.nodes[compile_b].deps, (std::vector<std::size_t>{g.find("b", "optimize")}));
  // What enters keys: the stage's declarations, code digests instead of versions.
  auto quantize_a = ingredient_names(g.nodes[g.find("a", "quantize")]);
  EXPECT_TRUE(has(quantize_a, "config:quantize.per_channel"));
  EXPECT_TRUE(has(quantize_a, "implementation"));
  EXPECT_TRUE(has(quantize_a, "config:compile.ep"));  // the target's operator table
  EXPECT_TRUE(has(quantize_a, "rules:ep/cpu.toml"));
  EXPECT_TRUE(has(quantize_a, "config:build.external_data_threshold_mib"));  // it writes models
  EXPECT_TRUE(has(quantize_a, "code:winml_quant"));
  EXPECT_FALSE(has(quantize_a, "code:winml_passes"));
  EXPECT_FALSE(has(quantize_a, "config:compile.embed"));
  EXPECT_FALSE(has(quantize_a, "tool"));
  auto export_a = ingredient_names(g.nodes[g.find("a", "export")]);
  EXPECT_EQ(export_a, (std::vector<std::string>{"implementation", "config:build.external_data_threshold_mib",
                                                "config:model.source", "code:winml_model",
                                                "code:stages/export_stages", "code:pipeline/stage"}));
  EXPECT_EQ(g.nodes[g.find("a", "export")].extra_inputs,
            (std::vector<graph::InputDecl>{{graph::InputKind::kModel, "a.onnx"}}));
  // Identical models share static digests past import.
  EXPECT_EQ(g.nodes[g.find("a", "optimize")].static_digest, g.nodes[g.find("b", "optimize")].static_digest);
}

TEST(Plan, TheAutoLoopDeclaresEverythingOptimizeAndAnalyzeDeclare) {
  test::TempDir dir;
  auto project = load(dir, "[model]\nsource = \"a.onnx\"\n[build]\nauto = true\n");
  auto plan = pipeline::make_plan(project, stages::builtin_stages(), dir / "build");
  const auto& g = plan.graph;
  auto names = ingredient_names(g.nodes[g.find("a", "optimize")]);
  for (const auto& n : ingredient_names(g.nodes[g.find("a", "analyze")])) {
    if (n == "implementation") continue;
    EXPECT_TRUE(has(names, n)) << n;
  }
  EXPECT_TRUE(has(names, "rules:optimize/presets.toml"));  // optimize's and analyze's
  EXPECT_TRUE(has(names, "config:build.external_data_threshold_mib"));
  EXPECT_TRUE(has(names, "config:build.max_auto_iterations"));
  EXPECT_TRUE(has(names, "code:pipeline/auto_optimize"));
  // The wrapper merges, it does not pick: fakes with disjoint declarations.
  auto merged = pipeline::AutoOptimizeStage(std::make_shared<FakeOptimize>(), std::make_shared<FakeAnalyze>())
                    .declare(project.models[0]);
  EXPECT_EQ(merged.rules, (std::vector<std::string>{"optimize/presets.toml", "ep/cpu.toml"}));
  EXPECT_EQ(merged.environment, (std::vector<std::string>{"FAKE_ANALYZE_ENV"}));
  EXPECT_EQ(merged.values, (std::map<std::string, std::string>{{"fake", "optimize"}}));
  EXPECT_EQ(merged.config_keys(),
            (std::vector<std::string>{"build.auto", "build.max_auto_iterations", "compile.ep", "optimize"}));
}

TEST(Plan, AStageSeesOnlyWhatItDeclared) {
  test::TempDir dir;
  auto project = load(dir, "[model]\nsource = \"a.onnx\"\n[quantize]\nsamples = 3\n[compile]\nembed = true\n");
  pipeline::Declarations d{.config = {"quantize", "compile.ep"}, .rules = {"ep/cpu.toml"}};
  auto view = [&] {
    test::ScopedEnvironment env;
    env.set("WINML_TEST_UNDECLARED", "x");
    return pipeline::declared_view(d, project.models[0]);
  }();
  EXPECT_EQ(view.config.quantize.samples, 3);
  EXPECT_EQ(view.config.compile.ep, "cpu");
  EXPECT_FALSE(view.config.compile.embed);                      // not declared: empty, not the project's value
  EXPECT_EQ(view.config.build.external_data_threshold_mib, 0);  // not declared: empty, not the default
  EXPECT_EQ(view.config.model.source, "");
  EXPECT_TRUE(view.environment.empty());
  EXPECT_TRUE(view.rules.read("ep/cpu.toml"));
  EXPECT_FALSE(view.rules.read("ep/qnn.toml"));  // shipped, but not declared
  EXPECT_EQ(view.rules.list("ep", ".toml"), (std::vector<std::string>{"ep/cpu.toml"}));
  // Inside the stage's scope, every library reading rules sees the same.
  {
    rules::Scope scope(view.rules);
    EXPECT_FALSE(rules::active().read("optimize/presets.toml"));
  }
  EXPECT_TRUE(rules::active().read("optimize/presets.toml"));
  // A model-writing stage without the declaration cannot get save options.
  pipeline::StageContext ctx{
      .config = view.config, .project_dir = dir.path(), .config_file = "winml.toml", .output = dir / "out.onnx"};
  EXPECT_THROW(stages::save_options(ctx), std::logic_error);
}

TEST(Plan, StoredFormRoundTrips) {
  test::TempDir dir;
  auto project = load(dir,
                      "[model]\nname = \"m\"\n[export]\ncommand = [\"sh\", \"x.sh\", \"{output}\"]\n"
                      "inputs = [\"x.sh\", \"data/**\"]\nenv = [\"FLAVOR\"]\n[build]\nauto = true\njobs = 3\n");
  auto plan = pipeline::make_plan(project, stages::builtin_stages(), dir / "out");
  plan.memo_key = store::digest_of("key");
  auto back = pipeline::parse_plan(pipeline::serialize_plan(plan));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->memo_key, plan.memo_key);
  EXPECT_EQ(back->output_dir, plan.output_dir);
  EXPECT_EQ(back->build.jobs, 3);
  EXPECT_TRUE(back->build.auto_discover);
  EXPECT_EQ(back->env_names, (std::vector<std::string>{"FLAVOR"}));
  ASSERT_EQ(back->graph.nodes.size(), plan.graph.nodes.size());
  for (std::size_t i = 0; i < plan.graph.nodes.size(); ++i) {
    const auto &a = plan.graph.nodes[i], &b = back->graph.nodes[i];
    EXPECT_EQ(a.id(), b.id());
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.static_digest, b.static_digest);
    EXPECT_EQ(a.deps, b.deps);
    EXPECT_EQ(a.extra_inputs, b.extra_inputs);
    EXPECT_EQ(a.enabled, b.enabled);
  }
  EXPECT_EQ(back->graph.nodes[1].kind, "optimize.auto");
  // A flipped byte makes the stored plan unusable rather than wrong.
  std::string text = pipeline::serialize_plan(plan);
  text[text.size() / 2] ^= 1;
  EXPECT_FALSE(pipeline::parse_plan(text));
}

TEST(Plan, TheStoredFormKeepsEveryBuildKey) {
  // Every [build] key other than its default: a key the stored plan dropped
  // would read as its default in every build that reuses the plan.
  nlohmann::json others = nlohmann::json::object();
  for (const auto& k : config::build_schema()->keys()) {
    nlohmann::json v = k.alternative;
    if (v.is_null() && k.type == config::ValueType::kBool) v = !k.default_value.get<bool>();
    if (v.is_null() && k.type == config::ValueType::kInt) v = k.default_value.get<std::int64_t>() + 1;
    ASSERT_FALSE(v.is_null()) << k.name << ": no other value";
    others[k.name] = v;
  }
  pipeline::BuildPlan plan;
  plan.build = config::build_schema()->read(others);
  ASSERT_EQ(config::build_schema()->write(plan.build), others);
  auto back = pipeline::parse_plan(pipeline::serialize_plan(plan));
  ASSERT_TRUE(back);
  EXPECT_EQ(config::build_schema()->write(back->build), others);
}

TEST(Plan, MemoKeyFollowsTheConfigFileAndTheEnvironment) {
  test::TempDir dir;
  test::write_text(dir / "winml.toml", "[model]\nsource = \"a.onnx\"\n");
  store::StatCache stats(store::real_disk(), dir.path());
  pipeline::PlanSource src{dir.path(), dir / "winml.toml", {}};
  auto k1 = pipeline::plan_memo_key(src, stages::builtin_stages(), stats, {"WINML_TEST_FLAVOR"});
  EXPECT_EQ(k1, pipeline::plan_memo_key(src, stages::builtin_stages(), stats, {"WINML_TEST_FLAVOR"}));
  auto k2 = [&] {
    test::ScopedEnvironment env;
    env.set("WINML_TEST_FLAVOR", "x");
    return pipeline::plan_memo_key(src, stages::builtin_stages(), stats, {"WINML_TEST_FLAVOR"});
  }();
  EXPECT_NE(k1, k2);
  test::write_text(dir / "winml.toml", "[model]\nsource = \"b.onnx\"\n");
  EXPECT_NE(k1, pipeline::plan_memo_key(src, stages::builtin_stages(), stats, {"WINML_TEST_FLAVOR"}));
  test::write_text(dir / "winml.toml", "[model]\nsource = \"a.onnx\"\n");
  test::write_text(dir / "rules" / "ep" / "custom.toml", "[ep]\nname = \"custom\"\n");  // an overlay
  EXPECT_NE(k1, pipeline::plan_memo_key(src, stages::builtin_stages(), stats, {"WINML_TEST_FLAVOR"}));
}

TEST(Plan, MemoKeyFollowsTheFilesStagesProbed) {
  test::TempDir dir;
  test::write_text(dir / "winml.toml", "[model]\nsource = \"a.onnx\"\n");
  test::write_text(dir / "lib.so", "one");
  store::StatCache stats(store::real_disk(), dir.path());
  pipeline::PlanSource src{dir.path(), dir / "winml.toml", {}};
  const std::vector<std::string> probed = {(dir / "lib.so").string()};
  auto k1 = pipeline::plan_memo_key(src, stages::builtin_stages(), stats, {}, probed);
  EXPECT_EQ(k1, pipeline::plan_memo_key(src, stages::builtin_stages(), stats, {}, probed));
  EXPECT_NE(k1, pipeline::plan_memo_key(src, stages::builtin_stages(), stats, {}, {}));
  test::write_text(dir / "lib.so", "another library");
  EXPECT_NE(k1, pipeline::plan_memo_key(src, stages::builtin_stages(), stats, {}, probed));
  fs::remove(dir / "lib.so");
  EXPECT_NE(k1, pipeline::plan_memo_key(src, stages::builtin_stages(), stats, {}, probed));
}

// [export] weights naming torchvision's pretrained weights: the checkpoint
// in torch's cache is an input named for what it is, not where it is; the
// variables that place it, and the file itself, remake the plan.
TEST(Plan, PretrainedWeightsDeclareTheirCheckpointByName) {
  test::TempDir dir, torch_home;
  test::ScopedEnvironment env;
  env.set("TORCH_HOME", torch_home.path().string());
  const std::string toml = "[export]\ntorchvision = \"squeezenet1_1\"\nweights = \"DEFAULT\"\n";
  const fs::path checkpoint = torch_home / "hub" / "checkpoints" / "squeezenet1_1-b8a52dc0.pth";

  auto plan = pipeline::make_plan(load(dir, toml), stages::builtin_stages(), dir / "build");
  const graph::Node* exporting = &plan.graph.nodes[plan.graph.find("squeezenet1_1", "export")];
  EXPECT_NE(exporting->cannot_run.find(to_utf8(checkpoint) + ": no such file"), std::string::npos)
      << exporting->cannot_run;
  EXPECT_TRUE(exporting->extra_inputs.empty());
  EXPECT_TRUE(has(plan.plan_files, to_utf8(checkpoint)));
  std::vector<std::string> placing = {"TORCH_HOME", "XDG_CACHE_HOME"};
  placing.insert(placing.end(), home_directory_variables().begin(), home_directory_variables().end());
  for (const auto& name : placing) EXPECT_TRUE(has(plan.env_names, name)) << name;

  test::write_text(checkpoint, "a checkpoint");
  plan = pipeline::make_plan(load(dir, toml), stages::builtin_stages(), dir / "build");
  exporting = &plan.graph.nodes[plan.graph.find("squeezenet1_1", "export")];
  EXPECT_EQ(exporting->cannot_run, "");
  EXPECT_EQ(exporting->extra_inputs,
            (std::vector<graph::InputDecl>{{graph::InputKind::kFile, to_utf8(checkpoint),
                                            "$TORCH_HOME/hub/checkpoints/squeezenet1_1-b8a52dc0.pth"}}));
  EXPECT_TRUE(has(ingredient_names(*exporting), "rules:export/torchvision_weights.toml"));
  EXPECT_TRUE(has(ingredient_names(*exporting), "rules:export/torchvision_export.py"));
  // Where the file is does not enter the key (the path is the plan's).
  for (const auto& name : ingredient_names(*exporting)) EXPECT_EQ(name.find("TORCH_HOME"), std::string::npos) << name;
  // The stored plan keeps the name.
  plan.memo_key = store::digest_of("key");
  auto back = pipeline::parse_plan(pipeline::serialize_plan(plan));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->graph.nodes[plan.graph.find("squeezenet1_1", "export")].extra_inputs, exporting->extra_inputs);
}

TEST(Plan, AnOrtBackendDeclaresWhatOnnxRuntimeReports) {
  // The default library is the one this build fetched (<cache>/1.29.0/<library in the cache>),
  // wherever this system's default cache is.
  test::ScopedEnvironment env;
  env.set("WINML_ORT_CACHE", to_utf8(fs::path(WINML_ORT_LIBRARY_1_29).parent_path().parent_path().parent_path()));
  test::TempDir dir;
  auto project = load(dir, "[model]\nsource = \"a.onnx\"\n[compile]\nep = \"cpu\"\nbackend = \"ort\"\n");
  auto plan = pipeline::make_plan(project, stages::builtin_stages(), dir / "out");
  const std::string library = to_utf8(ort::default_library_path());
  EXPECT_EQ(plan.plan_files, (std::vector<std::string>{library}));
  for (const auto& name : ort::default_library_environment())
    EXPECT_NE(std::find(plan.env_names.begin(), plan.env_names.end(), name), plan.env_names.end()) << name;
  const auto& compile = plan.graph.nodes[plan.graph.find("a", "compile")];
  std::map<std::string, std::string> values;
  for (const auto& i : compile.static_ingredients)
    if (i.name.starts_with("value:")) values[i.name.substr(6)] = i.text;
  EXPECT_EQ(values["onnxruntime.version"], "1.29.0");
  EXPECT_EQ(values["onnxruntime.library"], store::hash_file(library).hex());
  EXPECT_EQ(values["ep.name"], "CPUExecutionProvider");
  EXPECT_EQ(values["ep.vendor"], "Microsoft");
  EXPECT_EQ(values["ep.version"], "1.29.0");
  EXPECT_EQ(values.count("ep.library"), 0u);  // built into ORT
  auto back = pipeline::parse_plan(pipeline::serialize_plan(plan));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->plan_files, plan.plan_files);
}

namespace {

// A project from TOML text and -D/flag arguments, read without a disk.
config::ProjectConfig project_from_text(const std::string& toml, const std::vector<std::string>& defines = {}) {
  return config::load_project("/fake/project", "/fake/project/winml.toml", defines,
                              [&](const fs::path&) -> std::optional<std::string> { return toml; });
}

// The disabled nodes' reasons, by id.
std::map<std::string, std::string> disabled_reasons(const pipeline::BuildPlan& plan) {
  std::map<std::string, std::string> out;
  for (const auto& n : plan.graph.nodes)
    if (!n.enabled) out[n.id()] = n.disabled_reason;
  return out;
}

pipeline::StageRegistry fake_stage_registry(bool with_analyze = true) {
  pipeline::StageRegistry r;
  test::register_fake_stages(r, with_analyze);
  return r;
}

// A stage that must not be asked: a disabled node declares nothing.
class NeverDeclared : public test::DeclaringStage {
 public:
  NeverDeclared() : DeclaringStage({}) {}
  pipeline::Declarations declare(const config::ModelSettings& c) const override {
    ADD_FAILURE() << "declare() called for " << c.model.name;
    return {};
  }
};

}  // namespace

TEST(Plan, ADisabledStageSaysWhichLineOfTheConfigSwitchedItOff) {
  auto project = project_from_text(
      "[quantize]\n"           // 1
      "enabled = false\n"      // 2
      "[[model]]\n"            // 3
      "source = \"a.onnx\"\n"  // 4
      "[[model]]\n"            // 5
      "source = \"b.onnx\"\n"  // 6
      "compile = false\n"      // 7
      "[model.optimize]\n"     // 8
      "enabled = false\n");    // 9
  auto plan = pipeline::make_plan(project, fake_stage_registry(), "/fake/project/build");
  EXPECT_EQ(disabled_reasons(plan),
            (std::map<std::string, std::string>{
                {"a/quantize", "disabled in winml.toml:2 (quantize.enabled = false)"},
                {"b/compile", "disabled in winml.toml:7 (compile.enabled = false)"},
                {"b/optimize", "disabled in winml.toml:9 (optimize.enabled = false)"},
                {"b/quantize", "disabled in winml.toml:2 (quantize.enabled = false)"}}));
}

TEST(Plan, AFlagOrADefineThatSwitchedAStageOffIsNamedAsTyped) {
  const std::string toml = "[model]\nsource = \"a.onnx\"\nquantize = false\n";
  auto plan = pipeline::make_plan(
      project_from_text(toml, {"--no-quant", "compile.enabled=false", "model.optimize.enabled=false"}), fake_stage_registry(),
      "/fake/project/build");
  EXPECT_EQ(disabled_reasons(plan), (std::map<std::string, std::string>{
                                        {"a/compile", "disabled by -D compile.enabled=false"},
                                        {"a/optimize", "disabled by -D model.optimize.enabled=false"},
                                        {"a/quantize", "disabled by --no-quant"}}))
      << "a flag wins over the file's own line";
  // And a define switches back on what the file switched off.
  plan = pipeline::make_plan(project_from_text(toml, {"quantize.enabled=true"}), fake_stage_registry(), "/fake/project/build");
  EXPECT_TRUE(disabled_reasons(plan).empty());
}

TEST(Plan, SettingsMadeWithoutAFileSayTheConfigSwitchedAStageOff) {
  config::ProjectConfig project;
  project.project_dir = "/fake/project";
  config::ModelSettings m;
  m.model.name = "m";
  m.model.source = "m.onnx";
  m.compile.enabled = false;
  project.models.push_back(m);
  auto plan = pipeline::make_plan(project, fake_stage_registry(), "/fake/project/build");
  EXPECT_EQ(disabled_reasons(plan),
            (std::map<std::string, std::string>{{"m/compile", "disabled in config (compile.enabled = false)"}}));
}

TEST(Plan, WithoutAnAnalyzeImplementationAnalyzeIsSkippedAndTheChainGoesOn) {
  auto plan = pipeline::make_plan(project_from_text("[model]\nsource = \"a.onnx\"\n"), fake_stage_registry(/*with_analyze=*/false),
                                  "/fake/project/build");
  EXPECT_EQ(disabled_reasons(plan),
            (std::map<std::string, std::string>{{"a/analyze", "no analyze implementation in this build"}}));
  const auto& g = plan.graph;
  EXPECT_EQ(g.nodes[g.find("a", "quantize")].deps, (std::vector<std::size_t>{g.find("a", "optimize")}));
}

TEST(Plan, AnEnabledStageCarriesNoDisabledReasonIntoTheStoredPlan) {
  auto plan = pipeline::make_plan(project_from_text("[model]\nsource = \"a.onnx\"\nquantize = false\n"),
                                  fake_stage_registry(), "/fake/project/build");
  auto back = pipeline::parse_plan(pipeline::serialize_plan(plan));
  ASSERT_TRUE(back);
  for (const auto* p : {&plan, &*back})
    for (const auto& n : p->graph.nodes) EXPECT_EQ(n.disabled_reason.empty(), n.enabled) << n.id() << ": " << n.disabled_reason;
}

TEST(Plan, ADisabledStageIsLeftOutOfTheChainAndNeverAskedToDeclare) {
  auto registry = fake_stage_registry();
  registry.set("quantize", std::make_shared<NeverDeclared>());
  auto plan = pipeline::make_plan(
      project_from_text("[model]\nsource = \"a.onnx\"\nquantize = false\n[optimize]\nenabled = false\n"), registry,
      "/fake/project/build");
  const auto& g = plan.graph;
  const std::size_t exported = g.find("a", "export"), quantize = g.find("a", "quantize");
  // optimize and quantize are off: analyze and compile read the export.
  EXPECT_EQ(g.nodes[g.find("a", "analyze")].deps, (std::vector<std::size_t>{exported}));
  EXPECT_EQ(g.nodes[g.find("a", "compile")].deps, (std::vector<std::size_t>{exported}));
  EXPECT_EQ(g.nodes[g.find("a", "package")].deps, (std::vector<std::size_t>{g.find("a", "compile")}));
  EXPECT_TRUE(g.nodes[quantize].static_ingredients.empty());
  EXPECT_EQ(g.nodes[quantize].implementation, "");
  EXPECT_EQ(plan.contexts.nodes[quantize], pipeline::DeclaredContext{});
  EXPECT_NE(plan.contexts.nodes[g.find("a", "compile")], pipeline::DeclaredContext{});
}

TEST(AutoLoop, ReoptimizesTheOriginalUntilNothingNewIsFound) {
  AutoRun a;
  a.analyze->script = {"fuse_gelu", "fuse_layer_norm", ""};
  auto r = a.run();
  EXPECT_EQ(r.metrics["analyze_iterations"], 3);
  EXPECT_EQ(r.metrics["discovered_flags"], (nlohmann::json{{"fuse_gelu", true}, {"fuse_layer_norm", true}}));
  EXPECT_EQ(r.metrics["nodes_after"], 7);  // the optimize stage's own metrics are kept
  ASSERT_EQ(a.optimize->calls.size(), 3u);
  EXPECT_TRUE(a.optimize->calls[0].empty());
  EXPECT_EQ(a.optimize->calls[2], (std::map<std::string, bool>{{"fuse_gelu", true}, {"fuse_layer_norm", true}}));
  // The final output is what one optimize with the recorded flags writes.
  EXPECT_EQ(test::read_text(a.dir / "out" / "optimized.onnx"), "fuse_gelu=1;fuse_layer_norm=1;");
  EXPECT_FALSE(fs::exists(a.dir / "out" / ".winml-tmp.analyze"));
}

TEST(AutoLoop, ExplicitPassesWinAndTheBoundIsRespected) {
  AutoRun a;
  a.config.optimize.passes = {{"fuse_gelu", false}};
  a.config.build.max_auto_iterations = 2;
  a.analyze->always = {"fuse_gelu"};
  a.analyze->script = {"fold_constants", "fuse_layer_norm", "eliminate_identity"};
  auto r = a.run();
  EXPECT_EQ(r.metrics["analyze_iterations"], 2);
  // fuse_gelu stays off (explicit); fold_constants applied; fuse_layer_norm found in the last allowed round.
  EXPECT_EQ(r.metrics["discovered_flags"], (nlohmann::json{{"fold_constants", true}}));
  EXPECT_EQ(r.metrics["unapplied_flags"], (nlohmann::json{{"fuse_layer_norm", true}}));
  EXPECT_EQ(test::read_text(a.dir / "out" / "optimized.onnx"), "fold_constants=1;fuse_gelu=0;");
  // The replayable config holds exactly what was applied, with auto off.
  auto text = pipeline::build_config_text(a.config, r.metrics["discovered_flags"]);
  auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["build"]["auto"], false);
  EXPECT_EQ(j["optimize"]["fold_constants"], true);  // pass flags sit in [optimize] itself
  EXPECT_EQ(j["optimize"]["fuse_gelu"], false);
  EXPECT_FALSE(j["optimize"].contains("fuse_layer_norm"));
}

TEST(AutoLoop, WithoutAnAnalyzerOptimizesOnceAndDiscoversNothing) {
  AutoRun a;
  pipeline::AutoOptimizeStage stage(a.optimize, nullptr);
  EXPECT_EQ(stage.implementation(), "fake-optimize+auto(no analyze)");
  a.analyze = nullptr;
  a.config.build.auto_discover = true;
  test::write_text(a.dir / "export.onnx", "model");
  fs::create_directories(a.dir / "out");
  pipeline::StageContext ctx{.config = a.config,
                             .project_dir = a.dir.path(),
                             .config_file = "winml.toml",
                             .input = a.dir / "export.onnx",
                             .input_files = {a.dir / "export.onnx"},
                             .output = a.dir / "out" / "optimized.onnx",
                             .log_file = a.dir / "log"};
  auto r = stage.run(ctx);
  EXPECT_EQ(r.metrics["analyze_iterations"], 0);
  EXPECT_EQ(r.metrics["discovered_flags"], nlohmann::json::object());
  EXPECT_EQ(a.optimize->calls.size(), 1u);
}
