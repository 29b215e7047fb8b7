// -D section.key=value: settings given on the command line, applied to the
// configuration document before it is validated, so they are typed, checked
// and hashed exactly as if they were in the file (and recorded in
// winml_build_config.json with the rest).
#pragma once

#include <string>
#include <vector>

#include "config/document.h"

namespace winml::config {

// Flags that stand for a -D. They reach apply_overrides as themselves
// ("--no-quant"), so that what they set is named after them: "quantize
// disabled by --no-quant", not by a -D the user never typed.
struct ShorthandFlag {
  const char* flag;    // "--no-quant"
  const char* define;  // "quantize.enabled=false"
  const char* help;
};
inline constexpr ShorthandFlag kShorthandFlags[] = {
    {"--no-quant", "quantize.enabled=false", "Skip the quantize stage (same as -D quantize.enabled=false)"},
    {"--no-compile", "compile.enabled=false", "Skip the compile stage (same as -D compile.enabled=false)"},
    {"--no-validate", "compile.validate=false",
     "Do not run the compiled model to validate it (same as -D compile.validate=false)"}};

// Applies each "path=value" (or a shorthand flag) in order: `path` is a dotted key path
// ("quantize.samples", "model.dims.batch"); `value` is a JSON literal
// (8, 0.5, true, [0.0, 1.0], {"batch": 1}, "text") or else a bare string.
// A stage section's key is set at the top level and in every model that sets
// it too, so that it wins everywhere; a model key is set in every model.
// InputError naming the argument when it has no '=' or no section.
void apply_overrides(Document& doc, const std::vector<std::string>& defines);

}  // namespace winml::config
