#include "config/config.h"
#include "config/rule_names.h"

namespace winml::config {

std::shared_ptr<const Section<OptimizeConfig>> optimize_schema() {
  static auto s = [] {
    auto s = std::make_shared<Section<OptimizeConfig>>(
        "optimize",
        "Graph optimization. A level preset (rules/optimize/presets.toml) plus per-pass booleans "
        "that override it, e.g. `fuse_gelu = true`.");
    s->key("enabled", &OptimizeConfig::enabled, ValueType::kBool,
           "Run the optimize stage; `optimize = false` at the top level is the same.");
    auto& l = s->key("level", &OptimizeConfig::level, ValueType::kString, "Preset of passes.");
    l.dynamic_choices = optimization_levels;
    s->dynamic_bools(&OptimizeConfig::passes, optimization_pass_names,
                     "Turn one optimization pass on or off, overriding the level (pass names: "
                     "rules/optimize/presets.toml).");
    return s;
  }();
  return s;
}

}  // namespace winml::config
