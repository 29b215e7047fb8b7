#include "quant/strip_qdq.h"

#include <algorithm>
#include <map>
#include <set>

#include "base/error.h"
#include "model/node_util.h"
#include "model/tensor_data.h"
#include "model/tensor_values.h"
#include "model/walk.h"
#include "quant/graph_edit.h"

namespace winml::quant {

namespace {
bool is_qdq_domain(const onnx::NodeProto& n) {
  return n.domain().empty() || n.domain() == "ai.onnx" || n.domain() == "com.microsoft";
}
bool is_q(const onnx::NodeProto& n) { return n.op_type() == "QuantizeLinear" && is_qdq_domain(n); }
bool is_dq(const onnx::NodeProto& n) { return n.op_type() == "DequantizeLinear" && is_qdq_domain(n); }

// (q - zero_point) * scale for a quantized constant, per tensor or per axis.
std::vector<float> dequantize_constant(const model::Model& m, const onnx::NodeProto& dq,
                                       const std::map<std::string, const onnx::TensorProto*>& inits) {
  auto get = [&](int k) -> const onnx::TensorProto* {
    if (k >= dq.input_size() || dq.input(k).empty()) return nullptr;
    auto it = inits.find(dq.input(k));
    if (it == inits.end())
      throw BuildError("DequantizeLinear '" + dq.name() + "' has a non-constant scale or zero point");
    return it->second;
  };
  const onnx::TensorProto* x = get(0);
  const onnx::TensorProto* scale = get(1);
  const onnx::TensorProto* zp = get(2);
  if (model::attr_int(dq, "block_size", 0) != 0)
    throw BuildError("blocked DequantizeLinear '" + dq.name() + "' cannot be undone");
  // The quantized types a DequantizeLinear takes.
  static const std::set<std::int32_t> kQuantized = {onnx::TensorProto::UINT8, onnx::TensorProto::INT8,
                                                    onnx::TensorProto::UINT16, onnx::TensorProto::INT16,
                                                    onnx::TensorProto::INT32};
  const auto q = kQuantized.count(x->data_type()) ? model::read_ints(m, *x) : std::nullopt;
  if (!q)
    throw BuildError("DequantizeLinear '" + dq.name() + "' of " + model::data_type_name(x->data_type()) +
                     " cannot be undone");
  const std::vector<double> xs(q->begin(), q->end());
  std::vector<float> scales = model::float32_values(m, *scale);
  std::vector<std::int64_t> zps(scales.size(), 0);
  if (zp)
    if (auto z = model::read_ints(m, *zp)) std::copy_n(z->begin(), std::min(z->size(), zps.size()), zps.begin());
  std::vector<std::int64_t> dims(x->dims().begin(), x->dims().end());
  std::int64_t axis = model::attr_int(dq, "axis", 1);
  if (axis < 0) axis += static_cast<std::int64_t>(dims.size());
  std::int64_t inner = 1, channels = 1;
  if (scales.size() > 1) {
    channels = dims.at(static_cast<std::size_t>(axis));
    for (std::size_t i = static_cast<std::size_t>(axis) + 1; i < dims.size(); ++i) inner *= dims[i];
  } else {
    inner = static_cast<std::int64_t>(xs.size());
  }
  std::vector<float> out(xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    std::size_t c = scales.size() > 1 ? static_cast<std::size_t>((static_cast<std::int64_t>(i) / inner) % channels) : 0;
    out[i] = static_cast<float>((xs[i] - static_cast<double>(zps[c])) * scales[c]);
  }
  return out;
}

// True when the pair's range starts exactly at 0 (zero point at the type's
// minimum): negative inputs saturate to 0, as after a Relu.
bool clamps_at_zero(const onnx::NodeProto& q, const std::map<std::string, const onnx::TensorProto*>& inits,
                    const model::Model& m) {
  if (q.input_size() < 3) return true;  // no zero point: uint8 with zero point 0
  auto it = inits.find(q.input(2));
  if (it == inits.end() || model::element_count(*it->second) != 1) return false;
  const auto zero_point = model::read_ints(m, *it->second);
  if (!zero_point) return false;
  switch (it->second->data_type()) {
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::UINT16: return (*zero_point)[0] == 0;
    case onnx::TensorProto::INT8: return (*zero_point)[0] == -128;
    case onnx::TensorProto::INT16: return (*zero_point)[0] == -32768;
    default: return false;
  }
}

}  // namespace

QdqCount count_qdq(const onnx::ModelProto& m) {
  QdqCount c;
  model::for_each_graph(m.graph(), [&](const onnx::GraphProto& g, int) {
    for (const auto& n : g.node()) c.quantize += is_q(n), c.dequantize += is_dq(n);
  });
  return c;
}

namespace {

void refuse_qdq_in_bodies(const onnx::GraphProto& g) {
  model::for_each_graph(g, [&](const onnx::GraphProto& sg, int depth) {
    if (depth == 0) return;
    for (const auto& n : sg.node())
      if (is_q(n) || is_dq(n)) throw BuildError("Q/DQ nodes inside subgraphs cannot be undone");
  });
}

// What undoing the main graph's Q/DQ does to it.
struct Undo {
  std::set<int> drop;                         // nodes removed
  std::map<std::string, std::string> rename;  // DQ output -> float value it stands for
  std::vector<onnx::TensorProto> restored;    // float constants, from dequantized initializers
  std::map<int, onnx::NodeProto> identities;  // Identity or Relu replacing the DQ at that position
  std::set<std::string> candidates;           // initializers that may have become unused
};

// Each DequantizeLinear: of an initializer, a float constant; after a
// QuantizeLinear, the float value the pair stands for.
Undo undo_dequantize(model::Model& m, const std::set<std::string>& graph_outputs) {
  const auto& g = m.proto.graph();
  std::map<std::string, const onnx::TensorProto*> inits;
  for (const auto& t : g.initializer()) inits[t.name()] = &t;
  std::map<std::string, int> producer;
  for (int i = 0; i < g.node_size(); ++i)
    for (const auto& o : g.node(i).output()) producer[o] = i;
  Undo u;
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    if (!is_dq(n)) continue;
    const std::string& x = n.input(0);
    for (const auto& in : n.input()) u.candidates.insert(in);
    if (inits.count(x)) {
      u.restored.push_back(
          model::make_floats(n.output(0), std::vector<std::int64_t>(inits[x]->dims().begin(), inits[x]->dims().end()),
                             dequantize_constant(m, n, inits)));
      u.drop.insert(i);
      continue;
    }
    auto p = producer.find(x);
    if (p == producer.end() || !is_q(g.node(p->second)))
      throw BuildError("DequantizeLinear '" + n.name() + "' reads '" + x + "', which no QuantizeLinear produces");
    const auto& q = g.node(p->second);
    for (const auto& in : q.input()) u.candidates.insert(in);
    u.drop.insert(i);
    if (clamps_at_zero(q, inits, m)) {
      // The pair may stand for a Relu that quantization folded away: keep its effect.
      u.identities[i] = model::make_node("Relu", {q.input(0)}, {n.output(0)}, n.name());
    } else if (graph_outputs.count(n.output(0))) {
      u.identities[i] = model::make_node("Identity", {q.input(0)}, {n.output(0)}, n.name());
    } else {
      u.rename[n.output(0)] = q.input(0);
    }
  }
  return u;
}

// A QuantizeLinear may go once nothing but removed DequantizeLinears read it.
void drop_quantize(const onnx::GraphProto& g, const std::set<std::string>& graph_outputs, Undo& u) {
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    if (!is_q(n)) continue;
    const std::string& out = n.output(0);
    bool only_dq = !graph_outputs.count(out);
    for (int k = 0; k < g.node_size() && only_dq; ++k)
      for (const auto& in : g.node(k).input())
        if (in == out && !u.drop.count(k)) only_dq = false;
    if (!only_dq)
      throw BuildError("QuantizeLinear '" + n.name() + "' feeds integer values to other nodes; it cannot be undone");
    u.drop.insert(i);
  }
}

