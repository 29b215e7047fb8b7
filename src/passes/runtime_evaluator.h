// Constant folding through winml-make's CPU runtime (runtime::evaluate_node):
// what fold_constants uses unless OptimizeOptions names another evaluator.
#pragma once

#include "passes/constant_evaluator.h"

namespace winml::passes {

class RuntimeEvaluator : public ConstantEvaluator {
 public:
  bool can_evaluate(const onnx::NodeProto& n, std::int64_t opset) const override;
  std::optional<std::vector<onnx::TensorProto>> evaluate(const onnx::NodeProto& n, std::int64_t opset,
                                                         const std::vector<const onnx::TensorProto*>& inputs,
                                                         const model::Model& m) const override;
};

const ConstantEvaluator& runtime_evaluator();

}  // namespace winml::passes
