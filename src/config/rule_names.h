// Names that config keys accept but that are defined by data in rules/:
// execution providers (rules/ep/*.toml) and optimization passes and levels
// (rules/optimize/presets.toml).
#pragma once

#include <string>
#include <vector>

namespace winml::config {

std::vector<std::string> ep_names();
// `default_device` in the [ep] header of rules/ep/<ep>.toml ("" when absent
// or unreadable: the stages that read the table report it).
std::string ep_default_device(const std::string& ep);
std::vector<std::string> optimization_levels();
std::vector<std::string> optimization_pass_names();
// Passes a level turns on, in the order the preset lists them.
std::vector<std::string> optimization_level_passes(const std::string& level);

}  // namespace winml::config
