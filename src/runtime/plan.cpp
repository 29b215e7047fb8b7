#include "runtime/plan.h"

#include <algorithm>
#include <functional>
#include <set>

#include "base/error.h"
#include "base/mapped_file.h"
#include "base/topological_order.h"
#include "model/input_dims.h"
#include "model/model.h"
#include "model/tensor_data.h"
#include "runtime/convert.h"
#include "runtime/errors.h"
#include "runtime/executor.h"
#include "runtime/kernel_registry.h"
#include "runtime/memory_plan.h"
#include "runtime/relu_folding.h"
#include "runtime/static_shapes.h"
#include "runtime/thread_pool.h"
#include "base/path_text.h"

namespace winml::runtime {

std::string Step::describe() const { return "node '" + node_name + "' (" + op_type + ")"; }

int Plan::find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? -1 : it->second;
}

void Plan::reindex() {
  index_.clear();
  for (std::size_t id = 0; id < values.size(); ++id) index_[values[id].name] = static_cast<int>(id);
}

Shape resolve_input_shape(const onnx::ValueInfoProto& input, const std::map<std::string, std::int64_t>& dims) {
  Shape s;
  if (!input.type().has_tensor_type() || !input.type().tensor_type().has_shape()) return s;
  const auto& shape = input.type().tensor_type().shape();
  for (int i = 0; i < shape.dim_size(); ++i) {
    // A fixed size as written (0 included); an open one (a negative size
    // too, as some exporters write) from `dims`, else 1.
    if (shape.dim(i).has_dim_value() && shape.dim(i).dim_value() >= 0) s.push_back(shape.dim(i).dim_value());
    else s.push_back(model::input_dim(input, static_cast<std::size_t>(i), dims).value_or(1));
  }
  return s;
}

namespace {

// Names a graph (and its nested subgraphs) reads without defining them.
void collect_free_names(const onnx::GraphProto& g, std::set<std::string>& out) {
  std::set<std::string> defined;
  for (const auto& i : g.input()) defined.insert(i.name());
  for (const auto& i : g.initializer()) defined.insert(i.name());
  for (const auto& i : g.sparse_initializer()) defined.insert(i.values().name());
  for (const auto& n : g.node())
    for (const auto& o : n.output()) defined.insert(o);
  for (const auto& n : g.node()) {
    for (const auto& i : n.input())
      if (!i.empty() && !defined.count(i)) out.insert(i);
    for (const auto& a : n.attribute()) {
      std::set<std::string> inner;
      if (a.has_g()) collect_free_names(a.g(), inner);
      for (const auto& sg : a.graphs()) collect_free_names(sg, inner);
      for (const auto& name : inner)
        if (!defined.count(name)) out.insert(name);
    }
  }
}

// Outer-scope names read by the subgraphs of one node.
std::vector<std::string> node_implicit_names(const onnx::NodeProto& n) {
  std::set<std::string> names;
  for (const auto& a : n.attribute()) {
    if (a.has_g()) collect_free_names(a.g(), names);
    for (const auto& sg : a.graphs()) collect_free_names(sg, names);
  }
  return {names.begin(), names.end()};
}

DataType declared_type(const onnx::ValueInfoProto& v) {
  return v.type().has_tensor_type() ? v.type().tensor_type().elem_type() : 0;
}

}  // namespace

class PlanBuilder {
 public:
  PlanBuilder(const onnx::GraphProto& g, const Opsets& opsets, const model::Model* model, std::string source,
              const PlanOptions& options, bool top_level)
      : g_(g),
        model_(model),
        options_(options),
        top_level_(top_level),
        streaming_(float32_size(g) > options.stream_weights_above),
        plan_(std::make_shared<Plan>()) {
    plan_->source = std::move(source);
    plan_->opsets = opsets;
  }

