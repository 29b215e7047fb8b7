// Which operator types are worth quantizing for a target execution provider:
// those it runs as quantized kernels when it finds a QDQ group around them.
// Everything else stays float (its inputs may still be fake-quantized by the
// QDQ pair of a neighbouring quantized node, as in ONNX Runtime).
#pragma once

#include <set>
#include <string>

namespace winml::quant {

// The quantizable operator types for `ep` (a rules/ep/<ep>.toml name such as
// "cpu" or "qnn"; empty means cpu): the built-in set, less the operators the
// EP's table says it does not run. InputError for an unknown EP.
std::set<std::string> quantizable_op_types(const std::string& ep);

// The built-in set: what ONNX Runtime's CPU provider fuses from QDQ groups.
const std::set<std::string>& default_quantizable_op_types();

}  // namespace winml::quant
