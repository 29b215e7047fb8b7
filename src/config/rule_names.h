// Names that config keys accept but that are defined by data in rules/: the
// optimization passes and levels of rules/optimize/presets.toml. (Execution
// providers are the tables of rules/ep, read by ep/ep_table.h.)
#pragma once

#include <string>
#include <vector>

namespace winml::config {

std::vector<std::string> optimization_levels();
std::vector<std::string> optimization_pass_names();
// Passes a level turns on, in the order the preset lists them.
std::vector<std::string> optimization_level_passes(const std::string& level);

}  // namespace winml::config
