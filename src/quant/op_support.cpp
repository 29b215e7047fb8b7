#include "quant/op_support.h"

namespace winml::quant {

const std::set<std::string>& default_quantizable_op_types() {
  // Compute ops with QLinear kernels, data-movement ops that keep the
  // quantized domain (their Q/DQ share parameters and are dropped by ORT),
  // and the activations ORT folds into the preceding QDQ group.
  static const std::set<std::string> ops = {
      "Add",         "ArgMax",    "AveragePool", "Clip",   "Concat",  "Conv",      "ConvTranspose",
      "Gather",      "Gemm",      "GlobalAveragePool",     "LeakyRelu", "MatMul", "MaxPool",
      "Mul",         "Relu",      "Reshape",     "Resize", "Sigmoid", "Slice",     "Softmax",
      "Split",       "Squeeze",   "Transpose",   "Unsqueeze", "Where"};
  return ops;
}

std::set<std::string> quantizable_op_types(const std::string& ep) {
  // EP operator tables (rules/ep/*.toml) do not list quantized operators yet;
  // every EP uses the built-in table until they do.
  (void)ep;
  return default_quantizable_op_types();
}

}  // namespace winml::quant
