// Which execution provider a compiled (EPContext) model runs on: ONNX
// Runtime hands each EPContext node to the EP named by its `source`
// attribute and refuses the session when that EP is not in it, in words
// that do not say which flag would help. `run --runtime ort` asks this when
// ORT refuses a model.
#pragma once

#include <string>

#include "model/onnx.h"

namespace winml::tools {

// Empty when `m` has no EPContext node that ORT's `session_ep`
// ("CPUExecutionProvider") cannot take; else the fix, naming the `--ep` that
// would (rules/ep/<ep>.toml whose ep_type is the nodes' source).
std::string compiled_for_other_ep(const onnx::ModelProto& m, const std::string& session_ep);

}  // namespace winml::tools