  // The graph's initializers as float32: what the plan would hold if it
  // packed, widened or dequantized every weight.
  static std::uint64_t float32_size(const onnx::GraphProto& g) {
    std::uint64_t total = 0;
    for (const auto& init : g.initializer()) total += static_cast<std::uint64_t>(model::element_count(init)) * 4;
    return total;
  }

  std::shared_ptr<const Plan> build() {
    define_values();
    count_mapped_consumers();
    std::vector<int> order = topological_order();
    if (top_level_) {
      PackTrace trace;
      trace.defer = true;  // the weights are packed on every core once all kernels exist
      {
        ScopedPackTrace recording(&trace);
        create_steps(order);
      }
      run_deferred_packing(trace);
      plan_->packed = std::move(trace.packed);
    } else {
      create_steps(order);  // packs into the trace of the plan being built, if any
    }
    if (top_level_) assign_static_types(options_.memory_plan);
    if (top_level_ && options_.observed) fold_relus(*plan_, *options_.observed);
    compute_releases();
    if (top_level_ && options_.memory_plan) assign_arena(*plan_);
    return plan_;
  }

 private:
  int value(const std::string& name) {
    auto it = plan_->index_.find(name);
    if (it != plan_->index_.end()) return it->second;
    int id = static_cast<int>(plan_->values.size());
    ValueInfo info;
    info.name = name;
    plan_->values.push_back(std::move(info));
    plan_->index_[name] = id;
    return id;
  }

  [[noreturn]] void bad_graph(const std::string& message) const { throw InputError(message); }

  void define_values() {
    std::set<std::string> defined;
    auto define = [&](const std::string& name, const char* what) {
      if (!name.empty() && !defined.insert(name).second)
        bad_graph("value '" + name + "' is defined twice (" + what + ")");
    };
    std::set<std::string> input_names;
    for (const auto& in : g_.input()) input_names.insert(in.name());
    for (const auto& in : g_.input()) {
      define(in.name(), "graph input");
      int id = value(in.name());
      plan_->inputs.push_back(id);
      plan_->values[id].dtype = declared_type(in);
    }
    for (const auto& init : g_.initializer()) {
      if (!input_names.count(init.name())) define(init.name(), "initializer");
      int id = value(init.name());
      with_error_prefix("initializer '" + init.name() + "': ",
                        [&] { plan_->constants.emplace_back(id, from_proto(init, model_)); });
      plan_->values[id].dtype = init.data_type();
      constant_ids_.insert(id);
      // (Only a view of the mapping: misaligned bytes were copied, and
      // dropping the pages of a copy would zero it.)
      if (model::is_external(init) && model_ &&
          plan_->constants.back().second.raw() == reinterpret_cast<const std::byte*>(model_->tensor_bytes(init).bytes.data()))
        mapped_ids_.insert(id);
    }
    if (g_.sparse_initializer_size() > 0)
      throw UnsupportedError("sparse initializers are not supported ('" + g_.sparse_initializer(0).values().name() +
                             "')");
    // Graph inputs with an initializer of the same name are overridable
    // defaults, not constants.
    for (int id : plan_->inputs) constant_ids_.erase(id);
    for (const auto& n : g_.node())
      for (const auto& o : n.output()) {
        define(o, "node output");
        if (!o.empty()) value(o);
      }
    for (const auto& n : g_.node()) {
      for (const auto& i : n.input())
        if (!i.empty()) use(i, defined, &n);
      for (const auto& name : node_implicit_names(n)) use(name, defined, &n);
    }
    for (const auto& o : g_.output()) {
      use(o.name(), defined, nullptr);
      plan_->outputs.push_back(value(o.name()));
    }
  }

  // A read of `name`: a value of this graph, or a capture from an outer scope.
  void use(const std::string& name, const std::set<std::string>& defined, const onnx::NodeProto* n) {
    if (defined.count(name) || plan_->index_.count(name)) {
      value(name);
      return;
    }
    if (top_level_)
      bad_graph((n ? "node '" + n->name() + "' (" + n->op_type() + ") reads" : std::string("graph output")) +
                " undefined value '" + name + "'");
    int id = value(name);
    plan_->captures.push_back(name);
    plan_->capture_values.push_back(id);
  }

