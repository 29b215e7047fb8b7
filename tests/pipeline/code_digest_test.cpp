// Code digests in keys: what src/pipeline/code_digest.cmake computes when the
// tool is built, run here on an edited copy of the sources, changes exactly
// the units that contain the edited file, and through the declarations
// exactly the keys of the stages that run that code.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "stages/builtin.h"
#include "config/project.h"
#include "pipeline/build_plan.h"
#include "pipeline/registry.h"
#include "support/cli_runner.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

using Digests = std::map<std::string, std::string>;

// Runs the build's script over `root` (a src/ tree) and reads its table.
Digests run_script(const fs::path& root, const test::TempDir& work) {
  const fs::path out = work / "digests.cpp";
  auto r = test::run_program({WINML_CMAKE_COMMAND, "-DROOT=" + root.string(), "-DUNITS=" WINML_CODE_UNITS_FILE,
                              "-DOUT=" + out.string(), "-P",
                              (test::source_dir() / "src/pipeline/code_digest.cmake").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  Digests d;
  std::regex entry(R"re(\{"([^"]+)", "([0-9a-f]{32})", (true|false)\})re");
  const std::string text = test::read_text(out);
  for (std::sregex_iterator it(text.begin(), text.end(), entry), end; it != end; ++it) d[(*it)[1]] = (*it)[2];
  return d;
}

// A copy of every file the units list, under `dest`.
void copy_sources(const fs::path& dest) {
  std::ifstream in(WINML_CODE_UNITS_FILE);
  for (std::string line; std::getline(in, line);) {
    const std::string rel = line.substr(line.find('|') + 1);
    fs::create_directories((dest / rel).parent_path());
    fs::copy_file(test::source_dir() / "src" / rel, dest / rel, fs::copy_options::overwrite_existing);
  }
}

std::set<std::string> changed(const Digests& a, const Digests& b) {
  std::set<std::string> out;
  for (const auto& [unit, d] : a)
    if (!b.count(unit) || b.at(unit) != d) out.insert(unit);
  return out;
}

// Stage -> its code units, from the key ingredients of a real plan.
std::map<std::string, std::set<std::string>> units_by_stage() {
  test::TempDir dir;
  test::write_text(dir / "winml.toml", "[model]\nsource = \"m.onnx\"\n");
  auto plan = pipeline::make_plan(config::load_project(dir.path()), stages::builtin_stages(), dir / "build");
  std::map<std::string, std::set<std::string>> out;
  for (const auto& n : plan.graph.nodes)
    for (const auto& i : n.static_ingredients)
      if (i.name.rfind("code:", 0) == 0) out[n.name].insert(i.name.substr(5));
  return out;
}

std::set<std::string> stages_affected(const std::set<std::string>& units) {
  std::set<std::string> out;
  for (const auto& [stage, own] : units_by_stage())
    for (const auto& u : units)
      if (own.count(u)) out.insert(stage);
  return out;
}

// The stages whose key holds the machine's arithmetic (value:runtime.arithmetic).
std::set<std::string> stages_keyed_by_arithmetic() {
  test::TempDir dir;
  test::write_text(dir / "winml.toml", "[model]\nsource = \"m.onnx\"\n");
  auto plan = pipeline::make_plan(config::load_project(dir.path()), stages::builtin_stages(), dir / "build");
  std::set<std::string> out;
  for (const auto& n : plan.graph.nodes)
    for (const auto& i : n.static_ingredients)
      if (i.name == "value:runtime.arithmetic") out.insert(n.name);
  return out;
}

void append_comment(const fs::path& file) { std::ofstream(file, std::ios::app) << "\n// an edit\n"; }

}  // namespace

TEST(CodeDigest, TheBinaryCarriesWhatTheScriptComputesOnTheseSources) {
  test::TempDir work;
  Digests script = run_script(test::source_dir() / "src", work);
  ASSERT_GT(script.size(), 10u);
  auto v = test::run_cli({"--version"});
  ASSERT_EQ(v.exit_code, 0);
  for (const auto& [unit, digest] : script) EXPECT_NE(v.out.find(unit), std::string::npos) << unit;
  for (const auto& [unit, digest] : script) {
    std::regex line("\\n  " + std::regex_replace(unit, std::regex("[/.]"), "\\$&") + " +" + digest);
    EXPECT_TRUE(std::regex_search(v.out, line)) << unit << " " << digest << "\n" << v.out;
  }
}

TEST(CodeDigest, EditingTheQuantizerChangesOnlyQuantizesKey) {
  test::TempDir work;
  copy_sources(work / "src");
  const Digests before = run_script(work / "src", work);
  EXPECT_EQ(before, run_script(test::source_dir() / "src", work));  // where the sources live does not matter
  append_comment(work / "src" / "quant" / "quantize.cpp");
  const auto units = changed(before, run_script(work / "src", work));
  EXPECT_EQ(units, (std::set<std::string>{"winml_quant"}));
  EXPECT_EQ(stages_affected(units), (std::set<std::string>{"quantize"}));
}

TEST(CodeDigest, EditingAPassChangesOptimizeAndAnalyzeButNotExport) {
  test::TempDir work;
  copy_sources(work / "src");
  const Digests before = run_script(work / "src", work);
  append_comment(work / "src" / "passes" / "fold_constants.cpp");
  const auto units = changed(before, run_script(work / "src", work));
  EXPECT_EQ(units, (std::set<std::string>{"winml_analyze", "winml_passes"}));
  EXPECT_EQ(stages_affected(units), (std::set<std::string>{"analyze", "optimize"}));
}

TEST(CodeDigest, EditingAKernelChangesEveryStageThatRunsTheRuntime) {
  test::TempDir work;
  copy_sources(work / "src");
  const Digests before = run_script(work / "src", work);
  append_comment(work / "src" / "runtime" / "kernels" / "conv.cpp");
  const auto units = changed(before, run_script(work / "src", work));
  EXPECT_TRUE(units.count("winml_runtime"));
  EXPECT_FALSE(units.count("winml_model"));
  EXPECT_EQ(stages_affected(units), (std::set<std::string>{"analyze", "compile", "optimize", "quantize"}));
  // The same stages are keyed by the machine's arithmetic, derived from
  // their code units: none declares it.
  EXPECT_EQ(stages_keyed_by_arithmetic(), stages_affected(units));
}

TEST(CodeDigest, EditingAStageChangesThatStageAlone) {
  test::TempDir work;
  copy_sources(work / "src");
  const Digests before = run_script(work / "src", work);
  append_comment(work / "src" / "stages" / "compile_stage.h");
  const auto units = changed(before, run_script(work / "src", work));
  EXPECT_EQ(units, (std::set<std::string>{"stages/compile_stage"}));
  EXPECT_EQ(stages_affected(units), (std::set<std::string>{"compile"}));
}
