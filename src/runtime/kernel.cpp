#include "runtime/kernel.h"

#include "runtime/errors.h"
#include "runtime/executor.h"
#include "runtime/plan.h"

namespace winml::runtime {

NodeContext::NodeContext(const onnx::NodeProto& node, std::int64_t opset, const Opsets& opsets,
                         std::vector<const Tensor*> constant_inputs, const SubgraphBuilder& subgraphs,
                         const model::Model* model)
    : node_(node),
      opset_(opset),
      opsets_(opsets),
      constants_(std::move(constant_inputs)),
      subgraphs_(subgraphs),
      model_(model) {}

const Tensor* NodeContext::constant_input(int i) const {
  return i >= 0 && static_cast<std::size_t>(i) < constants_.size() ? constants_[static_cast<std::size_t>(i)] : nullptr;
}

std::string NodeContext::describe() const { return "node '" + node_.name() + "' (" + node_.op_type() + ")"; }

void NodeContext::fail(const std::string& message) const { throw InputError(message); }
void NodeContext::unsupported(const std::string& message) const { throw UnsupportedError(message); }

const onnx::AttributeProto* NodeContext::attr(const std::string& name) const {
  for (const auto& a : node_.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

bool NodeContext::has_attr(const std::string& name) const { return attr(name) != nullptr; }

namespace {
void expect_type(const NodeContext& n, const onnx::AttributeProto& a, onnx::AttributeProto::AttributeType t) {
  // Some exporters leave `type` unset; accept that when the field is present.
  if (a.type() != t && a.type() != onnx::AttributeProto::UNDEFINED)
    n.fail("attribute '" + a.name() + "' has type " + onnx::AttributeProto::AttributeType_Name(a.type()) +
           ", expected " + onnx::AttributeProto::AttributeType_Name(t));
}
}  // namespace

std::int64_t NodeContext::attr_int(const std::string& name, std::int64_t fallback) const {
  const auto* a = attr(name);
  if (!a) return fallback;
  expect_type(*this, *a, onnx::AttributeProto::INT);
  return a->i();
}

std::int64_t NodeContext::required_int(const std::string& name) const {
  if (!attr(name)) fail("missing required attribute '" + name + "'");
  return attr_int(name, 0);
}

float NodeContext::attr_float(const std::string& name, float fallback) const {
  const auto* a = attr(name);
  if (!a) return fallback;
  expect_type(*this, *a, onnx::AttributeProto::FLOAT);
  return a->f();
}

std::string NodeContext::attr_string(const std::string& name, const std::string& fallback) const {
  const auto* a = attr(name);
  if (!a) return fallback;
  expect_type(*this, *a, onnx::AttributeProto::STRING);
  return a->s();
}

std::vector<std::int64_t> NodeContext::attr_ints(const std::string& name, std::vector<std::int64_t> fallback) const {
  const auto* a = attr(name);
  if (!a) return fallback;
  expect_type(*this, *a, onnx::AttributeProto::INTS);
  return {a->ints().begin(), a->ints().end()};
}

std::vector<float> NodeContext::attr_floats(const std::string& name, std::vector<float> fallback) const {
  const auto* a = attr(name);
  if (!a) return fallback;
  expect_type(*this, *a, onnx::AttributeProto::FLOATS);
  return {a->floats().begin(), a->floats().end()};
}

Tensor NodeContext::attr_tensor(const std::string& name) const {
  const auto* a = attr(name);
  if (!a) return {};
  expect_type(*this, *a, onnx::AttributeProto::TENSOR);
  return copy_from_proto(a->t());
}

const onnx::GraphProto* NodeContext::attr_graph(const std::string& name) const {
  const auto* a = attr(name);
  if (!a) return nullptr;
  expect_type(*this, *a, onnx::AttributeProto::GRAPH);
  return &a->g();
}

std::shared_ptr<const Plan> NodeContext::subgraph_plan(const onnx::GraphProto& g) const { return subgraphs_(g); }

KernelContext::KernelContext(const Step& step, std::span<const Tensor* const> inputs, std::span<Tensor> outputs,
                             ExecutionState& state)
    : step_(step), inputs_(inputs), outputs_(outputs), state_(state), explicit_inputs_(step.explicit_inputs) {}

const Tensor& KernelContext::input(int i) const {
  if (!has_input(i)) throw InputError("missing required input " + std::to_string(i));
  return *inputs_[i];
}

bool KernelContext::relu_output() const { return step_.relu_output; }

bool KernelContext::output_wanted(int i) const {
  return i < static_cast<int>(step_.outputs.size()) && step_.outputs[static_cast<std::size_t>(i)] >= 0;
}

Tensor& KernelContext::allocate_output(int i, DataType dtype, Shape shape) {
  Tensor& out = outputs_[static_cast<std::size_t>(i)];
  int id = i < static_cast<int>(step_.outputs.size()) ? step_.outputs[static_cast<std::size_t>(i)] : -1;
  if (id >= 0 && state_.arena) {
    const ValueInfo& v = state_.plan.values[static_cast<std::size_t>(id)];
    if (v.buffer >= 0 && v.dtype == dtype && v.shape && *v.shape == shape) {
      out = Tensor::borrow(dtype, std::move(shape),
                           state_.arena + state_.plan.buffers[static_cast<std::size_t>(v.buffer)].offset, nullptr);
      return out;
    }
  }
  out = Tensor::allocate(dtype, std::move(shape));
  return out;
}

void KernelContext::set_output(int i, Tensor t) { outputs_[static_cast<std::size_t>(i)] = std::move(t); }

ThreadPool& KernelContext::pool() const { return state_.pool; }

std::vector<Tensor> KernelContext::run_subgraph(const Plan& plan, std::vector<Tensor> inputs) const {
  std::vector<Tensor> captures;
  captures.reserve(plan.captures.size());
  for (const auto& name : plan.captures) {
    const Tensor* found = nullptr;
    for (std::size_t j = 0; j < step_.implicit_names.size(); ++j)
      if (step_.implicit_names[j] == name) found = inputs_[static_cast<std::size_t>(explicit_inputs_) + j];
    if (!found) throw InputError("subgraph reads '" + name + "', which is not visible here");
    captures.push_back(*found);
  }
  // The observer sees a body's values too (calibration quantizes inside If/Loop/Scan).
  return execute(plan, std::move(inputs), std::move(captures), state_.pool, state_.observer);
}

}  // namespace winml::runtime