  // Kahn's algorithm; ties go to the earliest node so sorted graphs keep their order.
  std::vector<int> topological_order() {
    int count = g_.node_size();
    std::map<int, int> producer;  // value id -> node index
    for (int i = 0; i < count; ++i)
      for (const auto& o : g_.node(i).output())
        if (!o.empty()) producer[plan_->find(o)] = i;
    std::vector<std::set<int>> deps(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
      const auto& n = g_.node(i);
      auto add_dep = [&](const std::string& name) {
        auto it = producer.find(plan_->find(name));
        if (it != producer.end()) deps[static_cast<std::size_t>(i)].insert(it->second);
      };
      for (const auto& in : n.input())
        if (!in.empty()) add_dep(in);
      for (const auto& name : node_implicit_names(n)) add_dep(name);
    }
    TopologicalOrder sorted = stable_topological_order(deps);
    if (sorted.cycle_node >= 0) {
      const auto& n = g_.node(sorted.cycle_node);
      bad_graph("the graph has a cycle through node '" + n.name() + "' (" + n.op_type() + ")");
    }
    return streaming_ ? constants_on_demand(sorted.order, deps) : sorted.order;
  }

  // The order with every node computed from constants alone (a weight's
  // DequantizeLinear, a Transpose of it) moved to just before its first
  // reader: otherwise all of them would run first, and every dequantized
  // weight would live, in memory, until its reader runs.
  std::vector<int> constants_on_demand(const std::vector<int>& order, const std::vector<std::set<int>>& deps) const {
    std::vector<char> from_constants(deps.size(), 0);
    for (int i : order) {
      const auto& n = g_.node(i);
      const bool constant_node = n.op_type() == "Constant" && canonical_domain(n.domain()).empty();
      bool only = (constant_node || !n.input().empty()) && node_implicit_names(n).empty();
      for (const auto& in : n.input())
        only = only && (in.empty() || constant_ids_.count(plan_->find(in)) > 0);
      for (int d : deps[static_cast<std::size_t>(i)]) only = only && from_constants[static_cast<std::size_t>(d)];
      from_constants[static_cast<std::size_t>(i)] = only;
    }
    std::vector<int> out;
    std::vector<char> placed(deps.size(), 0);
    std::function<void(int)> place = [&](int i) {
      if (placed[static_cast<std::size_t>(i)]) return;
      placed[static_cast<std::size_t>(i)] = 1;
      for (int d : deps[static_cast<std::size_t>(i)])
        if (from_constants[static_cast<std::size_t>(d)]) place(d);
      out.push_back(i);
    };
    for (int i : order)
      if (!from_constants[static_cast<std::size_t>(i)]) place(i);
    for (int i : order) place(i);  // read by nothing else: at the end
    return out;
  }

  std::int64_t opset_of(const std::string& domain) const {
    auto it = plan_->opsets.find(canonical_domain(domain));
    if (it != plan_->opsets.end()) return it->second;
    return domain.empty() || domain == "ai.onnx" ? 0 : 1;  // contrib domains default to version 1
  }

