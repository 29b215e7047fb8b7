#include "quant/qdq_apply.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "base/error.h"
#include "model/epcontext.h"
#include "model/node_util.h"
#include "model/spill_file.h"
#include "model/tensor_values.h"
#include "quant/bias_correction.h"
#include "quant/graph_edit.h"
#include "quant/weight_quant.h"

namespace winml::quant {

std::string qdq_domain(const QdqOptions& o, std::int64_t opset) {
  bool wide = is_16bit(o.activation_type) || is_16bit(o.weight_type);
  return wide && opset < 21 ? model::kMicrosoftDomain : "";
}

namespace {

// Scale and zero point initializers of one quantized tensor.
struct Params {
  std::vector<QParams> values;  // one per channel, or one, or one per block
  std::optional<std::int64_t> axis;
  std::int64_t block = 0;              // DequantizeLinear's block_size (values shaped as `dims`)
  std::vector<std::int64_t> dims;      // of blocked parameters
  QType type = QType::kUInt8;
  std::string scale, zero_point;  // initializer names (set once materialised)
};

class Rewriter {
 public:
  Rewriter(model::Model& m, onnx::GraphProto& g, const QdqPlan& plan, const GraphInfo& info,
           const std::map<std::string, TensorRange>& ranges, const QdqOptions& o,
           const std::map<std::string, std::vector<double>>& means)
      : m_(m),
        g_(g),
        plan_(plan),
        info_(info),
        ranges_(ranges),
        o_(o),
        means_(means),
        names_(m.proto.graph()) {  // names are unique across the model, bodies included
    result_.qdq_domain = qdq_domain(o, m.opset());
  }

  ApplyResult run() {
    activation_params();
    shared_params();  // activations sharing an activation's parameters (bias inputs may be among them)
    constants_and_biases();
    shared_params();  // ... and those sharing a constant's
    for (const auto& t : plan_.tensors)
      if (!t.params_from.empty() && !params_.count(t.name)) result_.uncalibrated.push_back(t.name);
    rebuild_graph();
    result_.replaced = replaced_;
    return result_;
  }

 private:
  bool is_constant(const PlannedTensor& t) const { return info_.is_initializer(t.name); }

  // Scalar (per tensor) or 1-D (per channel) scale and zero-point initializers.
  void materialise(const std::string& base, Params& p) {
    std::vector<std::int64_t> dims;
    if (p.block) dims = p.dims;
    else if (p.axis) dims.push_back(static_cast<std::int64_t>(p.values.size()));
    std::vector<float> scales;
    std::vector<std::int32_t> zps;
    for (const auto& v : p.values) scales.push_back(v.scale), zps.push_back(v.zero_point);
    p.scale = names_.unique(base + "_scale");
    p.zero_point = names_.unique(base + "_zero_point");
    new_inits_.push_back(model::make_floats(p.scale, dims, scales));
    new_inits_.push_back(model::make_ints(p.zero_point, onnx_type(p.type), dims, zps));
  }

  void activation_params() {
    QRange range = qrange(o_.activation_type, false, o_.activation_symmetric);
    for (const auto& t : plan_.tensors) {
      if (!t.params_from.empty() || is_constant(t)) continue;
      auto r = ranges_.find(t.name);
      if (r == ranges_.end()) {
        result_.uncalibrated.push_back(t.name);
        continue;
      }
      Params p;
      p.type = o_.activation_type;
      p.values.push_back(compute_qparams(r->second.lo, r->second.hi, range, o_.activation_symmetric));
      materialise(t.name, p);
      params_.emplace(t.name, std::move(p));
    }
  }

