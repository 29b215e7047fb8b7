#include "ort_ep/plugin_checks.h"

#include <gtest/gtest.h>

namespace winml::test {

namespace fs = std::filesystem;

void expect_plugin_matches_cpu(const fs::path& model, const fs::path& work,
                               const std::map<std::string, model::TensorFile>& feeds, double tolerance,
                               const std::vector<fs::path>& compiled_elsewhere, const HarnessOptions& options,
                               bool compile_with_ort) {
  HarnessOptions cpu;
  auto want = run_harness(cpu, run_action(model, work / "cpu"), feeds);
  ASSERT_EQ(want.exit_code, 0) << want.err;
  HarnessOptions plugin = options;
  plugin.plugin = true;
  std::vector<fs::path> compiled;
  if (compile_with_ort) compiled = {work / "ort_bin" / "compiled.onnx", work / "ort_embed" / "compiled.onnx"};
  for (std::size_t k = 0; k < compiled.size(); ++k) {
    fs::create_directories(compiled[k].parent_path());
    auto c = compile_with_plugin(model, compiled[k], k == 1, plugin);
    ASSERT_EQ(c.exit_code, 0) << c.err;
  }
  compiled.insert(compiled.end(), compiled_elsewhere.begin(), compiled_elsewhere.end());
  for (OrtVersion v : {OrtVersion::k1_29, OrtVersion::k1_30}) {
    plugin.ort = v;
    std::vector<std::string> actions;
    for (std::size_t k = 0; k < compiled.size(); ++k) {
      auto a = run_action(compiled[k], work / "runs" / ort_version_name(v) / std::to_string(k));
      actions.insert(actions.end(), a.begin(), a.end());
    }
    auto runs = run_harness(plugin, actions, feeds);
    ASSERT_EQ(runs.exit_code, 0) << runs.err;
    ASSERT_EQ(runs.runs.size(), compiled.size());
    for (std::size_t k = 0; k < compiled.size(); ++k)
      for (const auto& [name, w] : want.outputs) {
        ASSERT_TRUE(runs.runs[k].count(name)) << compiled[k] << ": output " << name;
        EXPECT_LE(span_relative_diff(runs.runs[k].at(name), w), tolerance)
            << compiled[k] << " in ORT " << runs.ort_version << ": output " << name;
      }
  }
}

}  // namespace winml::test