  void create_steps(const std::vector<int>& order) {
    auto& registry = KernelRegistry::global();
    std::vector<std::string> missing;
    NodeContext::SubgraphBuilder subgraphs = [this](const onnx::GraphProto& sg) {
      PlanOptions sub = options_;
      sub.memory_plan = false;
      sub.stream_weights_above = streaming_ ? 0 : UINT64_MAX;  // as the whole model does
      return build_graph_plan(sg, plan_->opsets, model_, plan_->source, sub);
    };
    for (int index : order) {
      const onnx::NodeProto& n = g_.node(index);
      std::int64_t opset = opset_of(n.domain());
      auto entry = registry.find(n.domain(), n.op_type(), opset);
      std::string where = "node '" + n.name() + "' (" + n.op_type() + ")";
      if (!entry) {
        std::string d = canonical_domain(n.domain());
        missing.push_back(where + ": op " + (d.empty() ? "" : d + ":") + n.op_type() + " at opset " +
                          std::to_string(opset) + " is not supported");
        continue;
      }
      if (!missing.empty()) continue;  // only collecting the remaining unsupported ops

      Step step;
      step.op_type = n.op_type();
      step.domain = canonical_domain(n.domain());
      step.node_name = n.name();
      step.node = index;
      step.widen_half = entry->traits.widen_half;
      std::vector<const Tensor*> constants;
      for (const auto& in : n.input()) {
        int id = in.empty() ? -1 : plan_->find(in);
        step.inputs.push_back(id);
        constants.push_back(constant_ids_.count(id) ? constant_value(id) : nullptr);
      }
      step.explicit_inputs = n.input_size();
      if (step.widen_half) widen_half_constants(step, constants);
      if (streaming_) hide_streamed_weights(step, constants);
      step.implicit_names = node_implicit_names(n);
      for (const auto& name : step.implicit_names) step.inputs.push_back(plan_->find(name));
      for (const auto& o : n.output()) step.outputs.push_back(o.empty() ? -1 : plan_->find(o));

      with_error_prefix(where + ": ", [&] {
        NodeContext ctx(n, opset, plan_->opsets, constants, subgraphs, model_);
        step.kernel = entry->factory(ctx);
      });
      step.output_aliases_input = entry->traits.alias_input0;
      step.may_write_over_input0 = entry->traits.may_write_over_input0;
      step.folds_relu = entry->traits.folds_relu;
      note_consumer(step);

      if (n.op_type() == "Constant" && step.domain.empty()) {
        fold_constant(step, {});
        continue;
      }
      if (options_.fold_constant_dequantize && n.op_type() == "DequantizeLinear" && !step.half_storage &&
          reads_only_constants(n, constants)) {
        fold_constant(step, constants);
        continue;
      }
      plan_->steps.push_back(std::move(step));
    }
    if (!missing.empty()) {
      std::string message = missing.front();
      if (missing.size() > 1) {
        message += " (and " + std::to_string(missing.size() - 1) + " more unsupported node" +
                   (missing.size() > 2 ? "s" : "") + ":";
        for (std::size_t i = 1; i < missing.size() && i < 6; ++i)
          message += " " + missing[i].substr(0, missing[i].find(':'));
        message += missing.size() > 6 ? " ...)" : ")";
      }
      throw UnsupportedError(message);
    }
  }

  // A plan that streams its weights shows the kernel its memory-mapped
  // constants as values of the run, so that no kernel packs a copy, and has
  // the step drop their pages after each run.
  void hide_streamed_weights(Step& step, std::vector<const Tensor*>& constants) {
    for (int i = 0; i < step.explicit_inputs; ++i) {
      const int id = step.inputs[static_cast<std::size_t>(i)];
      if (!mapped_ids_.count(id)) continue;
      constants[static_cast<std::size_t>(i)] = nullptr;
      if (std::find(step.release_pages.begin(), step.release_pages.end(), id) == step.release_pages.end())
        step.release_pages.push_back(id);
    }
  }

