// How fold_constants computes a node whose inputs are all constant. The
// runtime provides the implementation; passes only see this interface.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "model/model.h"
#include "model/onnx.h"

namespace winml::passes {

class ConstantEvaluator {
 public:
  virtual ~ConstantEvaluator() = default;
  // Whether `n` (domain, op type, at `opset` of its domain) can be evaluated.
  virtual bool can_evaluate(const onnx::NodeProto& n, std::int64_t opset) const = 0;
  // Computes the node's outputs (in output order, named as the outputs), or
  // nullopt when it cannot. `inputs[i]` is null for an absent optional input.
  virtual std::optional<std::vector<onnx::TensorProto>> evaluate(const onnx::NodeProto& n, std::int64_t opset,
                                                                 const std::vector<const onnx::TensorProto*>& inputs,
                                                                 const model::Model& m) const = 0;
};

}  // namespace winml::passes
