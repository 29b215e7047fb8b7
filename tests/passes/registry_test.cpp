// The pass registry and rules/optimize/presets.toml name the same passes.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string_view>

#include "base/error.h"
#include "config/rule_names.h"
#include "passes/optimize.h"
#include "passes/registry.h"

using namespace winml;

TEST(PassRegistry, NamesMatchPresetsFile) {
  auto registered = passes::pass_names();
  std::sort(registered.begin(), registered.end());
  EXPECT_EQ(registered, config::optimization_pass_names())
      << "rules/optimize/presets.toml [passes] and the WINML_PASS lines of src/passes/*.cpp must name the same "
         "passes";
}

// Each pass registers itself in its own file; the generated list holds each
// once, with its own place in the pipeline (pass_registry() refuses ties).
TEST(PassRegistry, EveryRegistrationIsListedOnceInPipelineOrder) {
  const auto& listed = passes::registered_passes();
  std::set<std::string_view> names;
  for (const auto* p : listed) {
    EXPECT_TRUE(names.insert(p->name).second) << p->name << " is registered twice";
    EXPECT_NE(p->make, nullptr) << p->name;
    EXPECT_NE(p->make(), nullptr) << p->name;
  }
  const auto& pipeline = passes::pass_registry();
  ASSERT_EQ(pipeline.size(), listed.size());
  for (std::size_t i = 1; i < pipeline.size(); ++i) EXPECT_LT(pipeline[i - 1].order, pipeline[i].order);
  EXPECT_EQ(pipeline.front().name, passes::kInferShapes);
}

TEST(PassRegistry, EveryLevelNamesRegisteredPasses) {
  auto levels = config::optimization_levels();
  EXPECT_EQ(levels, (std::vector<std::string>{"basic", "extended", "none"}));
  for (const auto& level : levels)
    for (const auto& p : config::optimization_level_passes(level))
      EXPECT_NE(passes::find_pass(p), nullptr) << "level " << level << " names unknown pass " << p;
  EXPECT_TRUE(config::optimization_level_passes("none").empty());
}

TEST(PassRegistry, BasicFusesOnlyToStandardOpsAndExtendedAddsCompositeOps) {
  auto basic = passes::resolve_passes("basic", {});
  auto extended = passes::resolve_passes("extended", {});
  auto has = [](const std::vector<std::string>& v, const char* p) {
    return std::find(v.begin(), v.end(), p) != v.end();
  };
  EXPECT_FALSE(has(basic, "fuse_gelu"));
  EXPECT_FALSE(has(basic, "fuse_layer_norm"));
  EXPECT_TRUE(has(extended, "fuse_gelu"));
  EXPECT_TRUE(has(extended, "fuse_layer_norm"));
  for (const auto& p : basic) EXPECT_TRUE(has(extended, p.c_str())) << p;
}

TEST(PassRegistry, OverridesTurnPassesOnAndOffInPipelineOrder) {
  auto r = passes::resolve_passes("basic", {{"fuse_gelu", true}, {"fold_constants", false}});
  EXPECT_NE(std::find(r.begin(), r.end(), "fuse_gelu"), r.end());
  EXPECT_EQ(std::find(r.begin(), r.end(), "fold_constants"), r.end());
  // Pipeline order follows the registry, whatever order the overrides came in.
  auto names = passes::pass_names();
  std::vector<std::size_t> positions;
  for (const auto& p : r) positions.push_back(std::find(names.begin(), names.end(), p) - names.begin());
  EXPECT_TRUE(std::is_sorted(positions.begin(), positions.end()));
  EXPECT_EQ(passes::resolve_passes("none", {{"eliminate_identity", true}}),
            (std::vector<std::string>{"eliminate_identity"}));
}

TEST(PassRegistry, UnknownNamesAreInputErrors) {
  EXPECT_THROW(passes::resolve_passes("turbo", {}), InputError);
  try {
    passes::resolve_passes("basic", {{"fuse_everything", true}});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("fuse_everything"), std::string::npos);
  }
}