  // float16/bfloat16 constants read by float32 kernels are converted once,
  // here ("convert on load"), into float32 constants the kernel can pack;
  // the step remembers to store its float outputs in the half type.
  void widen_half_constants(Step& step, std::vector<const Tensor*>& constants) {
    for (int i = 0; i < step.explicit_inputs; ++i) {
      int source = step.inputs[static_cast<std::size_t>(i)];
      const Tensor* t = constant_ids_.count(source) ? constant_value(source) : nullptr;  // looked up afresh: see below
      if (!t || (t->dtype() != onnx::TensorProto::FLOAT16 && t->dtype() != onnx::TensorProto::BFLOAT16)) continue;
      if (streaming_ && mapped_ids_.count(source)) continue;  // widened as the step runs, never kept
      step.half_storage = t->dtype();
      auto it = widened_.find(source);
      if (it == widened_.end()) {
        int id = value(plan_->values[static_cast<std::size_t>(source)].name + ":float32");
        Tensor widened = convert(*t, onnx::TensorProto::FLOAT);
        if (mapped_ids_.count(source) && --pending_consumers_[source] == 0 && !keep_mapped_.count(source))
          release_mapped_pages(t->raw(), t->bytes());  // the original is not read again
        plan_->constants.emplace_back(id, std::move(widened));
        constant_ids_.insert(id);
        it = widened_.emplace(source, id).first;
      } else if (mapped_ids_.count(source) && --pending_consumers_[source] == 0 && !keep_mapped_.count(source)) {
        release_mapped_pages(t->raw(), t->bytes());
      }
      step.inputs[static_cast<std::size_t>(i)] = it->second;
    }
    // (Only now: adding constants may have moved the ones pointed to.)
    for (int i = 0; i < step.explicit_inputs; ++i) {
      int id = step.inputs[static_cast<std::size_t>(i)];
      constants[static_cast<std::size_t>(i)] = constant_ids_.count(id) ? constant_value(id) : nullptr;
    }
  }

  const Tensor* constant_value(int id) const {
    for (const auto& [cid, t] : plan_->constants)
      if (cid == id) return &t;
    return nullptr;
  }

  // Every input the node names is known at plan time.
  static bool reads_only_constants(const onnx::NodeProto& n, const std::vector<const Tensor*>& constants) {
    for (int i = 0; i < n.input_size(); ++i)
      if (!n.input(i).empty() && !constants[static_cast<std::size_t>(i)]) return false;
    return true;
  }

  // Constant nodes (and, on request, DequantizeLinear of constants) are
  // evaluated once, here, and become plan constants.
  void fold_constant(const Step& step, const std::vector<const Tensor*>& inputs) {
    ThreadPool pool(1);
    Plan empty;
    ExecutionState state{empty, pool};
    std::vector<Tensor> outputs(1);
    KernelContext ctx(step, inputs, outputs, state);
    with_error_prefix(step.describe() + ": ", [&] { step.kernel->run(ctx); });
    int id = step.outputs.empty() ? -1 : step.outputs[0];
    if (id < 0) return;
    plan_->values[id].dtype = outputs[0].dtype();
    plan_->values[id].shape = outputs[0].shape();
    plan_->constants.emplace_back(id, std::move(outputs[0]));
    constant_ids_.insert(id);
  }

  // Input shapes always (symbolic dims resolved); inferred ones on request.
  void assign_static_types(bool infer) {
    std::map<std::string, Shape> input_shapes;
    for (const auto& in : g_.input()) {
      Shape s = resolve_input_shape(in, options_.dims);
      input_shapes[in.name()] = s;
      int id = plan_->find(in.name());
      if (in.type().has_tensor_type() && in.type().tensor_type().has_shape()) {
        plan_->values[id].shape = s;
        for (const auto& d : in.type().tensor_type().shape().dim())
          plan_->values[id].dim_params.push_back(d.has_dim_value() && d.dim_value() >= 0 ? ""
                                                 : d.dim_param().empty()                 ? "?"
                                                                                         : d.dim_param());
      }
    }
    for (const auto& o : g_.output()) {
      int id = plan_->find(o.name());
      if (!plan_->values[id].dtype) plan_->values[id].dtype = declared_type(o);
    }
    if (!infer) return;
    auto types = infer_static_types(g_, plan_->opsets, input_shapes);
    for (auto& v : plan_->values) {
      if (v.shape) continue;
      auto it = types.find(v.name);
      if (it == types.end()) continue;
      v.dtype = it->second.dtype;
      v.shape = it->second.shape;
    }
    for (const auto& [id, t] : plan_->constants) {
      plan_->values[id].dtype = t.dtype();
      plan_->values[id].shape = t.shape();
    }
  }