void apply_undo(onnx::GraphProto& g, Undo& u) {
  auto resolve = [&](std::string name) {
    for (auto r = u.rename.find(name); r != u.rename.end(); r = u.rename.find(name)) name = r->second;
    return name;
  };
  std::vector<onnx::NodeProto> nodes;
  for (int i = 0; i < g.node_size(); ++i) {
    onnx::NodeProto n;
    if (auto id = u.identities.find(i); id != u.identities.end()) n = id->second;
    else if (u.drop.count(i)) continue;
    else n = g.node(i);
    for (auto& in : *n.mutable_input()) in = resolve(in);
    nodes.push_back(std::move(n));
  }
  g.clear_node();
  for (auto& n : nodes) *g.add_node() = std::move(n);
  for (auto& t : u.restored) *g.add_initializer() = std::move(t);
  remove_unused_initializers(g, u.candidates);
}

}  // namespace

void strip_qdq(model::Model& m) {
  refuse_qdq_in_bodies(m.proto.graph());
  std::set<std::string> graph_outputs;
  for (const auto& o : m.proto.graph().output()) graph_outputs.insert(o.name());
  Undo undo = undo_dequantize(m, graph_outputs);
  drop_quantize(m.proto.graph(), graph_outputs, undo);
  apply_undo(*m.proto.mutable_graph(), undo);
}

}  // namespace winml::quant
