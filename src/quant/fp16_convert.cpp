#include "quant/fp16_convert.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "base/error.h"
#include "base/half.h"
#include "model/node_util.h"
#include "model/tensor_data.h"
#include "model/tensor_values.h"
#include "model/walk.h"
#include "quant/fp16_support.h"
#include "quant/graph_edit.h"
#include "quant/graph_info.h"

namespace winml::quant {

namespace {

constexpr std::int32_t kFloat = onnx::TensorProto::FLOAT;
constexpr std::int32_t kHalf = onnx::TensorProto::FLOAT16;

// Outputs whose type is not the node's T (LayerNormalization's Mean and InvStdDev use the stash type).
bool output_follows_t(const onnx::NodeProto& n, int k) { return !(n.op_type() == "LayerNormalization" && k > 0); }

std::uint16_t clipped_half(float v, const Fp16Options& o) {
  if (std::isfinite(v)) {
    float a = std::fabs(v);
    if (a > 0 && a < o.min_positive) v = std::copysign(o.min_positive, v);
    else if (a > o.max_finite) v = std::copysign(o.max_finite, v);
  }
  return float_to_half(v);
}

void to_half(onnx::TensorProto& t, std::span<const float> values, const Fp16Options& o) {
  std::vector<std::uint16_t> h(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) h[i] = clipped_half(values[i], o);
  onnx::TensorProto c;
  c.set_name(t.name());
  c.set_data_type(kHalf);
  *c.mutable_dims() = t.dims();
  c.set_raw_data(h.data(), h.size() * 2);
  t = std::move(c);
}

class Converter {
 public:
  Converter(model::Model& m, const Fp16Options& o) : m_(m), g_(*m.proto.mutable_graph()), o_(o), names_(g_) {}

  Fp16Result run() {
    info_ = analyze_graph(m_.proto);
    opset_ = m_.opset();
    outer_scope_refs();
    classify();
    storage_types();
    rewrite();
    return result_;
  }

 private:
  bool is_float(const std::string& name) const { return !name.empty() && info_.elem_type(name) == kFloat; }

  // Values read by subgraphs from the enclosing graph must keep their type.
  void outer_scope_refs() {
    for (const auto& n : g_.node())
      for (const auto& a : n.attribute()) {
        auto scan = [&](const onnx::GraphProto& sub) {
          model::for_each_graph(sub, [&](const onnx::GraphProto& sg, int) {
            for (const auto& sn : sg.node())
              for (const auto& i : sn.input()) pinned_.insert(i);
          });
        };
        if (a.has_g()) scan(a.g());
        for (const auto& sub : a.graphs()) scan(sub);
      }
  }

  void classify() {
    for (int i = 0; i < g_.node_size(); ++i) {
      const auto& n = g_.node(i);
      bool touches_float = false;
      for (const auto& x : n.input()) touches_float = touches_float || is_float(x);
      for (const auto& x : n.output()) touches_float = touches_float || is_float(x);
      bool default_domain = n.domain().empty() || n.domain() == "ai.onnx";
      if (default_domain && n.op_type() == "Constant") {
        constants_.insert(i);
        continue;
      }
      bool pinned = false;
      for (const auto& x : n.output()) pinned = pinned || pinned_.count(x);
      bool half = default_domain && !model::has_subgraph(n) && !pinned && !o_.op_block_list.count(n.op_type()) &&
                  runs_in_fp16(o_.ep, n.op_type(), opset_);
      if (half) {
        half_nodes_.insert(i);
        if (touches_float) ++result_.fp16_nodes;
      } else if (touches_float) {
        ++result_.float_nodes;
        ++result_.float_op_types[n.op_type()];
      }
    }
  }

  // float16 or float32 for every float32 value of the original graph.
  void storage_types() {
    std::map<std::string, bool> read_by_half;
    for (int i = 0; i < g_.node_size(); ++i)
      if (half_nodes_.count(i))
        for (const auto& x : g_.node(i).input()) read_by_half[x] = true;
    for (const auto& in : info_.graph_inputs)
      if (is_float(in)) type_[in] = o_.keep_io_types ? kFloat : kHalf;
    for (const auto& [name, t] : info_.initializers)
      if (t->data_type() == kFloat && !info_.graph_inputs.count(name))
        type_[name] = (read_by_half.count(name) && !pinned_.count(name)) ? kHalf : kFloat;
    for (int i = 0; i < g_.node_size(); ++i) {
      const auto& n = g_.node(i);
      for (int k = 0; k < n.output_size(); ++k) {
        const std::string& o = n.output(k);
        if (!is_float(o)) continue;
        if (constants_.count(i)) type_[o] = (read_by_half.count(o) && !pinned_.count(o)) ? kHalf : kFloat;
        else type_[o] = half_nodes_.count(i) && output_follows_t(n, k) ? kHalf : kFloat;
      }
    }
  }

  std::int32_t stored(const std::string& name) const {
    auto it = type_.find(name);
    return it == type_.end() ? 0 : it->second;
  }

