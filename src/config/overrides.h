// -D section.key=value: settings given on the command line, applied to the
// configuration document before it is validated, so they are typed, checked
// and hashed exactly as if they were in the file (and recorded in
// winml_build_config.json with the rest).
#pragma once

#include <string>
#include <vector>

#include "config/document.h"

namespace winml::config {

// Applies each "path=value" in order: `path` is a dotted key path
// ("quantize.samples", "model.dims.batch"); `value` is a JSON literal
// (8, 0.5, true, [0.0, 1.0], {"batch": 1}, "text") or else a bare string.
// A stage section's key is set at the top level and in every model that sets
// it too, so that it wins everywhere; a model key is set in every model.
// InputError naming the argument when it has no '=' or no section.
void apply_overrides(Document& doc, const std::vector<std::string>& defines);

}  // namespace winml::config
