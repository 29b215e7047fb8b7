// The kernel interface. A kernel is created once per node when a plan is
// built (parsing attributes, validating them and pre-packing constant
// weights) and then run any number of times, possibly concurrently, so run()
// is const and keeps per-run state on the stack.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "model/onnx.h"
#include "runtime/tensor.h"

namespace winml::model {
class Model;
}

namespace winml::runtime {

class Plan;
class ThreadPool;
struct ExecutionState;
struct Step;

// Opset version per domain ("" is the default ONNX domain).
using Opsets = std::map<std::string, std::int64_t>;
std::string canonical_domain(const std::string& domain);  // "ai.onnx" -> ""
// The model's opset imports, by canonical domain.
Opsets model_opsets(const onnx::ModelProto& model);

// What a kernel factory sees: the node, its opset, and any inputs that are
// constant (initializers, Constant nodes) for validation and pre-packing.
class NodeContext {
 public:
  using SubgraphBuilder = std::function<std::shared_ptr<const Plan>(const onnx::GraphProto&)>;
  NodeContext(const onnx::NodeProto& node, std::int64_t opset, const Opsets& opsets,
              std::vector<const Tensor*> constant_inputs, const SubgraphBuilder& subgraphs,
              const model::Model* model = nullptr);

  const onnx::NodeProto& node() const { return node_; }
  const std::string& op() const { return node_.op_type(); }
  std::int64_t opset() const { return opset_; }
  const Opsets& opsets() const { return opsets_; }
  // The model the node belongs to (for files it references, such as an
  // EPContext blob next to the model), or nullptr for a detached node.
  const model::Model* model() const { return model_; }
  int input_count() const { return node_.input_size(); }
  int output_count() const { return node_.output_size(); }
  bool has_input(int i) const { return i < node_.input_size() && !node_.input(i).empty(); }
  // The input's value when it is known at plan time, else nullptr.
  const Tensor* constant_input(int i) const;

  bool has_attr(const std::string& name) const;
  const onnx::AttributeProto* attr(const std::string& name) const;
  std::int64_t attr_int(const std::string& name, std::int64_t fallback) const;
  float attr_float(const std::string& name, float fallback) const;
  std::string attr_string(const std::string& name, const std::string& fallback) const;
  std::vector<std::int64_t> attr_ints(const std::string& name, std::vector<std::int64_t> fallback = {}) const;
  std::vector<float> attr_floats(const std::string& name, std::vector<float> fallback = {}) const;
  // A tensor attribute as a Tensor (copied), or an undefined Tensor.
  Tensor attr_tensor(const std::string& name) const;
  const onnx::GraphProto* attr_graph(const std::string& name) const;
  std::int64_t required_int(const std::string& name) const;

  // Builds the plan of a subgraph attribute in this node's scope.
  std::shared_ptr<const Plan> subgraph_plan(const onnx::GraphProto& g) const;

  // InputError / UnsupportedError whose message names the node.
  [[noreturn]] void fail(const std::string& message) const;
  [[noreturn]] void unsupported(const std::string& message) const;
  std::string describe() const;  // "node 'name' (Op)"

 private:
  const onnx::NodeProto& node_;
  std::int64_t opset_;
  const Opsets& opsets_;
  std::vector<const Tensor*> constants_;
  const SubgraphBuilder& subgraphs_;
  const model::Model* model_;
};

// What a kernel sees when it runs: input tensors and output slots.
class KernelContext {
 public:
  KernelContext(const Step& step, std::span<const Tensor* const> inputs, std::span<Tensor> outputs,
                ExecutionState& state);

  int input_count() const { return explicit_inputs_; }
  bool has_input(int i) const { return i < explicit_inputs_ && inputs_[i] && inputs_[i]->defined(); }
  // A required input (InputError when absent).
  const Tensor& input(int i) const;
  const Tensor* optional_input(int i) const { return has_input(i) ? inputs_[i] : nullptr; }

  int output_count() const { return static_cast<int>(outputs_.size()); }
  // Allocates output i (from the run's memory plan when it has a slot for it).
  Tensor& allocate_output(int i, DataType dtype, Shape shape);
  // Sets output i to an existing tensor (a view or alias of an input).
  void set_output(int i, Tensor t);
  bool output_wanted(int i) const;  // false when the node's output name is empty
  // A Relu is folded into this step (KernelTraits::folds_relu): output 0
  // holds x < 0 ? 0 : x of what the op computes, the Relu kernel's bits.
  bool relu_output() const;

  ThreadPool& pool() const;
  // Runs a subgraph plan with its formal inputs; values it captures from
  // enclosing scopes come from this node's implicit inputs.
  std::vector<Tensor> run_subgraph(const Plan& plan, std::vector<Tensor> inputs) const;

 private:
  const Step& step_;
  std::span<const Tensor* const> inputs_;
  std::span<Tensor> outputs_;
  ExecutionState& state_;
  int explicit_inputs_;
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual void run(KernelContext& ctx) const = 0;
  // True when the kernel keeps its own (packed) copy of constant input `i`
  // and does not read the original: memory-mapped weights only such kernels
  // consume can be dropped from memory after planning.
  virtual bool prepacked_input(int i) const { return false; }
};

}  // namespace winml::runtime