  void constants_and_biases() {
    for (const auto& t : plan_.tensors) {
      if (!t.params_from.empty() || !is_constant(t)) continue;
      const onnx::TensorProto& init = *info_.initializers.at(t.name);
      std::vector<std::int64_t> dims(init.dims().begin(), init.dims().end());
      std::vector<float> values = model::float32_values(m_, init);
      if (auto c = constant_corrections_.find(t.name); c != constant_corrections_.end()) subtract(values, c->second);
      WeightOptions w;
      if (t.kind == TensorKind::kWeight) w = {o_.weight_type, o_.weight_symmetric, o_.reduce_range, t.axis, t.block};
      else w = {o_.activation_type, o_.activation_symmetric, false, std::nullopt};
      QuantizedTensor q = quantize_weight(values, dims, w);

      // Biases read this weight's scales; raise them first if a bias would overflow int32.
      std::vector<const PlannedBias*> biases;
      for (const auto& b : plan_.biases)
        if (b.weight == t.name && params_.count(b.input) && params_.at(b.input).values.size() == 1)
          biases.push_back(&b);
      std::vector<std::vector<float>> bias_values;
      for (const PlannedBias* b : biases) {
        bias_values.push_back(model::float32_values(m_, *info_.initializers.at(b->bias)));
        for (auto& v : bias_values.back()) v *= b->beta;
      }
      bool adjusted = false;
      for (std::size_t k = 0; k < biases.size(); ++k) {
        std::vector<float> scales;
        for (const auto& p : q.params) scales.push_back(p.scale);
        ScaleAdjustment a = fit_bias_in_int32(bias_values[k], params_.at(biases[k]->input).values[0].scale, scales);
        if (!a.changed) continue;
        std::vector<QParams> raised = q.params;
        for (std::size_t c = 0; c < raised.size(); ++c) raised[c].scale = a.weight_scales[c];
        q = quantize_with(values, dims, w, raised);
        adjusted = true;
      }
      result_.adjusted_weight_scales += adjusted;

      Params p;
      p.type = w.type;
      p.axis = q.axis;
      p.block = q.block;
      p.dims = q.param_dims;
      p.values = q.params;
      materialise(t.name, p);
      std::string qname = names_.unique(t.name + "_quantized");
      new_inits_.push_back(model::make_tensor(qname, q.onnx_type, dims, q.data));
      model::spill_if_large(m_.spill.get(), new_inits_.back());
      model::release_tensor_pages(m_, init);  // read once (bias correction below uses `values`)
      constant_dq_.push_back(dq_node(t.name, qname, p, names_.unique(t.name + "_DequantizeLinear_Output")));
      input_renames_[t.name] = constant_dq_.back().output(0);
      replaced_.insert(t.name);
      ++result_.quantized_weights;

      // Bias correction needs the final quantized weight.
      std::map<int, std::vector<double>> shift = corrections_for(t.name, values, dims, q);
      std::vector<float> wscales;
      for (const auto& v : q.params) wscales.push_back(v.scale);
      for (std::size_t k = 0; k < biases.size(); ++k) {
        if (auto s = shift.find(biases[k]->node); s != shift.end() && subtract(bias_values[k], s->second))
          ++result_.corrected_biases;
        bias(*biases[k], bias_values[k], wscales, q.axis.has_value());
      }
      params_.emplace(t.name, std::move(p));
    }
    correct_float_constants();
  }

  // E[(W_q - W) x] per output channel of every corrected node reading `weight`:
  // node index -> shift. MatMul shifts go to the Add constant that follows
  // (constant_corrections_), applied when that constant is processed.
  std::map<int, std::vector<double>> corrections_for(const std::string& weight, const std::vector<float>& w,
                                                     const std::vector<std::int64_t>& dims, const QuantizedTensor& q) {
    std::map<int, std::vector<double>> out;
    std::vector<float> wq;
    for (const auto& c : plan_.corrections) {
      if (c.weight != weight) continue;
      auto mean = means_.find(c.input);
      if (mean == means_.end()) continue;
      if (wq.empty()) wq = dequantize(q);
      std::vector<double> shift = output_shift(c, w, wq, dims, mean->second);
      if (shift.empty()) continue;
      if (c.kind == PlannedCorrection::Kind::kMatMul) constant_corrections_[c.bias] = shift;
      else out[c.node] = std::move(shift);
    }
    return out;
  }

  // values -= shift, element by element; false (unchanged) on a size mismatch.
  static bool subtract(std::vector<float>& values, const std::vector<double>& shift) {
    if (values.size() != shift.size()) return false;
    for (std::size_t i = 0; i < values.size(); ++i)
      values[i] = static_cast<float>(static_cast<double>(values[i]) - shift[i]);
    return true;
  }

  // Corrected MatMul bias constants that stay float (their Add is not quantized).
  void correct_float_constants() {
    for (const auto& [name, shift] : constant_corrections_) {
      if (!info_.is_local_initializer(name)) continue;  // a body may not redefine an outer constant
      if (replaced_.count(name)) {
        ++result_.corrected_biases;  // applied before it was quantized
        continue;
      }
      const onnx::TensorProto& init = *info_.initializers.at(name);
      std::vector<float> values = model::float32_values(m_, init);
      if (!subtract(values, shift)) continue;
      std::vector<std::int64_t> dims(init.dims().begin(), init.dims().end());
      corrected_floats_.push_back(model::make_floats(name, dims, values));
      ++result_.corrected_biases;
    }
  }

