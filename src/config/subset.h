// The part of a model's configuration a stage declared: what its context
// holds, so that a stage can only read values that are in its key.
#pragma once

#include <string>
#include <vector>

#include "config/config.h"

namespace winml::config {

// A copy of `full` holding only `keys` (a whole section, "quantize", or one
// key, "compile.ep"); every other key is empty (false, 0, "", [], {}, unset)
// rather than its default, so an undeclared read shows. std::logic_error for
// a key the schema does not know.
ModelSettings only_keys(const ModelSettings& full, const std::vector<std::string>& keys);

// Canonical JSON (to_json) back into a typed config.
ModelSettings from_json(const json& canonical);

}  // namespace winml::config
