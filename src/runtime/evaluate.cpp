#include "runtime/evaluate.h"

#include "runtime/errors.h"
#include "runtime/executor.h"
#include "runtime/plan.h"
#include "runtime/thread_pool.h"

namespace winml::runtime {

std::vector<Tensor> evaluate_node(const onnx::NodeProto& node, const Opsets& opsets,
                                  const std::vector<Tensor>& inputs) {
  if (static_cast<int>(inputs.size()) != node.input_size())
    throw std::invalid_argument("evaluate_node: " + std::to_string(inputs.size()) + " tensors for " +
                                std::to_string(node.input_size()) + " inputs");
  // The node as a one-node graph whose inputs are the node's distinct inputs.
  onnx::GraphProto g;
  g.set_name("evaluate");
  std::map<std::string, Tensor> feeds;
  for (int i = 0; i < node.input_size(); ++i) {
    const std::string& name = node.input(i);
    if (name.empty()) continue;
    if (!inputs[static_cast<std::size_t>(i)].defined())
      throw std::invalid_argument("evaluate_node: input '" + name + "' is named but no tensor was given");
    if (feeds.emplace(name, inputs[static_cast<std::size_t>(i)]).second) g.add_input()->set_name(name);
  }
  *g.add_node() = node;
  for (const auto& o : node.output())
    if (!o.empty()) g.add_output()->set_name(o);

  PlanOptions options;
  options.memory_plan = false;
  auto plan = build_graph_plan(g, opsets, nullptr, "<node>", options);
  if (!plan->captures.empty())
    throw UnsupportedError("node '" + node.name() + "' (" + node.op_type() + ") reads outer-scope value '" +
                           plan->captures.front() + "' in a subgraph; it cannot be evaluated on its own");
  std::vector<Tensor> ordered;
  for (int id : plan->inputs) ordered.push_back(feeds.at(plan->values[static_cast<std::size_t>(id)].name));
  ThreadPool pool(1);
  std::vector<Tensor> produced = execute(*plan, std::move(ordered), {}, pool);

  std::vector<Tensor> result;
  std::size_t k = 0;
  for (const auto& o : node.output()) result.push_back(o.empty() ? Tensor() : produced[k++]);
  return result;
}

std::vector<Tensor> evaluate_node(const onnx::NodeProto& node, std::int64_t opset, const std::vector<Tensor>& inputs) {
  Opsets opsets{{"", opset}};
  if (!node.domain().empty() && node.domain() != "ai.onnx") opsets[node.domain()] = 1;
  return evaluate_node(node, opsets, inputs);
}

}  // namespace winml::runtime