  // The Cast (created once per value and target type) producing `name` as
  // `to`; a new one is emitted into `out`, right before its first reader.
  std::string cast_of(const std::string& name, std::int32_t to, std::vector<onnx::NodeProto>& out) {
    auto key = std::make_pair(name, to);
    if (auto it = casts_.find(key); it != casts_.end()) return it->second;
    std::string cast = names_.unique(name + (to == kHalf ? "_to_fp16" : "_to_fp32"));
    onnx::NodeProto c = model::make_node("Cast", {name}, {cast}, names_.unique(cast + "_Cast"));
    model::set_attr_int(c, "to", to);
    out.push_back(std::move(c));
    casts_[key] = cast;
    ++result_.casts;
    return cast;
  }

  void rewrite() {
    // Graph outputs whose stored type differs from the declared one: the
    // producer writes a renamed value and a Cast restores the name.
    std::map<std::string, std::string> renamed_outputs;
    for (const auto& o : g_.output()) {
      if (!is_float(o.name()) || info_.graph_inputs.count(o.name()) || info_.is_initializer(o.name())) continue;
      std::int32_t want = o_.keep_io_types ? kFloat : kHalf;
      if (stored(o.name()) != want)
        renamed_outputs[o.name()] = names_.unique(o.name() + (stored(o.name()) == kHalf ? "_fp16" : "_fp32"));
    }
    auto current = [&](const std::string& v) {
      auto r = renamed_outputs.find(v);
      return r == renamed_outputs.end() ? v : r->second;
    };

    std::vector<onnx::NodeProto> nodes;
    for (int i = 0; i < g_.node_size(); ++i) {
      onnx::NodeProto n = g_.node(i);
      bool half = half_nodes_.count(i) != 0;
      for (auto& x : *n.mutable_input()) {
        if (!is_float(x)) continue;
        std::int32_t want = half ? kHalf : kFloat;
        std::string v = current(x);
        x = stored(x) == want ? v : cast_of(v, want, nodes);
      }
      if (half && n.op_type() == "Cast")
        for (auto& a : *n.mutable_attribute())
          if (a.name() == "to" && a.i() == kFloat) a.set_i(kHalf);
      if (constants_.count(i)) convert_constant_node(n);
      for (auto& o : *n.mutable_output()) o = current(o);
      nodes.push_back(std::move(n));
    }
    for (auto& [name, renamed] : renamed_outputs) {
      onnx::NodeProto c = model::make_node("Cast", {renamed}, {name}, names_.unique(name + "_Cast"));
      model::set_attr_int(c, "to", o_.keep_io_types ? kFloat : kHalf);
      nodes.push_back(std::move(c));
      ++result_.casts;
    }
    g_.clear_node();
    for (auto& n : nodes) *g_.add_node() = std::move(n);

    for (auto& t : *g_.mutable_initializer())
      if (stored(t.name()) == kHalf && t.data_type() == kFloat) {
        std::vector<float> v = model::float32_values(m_, t);
        to_half(t, v, o_);
        ++result_.converted_constants;
      }
    retype_values(renamed_outputs);
  }

  void convert_constant_node(onnx::NodeProto& n) {
    if (n.output_size() != 1 || stored(n.output(0)) != kHalf) return;
    for (auto& a : *n.mutable_attribute()) {
      if (a.name() == "value" && a.has_t() && a.t().data_type() == kFloat) {
        std::vector<float> v = model::float32_values(m_, a.t());
        to_half(*a.mutable_t(), v, o_);
        ++result_.converted_constants;
      } else if (a.name() == "value_float") {
        float f = a.f();
        a.Clear();
        a.set_name("value");
        a.set_type(onnx::AttributeProto::TENSOR);
        to_half(*a.mutable_t(), std::span<const float>(&f, 1), o_);
        ++result_.converted_constants;
      } else if (a.name() == "value_floats") {
        std::vector<float> v(a.floats().begin(), a.floats().end());
        a.Clear();
        a.set_name("value");
        a.set_type(onnx::AttributeProto::TENSOR);
        a.mutable_t()->add_dims(static_cast<std::int64_t>(v.size()));
        to_half(*a.mutable_t(), v, o_);
        ++result_.converted_constants;
      }
    }
  }

  void retype_values(const std::map<std::string, std::string>& renamed_outputs) {
    auto retype = [](onnx::ValueInfoProto& v, std::int32_t t) {
      if (v.type().has_tensor_type()) v.mutable_type()->mutable_tensor_type()->set_elem_type(t);
    };
    for (auto& in : *g_.mutable_input())
      if (stored(in.name()) == kHalf) retype(in, kHalf);
    for (auto& o : *g_.mutable_output())
      if (is_float(o.name()) && !o_.keep_io_types && stored(o.name()) != 0) retype(o, kHalf);
    for (auto& v : *g_.mutable_value_info()) {
      const std::string orig = v.name();
      if (!is_float(orig) || stored(orig) == 0) continue;
      if (auto r = renamed_outputs.find(orig); r != renamed_outputs.end()) v.set_name(r->second);
      retype(v, stored(orig));
    }
  }

  model::Model& m_;
  onnx::GraphProto& g_;
  const Fp16Options& o_;
  NameGen names_;
  GraphInfo info_;
  std::int64_t opset_ = 0;
  std::set<std::string> pinned_;
  std::set<int> half_nodes_, constants_;
  std::map<std::string, std::int32_t> type_;
  std::map<std::pair<std::string, std::int32_t>, std::string> casts_;
  Fp16Result result_;
};

}  // namespace

Fp16Result convert_to_fp16(model::Model& m, const Fp16Options& options) { return Converter(m, options).run(); }

}  // namespace winml::quant
