#include "quant/fp16_support.h"

namespace winml::quant {

const std::map<std::string, std::int64_t>& ort_cpu_fp16_ops() {
  // onnxruntime-node 1.30, x86-64 CPU provider: the ops whose float16 models
  // load without ORT inserting Casts (probed per op at opsets 11, 13, 17, 21).
  // Compute-heavy ops (Conv, MatMul, Gemm, Add, Mul, Relu, pooling, Softmax,
  // reductions, ...) have no float16 CPU kernel on x86.
  static const std::map<std::string, std::int64_t> ops = {{"Cast", 1},
                                                          {"Clip", 13},
                                                          {"Compress", 11},
                                                          {"Concat", 1},
                                                          {"Expand", 8},
                                                          {"Flatten", 1},
                                                          {"Gather", 1},
                                                          {"GatherElements", 11},
                                                          {"GatherND", 11},
                                                          {"Identity", 1},
                                                          {"IsNaN", 9},
                                                          {"LayerNormalization", 17},
                                                          {"Max", 13},
                                                          {"Min", 13},
                                                          {"Reshape", 5},
                                                          {"Round", 11},
                                                          {"ScatterElements", 11},
                                                          {"ScatterND", 11},
                                                          {"Shape", 1},
                                                          {"Sign", 9},
                                                          {"Slice", 10},
                                                          {"Split", 1},
                                                          {"Squeeze", 1},
                                                          {"Transpose", 1},
                                                          {"Unsqueeze", 1}};
  return ops;
}

bool runs_in_fp16(const std::string& ep, const std::string& op, std::int64_t opset) {
  // Other EPs' rules files do not describe float16 support yet: every EP is
  // held to the CPU provider's table, which is also what validation runs on.
  (void)ep;
  auto it = ort_cpu_fp16_ops().find(op);
  return it != ort_cpu_fp16_ops().end() && opset >= it->second;
}

}  // namespace winml::quant
