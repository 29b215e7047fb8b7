#include "quant/op_support.h"

#include "ep/ep_table.h"

namespace winml::quant {

const std::set<std::string>& default_quantizable_op_types() {
  // Compute ops with QLinear kernels, data-movement ops that keep the
  // quantized domain (their Q/DQ share parameters and are dropped by ORT),
  // and the activations ORT folds into the preceding QDQ group.
  static const std::set<std::string> ops = {
      "Add",       "ArgMax",        "AveragePool", "Clip",      "Concat",
      "Conv",      "ConvTranspose", "Gather",      "Gemm",      "GlobalAveragePool",
      "LeakyRelu", "MatMul",        "MaxPool",     "Mul",       "Relu",
      "Reshape",   "Resize",        "Sigmoid",     "Slice",     "Softmax",
      "Split",     "Squeeze",       "Transpose",   "Unsqueeze", "Where"};
  return ops;
}

std::set<std::string> quantizable_op_types(const std::string& ep) {
  // The EP tables (rules/ep/*.toml) say which operators an EP runs at all, not
  // which it runs quantized: quantize the built-in set's operators that the
  // target runs (fully or under constraints). An op it does not run stays
  // float, so no QDQ group is built around a node that would fall back anyway.
  const ep::EpTable table = ep::load_ep_table(ep.empty() ? "cpu" : ep);
  std::set<std::string> out;
  for (const auto& op : default_quantizable_op_types())
    if (table.runs("ai.onnx", op)) out.insert(op);
  return out;
}

}  // namespace winml::quant
