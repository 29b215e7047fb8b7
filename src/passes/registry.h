// Every optimization pass, by its flag name, in pipeline order. A pass
// registers itself at the end of its own file:
//
//   WINML_PASS(fuse_gelu, 460, FuseGelu);
//
// (flag name, place in the pipeline, class). The build collects the
// WINML_PASS lines of src/passes/*.cpp into one generated list
// (pass_list.cmake), which also keeps the linker from dropping a pass's file
// out of the static library. The names are the keys of [passes] in
// rules/optimize/presets.toml, where each pass's one-line summary and the
// levels that run it live (the configuration, below this library, reads
// them there); a test keeps the two identical.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "passes/pass.h"

namespace winml::passes {

struct PassInfo {
  std::string_view name;
  // Passes run by ascending order: 1xx shapes, 2xx constant folding,
  // 3xx eliminations, 4xx fusions, 5xx cleanup. Unique.
  int order = 0;
  std::unique_ptr<Pass> (*make)() = nullptr;
};

// Pipeline order: shape inference, constant folding, eliminations, fusions, cleanup.
const std::vector<PassInfo>& pass_registry();
const PassInfo* find_pass(std::string_view name);
std::vector<std::string> pass_names();

// The whole-model shape inference pass runs at the start of each round, not
// in the rewrite loop.
inline constexpr std::string_view kInferShapes = "infer_shapes";

// Every WINML_PASS of the library, in no particular order (generated).
const std::vector<const PassInfo*>& registered_passes();

}  // namespace winml::passes

#define WINML_PASS(NAME, ORDER, CLASS)                                                                   \
  extern constinit const ::winml::passes::PassInfo winml_pass_##NAME;                                    \
  constinit const ::winml::passes::PassInfo winml_pass_##NAME {                                          \
#NAME, ORDER, []() -> std::unique_ptr < ::winml::passes::Pass> { return std::make_unique<CLASS>(); } \
  }