  // Memory-mapped weights that every consumer has packed into its own copy
  // are dropped from memory as soon as the last consumer is planned (the
  // pages stay mapped and would be read back from the file if touched).
  void count_mapped_consumers() {
    for (const auto& n : g_.node()) {
      for (const auto& in : n.input())
        if (mapped_ids_.count(plan_->find(in))) ++pending_consumers_[plan_->find(in)];
      for (const auto& name : node_implicit_names(n))
        if (mapped_ids_.count(plan_->find(name))) keep_mapped_.insert(plan_->find(name));
    }
    for (int id : plan_->outputs) keep_mapped_.insert(id);
  }

  void note_consumer(const Step& step) {
    for (int i = 0; i < step.explicit_inputs; ++i) {
      int id = step.inputs[static_cast<std::size_t>(i)];
      if (!mapped_ids_.count(id)) continue;
      if (!step.kernel->prepacked_input(i)) keep_mapped_.insert(id);
      if (--pending_consumers_[id] == 0 && !keep_mapped_.count(id))
        if (const Tensor* t = constant_value(id))
          after_packing([p = t->raw(), n = t->bytes()] { release_mapped_pages(p, n); });
    }
  }

  void compute_releases() {
    std::vector<int> last_use(plan_->values.size(), -1);
    for (std::size_t s = 0; s < plan_->steps.size(); ++s) {
      for (int id : plan_->steps[s].inputs)
        if (id >= 0) last_use[static_cast<std::size_t>(id)] = static_cast<int>(s);
      for (int id : plan_->steps[s].outputs)
        if (id >= 0 && last_use[static_cast<std::size_t>(id)] < static_cast<int>(s))
          last_use[static_cast<std::size_t>(id)] = static_cast<int>(s);  // never read: dead right away
    }
    std::set<int> keep(plan_->outputs.begin(), plan_->outputs.end());
    for (const auto& [id, t] : plan_->constants) keep.insert(id);
    for (std::size_t id = 0; id < last_use.size(); ++id)
      if (last_use[id] >= 0 && !keep.count(static_cast<int>(id)))
        plan_->steps[static_cast<std::size_t>(last_use[id])].release.push_back(static_cast<int>(id));
  }

  const onnx::GraphProto& g_;
  const model::Model* model_;
  PlanOptions options_;
  bool top_level_;
  bool streaming_;  // PlanOptions::stream_weights_above
  std::shared_ptr<Plan> plan_;
  std::set<int> constant_ids_;
  std::map<int, int> widened_;  // half constant -> its float32 copy
  std::set<int> mapped_ids_;    // initializers stored in external (memory-mapped) files
  std::map<int, int> pending_consumers_;
  std::set<int> keep_mapped_;
};

std::shared_ptr<const Plan> build_graph_plan(const onnx::GraphProto& graph, const Opsets& opsets,
                                             const model::Model* model, const std::string& source,
                                             const PlanOptions& options) {
  return PlanBuilder(graph, opsets, model, source, options, /*top_level=*/false).build();
}

bool streams_weights(const model::Model& model, const PlanOptions& options) {
  return PlanBuilder::float32_size(model.proto.graph()) > options.stream_weights_above;
}

std::shared_ptr<const Plan> build_plan(const model::Model& model, const PlanOptions& options) {
  const Opsets opsets = model_opsets(model.proto);
  std::string source = model.path.empty() ? std::string("<model>") : to_utf8(model.path);
  std::shared_ptr<const Plan> plan;
  with_error_prefix(source + ": ", [&] {
    plan = PlanBuilder(model.proto.graph(), opsets, &model, source, options, /*top_level=*/true).build();
  });
  return plan;
}

}  // namespace winml::runtime
