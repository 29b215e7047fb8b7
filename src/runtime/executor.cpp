#include "runtime/executor.h"

#include <chrono>
#include <new>

#include "base/mapped_file.h"
#include "runtime/convert.h"
#include "runtime/errors.h"
#include "runtime/thread_pool.h"

namespace winml::runtime {

void with_error_prefix(const std::string& prefix, const std::function<void()>& fn) {
  try {
    fn();
  } catch (const UnsupportedError& e) {
    throw UnsupportedError(prefix + e.what());
  } catch (const InputError& e) {
    throw InputError(prefix + e.what());
  } catch (const BuildError& e) {
    throw BuildError(prefix + e.what());
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    throw BuildError(prefix + e.what());
  }
}

namespace {

void run_step(const Step& step, std::vector<Tensor>& values, ExecutionState& state) {
  std::vector<const Tensor*> inputs(step.inputs.size(), nullptr);
  for (std::size_t i = 0; i < step.inputs.size(); ++i)
    if (step.inputs[i] >= 0) inputs[i] = &values[static_cast<std::size_t>(step.inputs[i])];

  // float16/bfloat16 storage, float32 compute.
  std::vector<Tensor> widened;
  DataType half_type = step.half_storage;
  if (step.widen_half) {
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i] && is_half(inputs[i]->dtype())) {
        half_type = inputs[i]->dtype();
        widened.reserve(inputs.size());
        widened.push_back(convert(*inputs[i], onnx::TensorProto::FLOAT));
        inputs[i] = &widened.back();
      }
    }
  }

  std::vector<Tensor> outputs(step.outputs.size());
  KernelContext ctx(step, inputs, outputs, state);
  step.kernel->run(ctx);

  for (std::size_t k = 0; k < outputs.size(); ++k) {
    int id = step.outputs[k];
    if (id < 0) continue;
    if (!outputs[k].defined()) throw BuildError("produced no value for output '" + state.plan.values[id].name + "'");
    // An output passed through from an input (Cast to the same type, say)
    // would outlive the input's buffer in the memory plan unless the op is
    // declared as aliasing: copy it instead. (Output 0 written over input 0,
    // as the memory plan placed it, is a value of its own.)
    const bool over_input0 =
        k == 0 && step.writes_over_input0 && !inputs.empty() && inputs[0] && inputs[0]->raw() == outputs[k].raw();
    if (!step.output_aliases_input && !over_input0 && outputs[k].bytes() > 0)
      for (const Tensor* in : inputs)
        if (in && in->raw() == outputs[k].raw()) {
          outputs[k] = outputs[k].clone();
          break;
        }
    if (half_type && outputs[k].dtype() == onnx::TensorProto::FLOAT) outputs[k] = convert(outputs[k], half_type);
    values[static_cast<std::size_t>(id)] = std::move(outputs[k]);
    if (state.observer) (*state.observer)(state.plan.values[static_cast<std::size_t>(id)].name, values[id]);
  }
}

}  // namespace

std::vector<Tensor> execute(const Plan& plan, std::vector<Tensor> inputs, std::vector<Tensor> captures,
                            ThreadPool& pool, const Observer* observer, std::byte* arena, RunProfile* profile) {
  std::vector<Tensor> values(plan.values.size());
  for (const auto& [id, t] : plan.constants) values[static_cast<std::size_t>(id)] = t;
  for (std::size_t i = 0; i < plan.inputs.size(); ++i) {
    Tensor& slot = values[static_cast<std::size_t>(plan.inputs[i])];
    if (i < inputs.size() && inputs[i].defined()) slot = std::move(inputs[i]);
    if (!slot.defined()) throw InputError("missing input '" + plan.values[plan.inputs[i]].name + "'");
    if (observer) (*observer)(plan.values[plan.inputs[i]].name, slot);
  }
  if (captures.size() != plan.captures.size()) throw std::logic_error("runtime: captured value count mismatch");
  for (std::size_t i = 0; i < captures.size(); ++i)
    values[static_cast<std::size_t>(plan.capture_values[i])] = std::move(captures[i]);

  ExecutionState state{plan, pool, observer, arena, profile};
  if (profile) profile->step_ms.assign(plan.steps.size(), 0.0);
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const Step& step = plan.steps[i];
    auto start = profile ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
    with_error_prefix(step.describe() + ": ", [&] { run_step(step, values, state); });
    for (int id : step.release_pages) {
      const Tensor& t = values[static_cast<std::size_t>(id)];
      release_mapped_pages(t.raw(), t.bytes());
    }
    for (int id : step.release) values[static_cast<std::size_t>(id)] = Tensor();
    if (profile)
      profile->step_ms[i] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }

  std::vector<Tensor> outputs;
  outputs.reserve(plan.outputs.size());
  for (int id : plan.outputs) {
    if (!values[static_cast<std::size_t>(id)].defined())
      throw InputError("graph output '" + plan.values[id].name + "' was not computed");
    outputs.push_back(values[static_cast<std::size_t>(id)]);
  }
  return outputs;
}

}  // namespace winml::runtime
