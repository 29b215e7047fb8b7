// Operators an execution provider runs natively in float16. For ONNX
// Runtime's CPU provider this is measured, not assumed: anything else gets
// Cast nodes inserted by ORT at load time (tests/quant verifies the table
// against onnxruntime-node).
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace winml::quant {

// True when `ep` runs `op` (default domain, model opset `opset`) on float16.
bool runs_in_fp16(const std::string& ep, const std::string& op, std::int64_t opset);

// The measured table: op -> first opset with a float16 kernel on ORT's CPU provider.
const std::map<std::string, std::int64_t>& ort_cpu_fp16_ops();

}  // namespace winml::quant
