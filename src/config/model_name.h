// Model names become folder names under the output directory, so every name,
// however it was obtained (`[model] name`, a source file's stem, a
// torchvision model, the project directory), passes this one check: a single
// plain path component that cannot reach outside the output directory.
#pragma once

#include <cstddef>
#include <string>

namespace winml::config {

inline constexpr std::size_t kMaxModelNameLength = 100;

// Why `name` cannot be a model name, or "" when it can.
std::string model_name_problem(const std::string& name);

// A name made from a file or directory name: characters a name may not hold
// become '_' (the result still goes through model_name_problem).
std::string model_name_from(const std::string& stem);

}  // namespace winml::config
