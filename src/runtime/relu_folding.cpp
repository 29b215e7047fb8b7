#include "runtime/relu_folding.h"

#include <vector>

#include "runtime/plan.h"

namespace winml::runtime {

void fold_relus(Plan& plan, const std::set<std::string>& observed) {
  const std::size_t values = plan.values.size();
  std::vector<int> readers(values, 0), producer(values, -1);
  for (std::size_t s = 0; s < plan.steps.size(); ++s) {
    for (int id : plan.steps[s].inputs)
      if (id >= 0) ++readers[static_cast<std::size_t>(id)];
    for (int id : plan.steps[s].outputs)
      if (id >= 0) producer[static_cast<std::size_t>(id)] = static_cast<int>(s);
  }
  for (int id : plan.outputs) ++readers[static_cast<std::size_t>(id)];  // (the caller reads them)
  auto is_float = [&](int id) { return plan.values[static_cast<std::size_t>(id)].dtype == onnx::TensorProto::FLOAT; };

  std::vector<bool> folded(plan.steps.size(), false);
  for (std::size_t r = 0; r < plan.steps.size(); ++r) {
    const Step& relu = plan.steps[r];
    if (relu.op_type != "Relu" || !relu.domain.empty() || relu.inputs.size() != 1 || relu.outputs.size() != 1) continue;
    const int in = relu.inputs[0], out = relu.outputs[0];
    if (in < 0 || out < 0 || !is_float(in) || !is_float(out)) continue;
    const int p = producer[static_cast<std::size_t>(in)];
    if (p < 0 || readers[static_cast<std::size_t>(in)] != 1) continue;
    if (observed.count(plan.values[static_cast<std::size_t>(in)].name)) continue;
    Step& step = plan.steps[static_cast<std::size_t>(p)];
    if (!step.folds_relu || step.relu_output || step.outputs.empty() || step.outputs[0] != in || step.half_storage)
      continue;
    step.outputs[0] = out;
    step.relu_output = true;
    producer[static_cast<std::size_t>(out)] = p;
    folded[r] = true;
  }
  std::vector<Step> kept;
  kept.reserve(plan.steps.size());
  for (std::size_t s = 0; s < plan.steps.size(); ++s)
    if (!folded[s]) kept.push_back(std::move(plan.steps[s]));
  plan.steps = std::move(kept);
}

}  // namespace winml::runtime