  void bias(const PlannedBias& b, const std::vector<float>& values, const std::vector<float>& weight_scales,
            bool per_channel) {
    const onnx::TensorProto& init = *info_.initializers.at(b.bias);
    std::vector<std::int64_t> dims(init.dims().begin(), init.dims().end());
    QuantizedBias q = quantize_bias(values, params_.at(b.input).values[0].scale, weight_scales);
    std::string qname = names_.unique(b.bias + "_quantized");
    new_inits_.push_back(model::make_ints(qname, onnx::TensorProto::INT32, dims, q.values));
    // The only reader's DequantizeLinear takes over the bias's name (consumers
    // unchanged); a shared bias gets a DequantizeLinear output per reader.
    bool sole_reader = count_consumers(g_, b.bias) == 1 && !plan_.find(b.bias) && !info_.graph_outputs.count(b.bias) &&
                       info_.is_local_initializer(b.bias);
    std::string dq_out = sole_reader ? b.bias : names_.unique(b.bias + "_DequantizeLinear_Output");
    if (!sole_reader) node_input_renames_[{b.node, b.bias}] = dq_out;
    Params p;
    p.axis = per_channel ? std::optional<std::int64_t>(0) : std::nullopt;
    for (float s : q.scales) p.values.push_back({s, 0});
    std::vector<std::int64_t> pdims;
    if (p.axis) pdims.push_back(static_cast<std::int64_t>(q.scales.size()));
    std::vector<std::int32_t> zeros(q.scales.size(), 0);
    p.scale = names_.unique(qname + "_scale");
    p.zero_point = names_.unique(qname + "_zero_point");
    new_inits_.push_back(model::make_floats(p.scale, pdims, q.scales));
    new_inits_.push_back(model::make_ints(p.zero_point, onnx::TensorProto::INT32, pdims, zeros));
    constant_dq_.push_back(dq_node(b.bias, qname, p, dq_out));
    replaced_.insert(b.bias);
    if (sole_reader) renamed_biases_.insert(b.bias);
    quantized_bias_nodes_.insert(b.node);
    ++result_.quantized_biases;
  }

  void shared_params() {
    // Providers can be shared themselves; resolve until nothing changes.
    bool progress = true;
    while (progress) {
      progress = false;
      for (const auto& t : plan_.tensors) {
        if (t.params_from.empty() || params_.count(t.name)) continue;
        auto p = params_.find(t.params_from);
        if (p == params_.end() || p->second.axis) continue;
        Params shared = p->second;  // same initializer names
        params_.emplace(t.name, shared);
        progress = true;
      }
    }
  }

  onnx::NodeProto dq_node(const std::string& base, const std::string& input, const Params& p,
                          const std::string& output) {
    onnx::NodeProto n = model::make_node("DequantizeLinear", {input, p.scale, p.zero_point}, {output},
                                         names_.unique(base + "_DequantizeLinear"), result_.qdq_domain);
    if (p.axis) model::set_attr_int(n, "axis", *p.axis);
    if (p.block) model::set_attr_int(n, "block_size", p.block);
    return n;
  }

  // Q/DQ pair of an activation; graph outputs keep their name on the DQ side.
  std::vector<onnx::NodeProto> activation_pair(const std::string& t, const Params& p) {
    std::string q_in = t, dq_out;
    if (info_.graph_outputs.count(t)) {
      q_in = names_.unique(t + "_QuantizeLinear_Input");
      output_renames_[t] = q_in;
      dq_out = t;
    } else {
      dq_out = names_.unique(t + "_DequantizeLinear_Output");
      input_renames_[t] = dq_out;
    }
    std::string q_out = names_.unique(t + "_QuantizeLinear_Output");
    onnx::NodeProto q = model::make_node("QuantizeLinear", {q_in, p.scale, p.zero_point}, {q_out},
                                         names_.unique(t + "_QuantizeLinear"), result_.qdq_domain);
    ++result_.activation_pairs;
    return {q, dq_node(t, q_out, p, dq_out)};
  }

