// A partition the plugin EP runs for ONNX Runtime: a runtime plan (compiled
// now, or loaded from an EPContext node's blob) in a runtime::Session. ORT
// hands the fused node's inputs by position; the plan names its own.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ort_ep/api.h"
#include "runtime/session.h"

namespace winml::ort_ep {

class CompiledPartition {
 public:
  // `feeds[i]`: the plan's input fed by the fused node's input i;
  // `fetches[j]`: the plan's output that is the fused node's output j.
  CompiledPartition(std::shared_ptr<const runtime::Plan> plan, std::vector<std::string> feeds,
                    std::vector<std::string> fetches);

  // One run: ORT's inputs viewed in place, the outputs copied into the
  // tensors ORT allocates for them.
  void compute(const Api& api, OrtKernelContext* context) const;

 private:
  runtime::Session session_;
  std::vector<std::string> feeds_, fetches_;
};

}  // namespace winml::ort_ep
