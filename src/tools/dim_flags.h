// `--dim NAME=VALUE` (repeatable), shared by run, quantize and compile: values
// for symbolic input dimensions, like [model] dims in a project.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace winml::tools {

// InputError naming the flag for anything but NAME=VALUE with a non-negative
// integer VALUE (0 is a valid, empty, dimension).
std::map<std::string, std::int64_t> parse_dim_flags(const std::vector<std::string>& flags);

}  // namespace winml::tools