  void rebuild_graph() {
    // Pairs keyed by the tensor they quantize, emitted after its producer.
    std::map<std::string, std::vector<onnx::NodeProto>> pairs;
    std::vector<std::string> order;
    for (const auto& t : plan_.tensors) {
      if (is_constant(t) && t.params_from.empty()) continue;
      auto p = params_.find(t.name);
      if (p == params_.end()) continue;
      pairs[t.name] = activation_pair(t.name, p->second);
      order.push_back(t.name);
    }

    std::vector<onnx::NodeProto> nodes = constant_dq_;
    auto emit_pair = [&](const std::string& name) {
      auto it = pairs.find(name);
      if (it == pairs.end()) return;
      for (auto& n : it->second) nodes.push_back(std::move(n));
      pairs.erase(it);
    };
    // Graph inputs and constants shared as activations have no producer node.
    for (const auto& name : order)
      if (info_.graph_inputs.count(name) || info_.is_initializer(name)) emit_pair(name);
    for (int i = 0; i < g_.node_size(); ++i) {
      if (plan_.removed_nodes.count(i)) continue;
      onnx::NodeProto n = g_.node(i);
      if (plan_.gemm_beta_reset.count(i) && quantized_bias_nodes_.count(i)) model::set_attr_float(n, "beta", 1.0f);
      std::vector<std::string> outputs(n.output().begin(), n.output().end());
      // Every reader goes through the DequantizeLinear (Shape included): ORT
      // fuses a group only when the quantized node's output feeds Q alone.
      for (auto& in : *n.mutable_input()) {
        if (auto r = node_input_renames_.find({i, in}); r != node_input_renames_.end()) in = r->second;
        else if (auto r2 = input_renames_.find(in); r2 != input_renames_.end()) in = r2->second;
      }
      for (auto& out : *n.mutable_output())
        if (auto r = output_renames_.find(out); r != output_renames_.end()) out = r->second;
      nodes.push_back(std::move(n));
      for (const auto& o : outputs) emit_pair(o);
    }
    if (!pairs.empty())  // a tensor with no producer in the main graph: cannot be placed
      for (const auto& [name, _] : pairs) result_.uncalibrated.push_back(name);

    g_.clear_node();
    for (auto& n : nodes) *g_.add_node() = std::move(n);
    for (auto& t : new_inits_) *g_.add_initializer() = std::move(t);
    remove_initializers(g_, renamed_biases_);  // their DequantizeLinear now produces the name
    std::set<std::string> corrected;
    for (const auto& t : corrected_floats_) corrected.insert(t.name());
    remove_initializers(g_, corrected);
    for (auto& t : corrected_floats_) *g_.add_initializer() = std::move(t);
    remove_unused_initializers(g_, replaced_);
    if (!result_.qdq_domain.empty()) {
      model::ensure_opset(m_.proto, result_.qdq_domain, 1);
      declare_contrib_outputs();
    }
  }

  // ONNX's schema registry does not know the com.microsoft Q/DQ, so shape
  // inference cannot type their outputs, and libonnx 1.12 crashes inferring
  // some ops (LayerNormalization's function body) with untyped inputs. The
  // element types are known here: declare them.
  void declare_contrib_outputs() {
    std::set<std::string> declared;
    for (const auto& v : g_.value_info()) declared.insert(v.name());
    for (const auto& v : g_.output()) declared.insert(v.name());
    std::map<std::string, std::int32_t> zp_types;
    for (const auto& t : g_.initializer()) zp_types[t.name()] = t.data_type();
    for (const auto& n : g_.node()) {
      if (n.domain() != result_.qdq_domain || n.output_size() != 1 || declared.count(n.output(0))) continue;
      std::int32_t type = 0;
      if (n.op_type() == "DequantizeLinear") type = onnx::TensorProto::FLOAT;
      else if (n.op_type() == "QuantizeLinear" && n.input_size() > 2) type = zp_types[n.input(2)];
      if (!type) continue;
      auto* v = g_.add_value_info();
      v->set_name(n.output(0));
      v->mutable_type()->mutable_tensor_type()->set_elem_type(type);
      declared.insert(n.output(0));
    }
  }

  model::Model& m_;
  onnx::GraphProto& g_;
  const QdqPlan& plan_;
  const GraphInfo& info_;
  const std::map<std::string, TensorRange>& ranges_;
  const QdqOptions& o_;
  const std::map<std::string, std::vector<double>>& means_;
  NameGen names_;
  std::map<std::string, std::vector<double>> constant_corrections_;
  std::vector<onnx::TensorProto> corrected_floats_;
  ApplyResult result_;
  std::map<std::string, Params> params_;
  std::vector<onnx::TensorProto> new_inits_;
  std::vector<onnx::NodeProto> constant_dq_;
  std::map<std::string, std::string> input_renames_, output_renames_;
  std::map<std::pair<int, std::string>, std::string> node_input_renames_;
  std::set<std::string> replaced_, renamed_biases_;
  std::set<int> quantized_bias_nodes_;
};

}  // namespace

ApplyResult apply_qdq(model::Model& model, const QdqPlan& plan, const GraphInfo& info,
                      const std::map<std::string, TensorRange>& ranges, const QdqOptions& options,
                      const std::map<std::string, std::vector<double>>& means) {
  return Rewriter(model, *model.proto.mutable_graph(), plan, info, ranges, options, means).run();
}

ApplyResult apply_qdq(model::Model& model, onnx::GraphProto& graph, const QdqPlan& plan, const GraphInfo& info,
                      const std::map<std::string, TensorRange>& ranges, const QdqOptions& options,
                      const std::map<std::string, std::vector<double>>& means) {
  return Rewriter(model, graph, plan, info, ranges, options, means).run();
}

}  // namespace winml::quant
