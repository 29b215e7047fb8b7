#include "model/node_util.h"
#include "quant/qdq_plan.h"

#include <algorithm>

namespace winml::quant {

const PlannedTensor* QdqPlan::find(const std::string& name) const {
  for (const auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

std::vector<std::string> QdqPlan::calibration_tensors(const GraphInfo& info) const {
  std::set<std::string> names;
  for (const auto& t : tensors)
    if (t.params_from.empty() && !info.is_initializer(t.name)) names.insert(t.name);
  return {names.begin(), names.end()};
}

std::map<std::string, std::int64_t> QdqPlan::mean_tensors() const {
  std::map<std::string, std::int64_t> r;
  for (const auto& c : corrections) r.emplace(c.input, c.input_axis);
  return r;
}

namespace {

const onnx::AttributeProto* attribute(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

float float_attr(const onnx::NodeProto& n, const std::string& name, float fallback) {
  const auto* a = attribute(n, name);
  return a ? a->f() : fallback;
}

bool is_default_domain(const onnx::NodeProto& n) { return n.domain().empty() || n.domain() == "ai.onnx"; }

enum class OpKind { kConv, kGemm, kMatMul, kRemovableActivation, kSameAsInput, kSplit, kGather, kGeneric };

OpKind kind_of(const std::string& op) {
  if (op == "Conv" || op == "ConvTranspose") return OpKind::kConv;
  if (op == "Gemm") return OpKind::kGemm;
  if (op == "MatMul") return OpKind::kMatMul;
  if (op == "Relu" || op == "Clip") return OpKind::kRemovableActivation;
  static const std::set<std::string> same = {"Reshape", "Transpose",   "Squeeze", "Unsqueeze",
                                             "Slice",   "AveragePool", "MaxPool", "Resize"};
  if (same.count(op)) return OpKind::kSameAsInput;
  if (op == "Split") return OpKind::kSplit;
  if (op == "Gather" || op == "GatherElements") return OpKind::kGather;
  return OpKind::kGeneric;
}

class Planner {
 public:
  Planner(onnx::GraphProto& g, const GraphInfo& info, const QdqOptions& o, std::int64_t opset)
      : g_(g), info_(info), o_(o), opset_(opset) {}

  QdqPlan run() {
    for (int i = 0; i < g_.node_size(); ++i) {
      const auto& n = g_.node(i);
      if (!is_default_domain(n) || !o_.op_types.count(n.op_type())) {
        plan_.skipped[i] = is_default_domain(n) ? "operator type not quantized for the target" : "custom domain";
        continue;
      }
      if (o_.nodes_to_exclude.count(n.name())) {
        plan_.skipped[i] = "in nodes_to_exclude";
        continue;
      }
      std::size_t before = plan_.tensors.size() + plan_.biases.size() + plan_.removed_nodes.size();
      std::size_t shared_before = shared_updates_;
      quantize_node(i);
      if (plan_.tensors.size() + plan_.biases.size() + plan_.removed_nodes.size() > before ||
          shared_updates_ > shared_before || touched_existing_)
        plan_.quantized_nodes.insert(i);
      else if (!plan_.skipped.count(i)) plan_.skipped[i] = "no float tensor to quantize";
      touched_existing_ = false;
    }
    return std::move(plan_);
  }

 private:
  bool quantizable(const std::string& name) const {
    if (name.empty() || !info_.is_float(name)) return false;
    // A graph output that is also a graph input or a constant cannot get a Q/DQ pair.
    return !(info_.graph_outputs.count(name) && (info_.graph_inputs.count(name) || info_.is_initializer(name)));
  }

  bool is_quantized(const std::string& name) const {
    if (index_.count(name)) return true;
    for (const auto& b : plan_.biases)
      if (b.bias == name) return true;
    return false;
  }

  PlannedTensor* entry(const std::string& name) {
    auto it = index_.find(name);
    return it == index_.end() ? nullptr : &plan_.tensors[it->second];
  }

  // Own parameters (kept if the tensor is already planned), or shared with
  // `provider` (always overrides).
  void add(const std::string& name, TensorKind kind, const std::string& provider = "",
           std::optional<std::int64_t> axis = std::nullopt, std::int64_t block = 0) {
    if (!quantizable(name)) return;
    if (kind == TensorKind::kActivation && !o_.quantize_activations) return;
    if (PlannedTensor* e = entry(name)) {
      if (!provider.empty()) {
        e->params_from = provider;
        e->axis.reset();
        ++shared_updates_;
      } else {
        touched_existing_ = true;
      }
      return;
    }
    index_[name] = plan_.tensors.size();
    plan_.tensors.push_back({name, kind, provider, axis, block});
  }

  void activation(const std::string& name) { add(name, TensorKind::kActivation); }
  void same_as(const std::string& output, const std::string& input) { add(output, TensorKind::kActivation, input); }

  void weight(const std::string& name, std::optional<std::int64_t> axis) {
    if (!info_.is_initializer(name)) {
      activation(name);
      return;
    }
    auto dims = info_.initializers.at(name)->dims();
    if (axis && (*axis >= dims.size() || !o_.axis_supported)) axis.reset();
    if (is_4bit(o_.weight_type)) {
      // Sixteen levels per tensor lose too much: 4-bit weights always get
      // their own scales, in blocks along a matrix's reduced dimension (the
      // other one than its channel axis), else per channel.
      if (axis && dims.size() == 2 && o_.block_size > 0) {
        add(name, TensorKind::kWeight, "", 1 - *axis, o_.block_size);
        return;
      }
      add(name, TensorKind::kWeight, "", axis);
      return;
    }
    add(name, TensorKind::kWeight, "", o_.per_channel ? axis : std::nullopt);
  }

  void bias(int node, const std::string& bias, const std::string& input, const std::string& weight, float beta) {
    if (!o_.quantize_activations) return;  // an int32 bias's scale is the input's times the weight's
    if (!info_.is_initializer(bias) || !info_.is_float(bias) || index_.count(bias)) return;
    if (const PlannedTensor* w = entry(weight); w && w->block) return;  // no scale per output channel
    if (!info_.is_float(input) || !info_.is_initializer(weight)) return;
    // One int32 value per output channel of a per-channel weight.
    if (const PlannedTensor* w = entry(weight); w && w->axis) {
      const auto* wt = info_.initializers.at(weight);
      const auto* bt = info_.initializers.at(bias);
      if (bt->dims_size() != 1 || bt->dims(0) != wt->dims(static_cast<int>(*w->axis))) return;
    }
    plan_.biases.push_back({bias, input, weight, beta, node});
  }

  template <typename Fill>
  void correct(int node, PlannedCorrection::Kind kind, const std::string& input, const std::string& weight,
               const std::string& bias, std::int64_t axis, Fill&& fill) {
    if (!o_.bias_correction || !info_.is_initializer(weight) || !info_.is_float(weight) || !info_.is_float(input) ||
        !info_.is_initializer(bias) || !info_.is_float(bias) || info_.is_initializer(input))
      return;
    const PlannedTensor* w = entry(weight);
    if (!w || w->kind != TensorKind::kWeight) return;
    PlannedCorrection c;
    c.kind = kind;
    c.node = node;
    c.input = input;
    c.weight = weight;
    c.bias = bias;
    c.input_axis = axis;
    fill(c);
    plan_.corrections.push_back(c);
  }

  // The 1-D constant [n] an Add right after `value` (its only reader) adds: a MatMul's bias.
  std::string following_bias(const std::string& value, std::int64_t n) const {
    if (count_consumers(g_, value) != 1 || info_.graph_outputs.count(value)) return "";
    for (const auto& node : g_.node()) {
      if (node.op_type() != "Add" || node.input_size() != 2 || !is_default_domain(node)) continue;
      int k = node.input(0) == value ? 1 : node.input(1) == value ? 0 : -1;
      if (k < 0) continue;
      const std::string& b = node.input(k);
      if (!info_.is_initializer(b)) return "";
      const auto* t = info_.initializers.at(b);
      if (t->dims_size() != 1 || t->dims(0) != n || count_consumers(g_, b) != 1) return "";
      return b;
    }
    return "";
  }

  // Renames the producer's output to `output` so the activation node can go.
  bool fold_into_producer(const std::string& upstream, const std::string& output) {
    if (info_.graph_outputs.count(upstream) || info_.graph_inputs.count(upstream) || info_.is_initializer(upstream))
      return false;
    if (count_consumers(g_, upstream) != 1 || !quantizable(output)) return false;
    for (auto& n : *g_.mutable_node())
      for (auto& o : *n.mutable_output())
        if (o == upstream) o = output;
    if (auto it = index_.find(upstream); it != index_.end()) {
      // The producer's output is now `output`, quantized with that tensor's range.
      plan_.tensors.erase(plan_.tensors.begin() + static_cast<std::ptrdiff_t>(it->second));
      rebuild_index();
      for (auto& t : plan_.tensors)
        if (t.params_from == upstream) t.params_from = output;
    }
    return true;
  }

  void rebuild_index() {
    index_.clear();
    for (std::size_t i = 0; i < plan_.tensors.size(); ++i) index_[plan_.tensors[i].name] = i;
  }

  void quantize_node(int i) {
    onnx::NodeProto& n = *g_.mutable_node(i);
    const std::string op = n.op_type();
    auto in = [&](int k) -> std::string { return k < n.input_size() ? n.input(k) : std::string(); };
    switch (kind_of(op)) {
      case OpKind::kConv: {
        activation(in(0));
        activation(n.output(0));
        weight(in(1), op == "Conv" ? 0 : 1);
        if (!in(2).empty()) bias(i, in(2), in(0), in(1), 1.0f);
        if (op == "Conv" && !in(2).empty())
          correct(i, PlannedCorrection::Kind::kConv, in(0), in(1), in(2), 1,
                  [&](PlannedCorrection& c) { c.group = model::attr_int(n, "group", 1); });
        return;
      }
      case OpKind::kGemm: {
        activation(in(0));
        activation(n.output(0));
        weight(in(1), model::attr_int(n, "transB", 0) ? 0 : 1);
        if (!in(2).empty() && info_.is_initializer(in(2)) && info_.is_initializer(in(1))) {
          std::size_t before = plan_.biases.size();
          bias(i, in(2), in(0), in(1), float_attr(n, "beta", 1.0f));
          if (plan_.biases.size() > before) {
            plan_.gemm_beta_reset.insert(i);
            correct(i, PlannedCorrection::Kind::kGemm, in(0), in(1), in(2), model::attr_int(n, "transA", 0) ? 0 : 1,
                    [&](PlannedCorrection& c) {
                      c.trans_b = model::attr_int(n, "transB", 0) != 0;
                      c.alpha = float_attr(n, "alpha", 1.0f);
                    });
          }
        }
        return;
      }
      case OpKind::kMatMul: {
        for (int k = 0; k < n.input_size(); ++k) {
          const std::string& name = n.input(k);
          if (!info_.is_initializer(name)) {
            activation(name);
            continue;
          }
          bool matrix = info_.initializers.at(name)->dims_size() == 2;
          weight(name, (k == 1 && matrix) ? std::optional<std::int64_t>(1) : std::nullopt);
        }
        for (const auto& o : n.output()) activation(o);
        if (n.input_size() == 2 && !info_.is_initializer(in(0)) && info_.is_initializer(in(1)) &&
            info_.initializers.at(in(1))->dims_size() == 2)
          if (std::string b = following_bias(n.output(0), info_.initializers.at(in(1))->dims(1)); !b.empty())
            correct(i, PlannedCorrection::Kind::kMatMul, in(0), in(1), b, -1, [](PlannedCorrection&) {});
        return;
      }
      case OpKind::kRemovableActivation: {
        if (!is_quantized(in(0))) {
          plan_.skipped[i] = "input is not quantized";
          return;
        }
        if (!o_.activation_symmetric && fold_into_producer(in(0), n.output(0))) {
          plan_.removed_nodes.insert(i);
          activation(n.output(0));
          return;
        }
        activation(in(0));
        activation(n.output(0));
        return;
      }
      case OpKind::kSameAsInput: {
        bool opset_ok = !((op == "MaxPool" && opset_ < 12) || (op == "Resize" && opset_ < 11));
        if (!opset_ok) {
          plan_.skipped[i] = "needs a newer opset for quantized " + op;
          return;
        }
        if (!is_quantized(in(0))) {
          plan_.skipped[i] = "input is not quantized";
          return;
        }
        same_as(n.output(0), in(0));
        return;
      }
      case OpKind::kSplit: {
        activation(in(0));
        if (!is_quantized(in(0))) return;
        for (const auto& o : n.output()) same_as(o, in(0));
        return;
      }
      case OpKind::kGather: {
        if (!info_.is_initializer(in(0)) || !info_.is_float(in(0))) {
          plan_.skipped[i] = "data input is not a float constant";
          return;
        }
        activation(in(0));
        same_as(n.output(0), in(0));
        return;
      }
      case OpKind::kGeneric: {
        for (const auto& name : n.input()) activation(name);
        for (const auto& o : n.output()) activation(o);
        return;
      }
    }
  }

  onnx::GraphProto& g_;
  const GraphInfo& info_;
  const QdqOptions& o_;
  std::int64_t opset_;
  QdqPlan plan_;
  std::map<std::string, std::size_t> index_;
  std::size_t shared_updates_ = 0;
  bool touched_existing_ = false;
};

}  // namespace

QdqPlan plan_qdq(onnx::GraphProto& graph, const GraphInfo& info, const QdqOptions& options, std::int64_t opset) {
  return Planner(graph, info, options, opset).run();
}

}  // namespace winml::quant
