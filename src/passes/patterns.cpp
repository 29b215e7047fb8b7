#include "passes/patterns.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "model/node_util.h"
#include "model/tensor_data.h"
#include "model/tensor_values.h"

namespace winml::passes {

int sole_consumer(const GraphView& v, const std::string& value) {
  if (v.is_graph_output(value)) return -1;
  auto c = v.consumers(value);
  return c.size() == 1 ? c[0] : -1;
}

std::optional<double> constant_scalar(const GraphView& v, const std::string& value) {
  const auto* t = v.constant(value);
  if (!t) return std::nullopt;
  return model::read_scalar(v.model(), *t);
}

namespace {

bool near(std::optional<double> x, double target, double rel = 1e-3) {
  return x && std::fabs(*x - target) <= rel * std::fabs(target);
}

// For a binary node with one constant-scalar input close to `c`: the other input.
std::optional<std::string> other_than_scalar(const GraphView& v, const onnx::NodeProto& n, double c,
                                             bool commutative = true) {
  if (n.input_size() != 2) return std::nullopt;
  if (near(constant_scalar(v, n.input(1)), c)) return n.input(0);
  if (commutative && near(constant_scalar(v, n.input(0)), c)) return n.input(1);
  return std::nullopt;
}

int producer_of(const GraphView& v, const std::string& value, std::string_view op) {
  int p = v.producer(value);
  return p >= 0 && model::is_op(v.node(p), op) ? p : -1;
}

std::vector<int> sorted(std::vector<int> nodes) {
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

// The common tail of both GELU forms: a = 1 + f(x) feeds 0.5 * x * a in one of
// three groupings. Appends the nodes and returns the output.
std::optional<std::string> gelu_tail(const GraphView& v, const std::string& a, const std::string& x,
                                     std::vector<int>& nodes) {
  int m = sole_consumer(v, a);
  if (m < 0 || !model::is_op(v.node(m), "Mul") || v.node(m).input_size() != 2) return std::nullopt;
  const auto& mn = v.node(m);
  std::string other = mn.input(0) == a ? mn.input(1) : mn.input(0);
  if (other == x) {  // (x * a) * 0.5
    int f = sole_consumer(v, mn.output(0));
    if (f < 0 || !model::is_op(v.node(f), "Mul") || other_than_scalar(v, v.node(f), 0.5) != mn.output(0))
      return std::nullopt;
    nodes.insert(nodes.end(), {m, f});
    return v.node(f).output(0);
  }
  int h = producer_of(v, other, "Mul");  // (x * 0.5) * a
  if (h >= 0 && other_than_scalar(v, v.node(h), 0.5) == x && sole_consumer(v, other) == m) {
    nodes.insert(nodes.end(), {h, m});
    return mn.output(0);
  }
  if (near(constant_scalar(v, other), 0.5)) {  // x * (a * 0.5)
    int g = sole_consumer(v, mn.output(0));
    if (g < 0 || !model::is_op(v.node(g), "Mul") || v.node(g).input_size() != 2) return std::nullopt;
    const auto& gn = v.node(g);
    std::string gx = gn.input(0) == mn.output(0) ? gn.input(1) : gn.input(0);
    if (gx != x) return std::nullopt;
    nodes.insert(nodes.end(), {m, g});
    return gn.output(0);
  }
  return std::nullopt;
}

// 1 + y, with `y` private: returns the Add node.
int add_one(const GraphView& v, const std::string& y) {
  int a = sole_consumer(v, y);
  if (a < 0 || !model::is_op(v.node(a), "Add") || other_than_scalar(v, v.node(a), 1.0) != y) return -1;
  return a;
}

std::optional<GeluMatch> gelu_erf(const GraphView& v, int e) {
  const auto& en = v.node(e);
  if (en.input_size() != 1) return std::nullopt;
  int pt = v.producer(en.input(0));
  if (pt < 0 || sole_consumer(v, en.input(0)) != e) return std::nullopt;
  const auto& ptn = v.node(pt);
  std::optional<std::string> x;
  if (model::is_op(ptn, "Div")) x = other_than_scalar(v, ptn, std::sqrt(2.0), /*commutative=*/false);
  else if (model::is_op(ptn, "Mul")) x = other_than_scalar(v, ptn, 1.0 / std::sqrt(2.0));
  if (!x) return std::nullopt;
  int a = add_one(v, en.output(0));
  if (a < 0) return std::nullopt;
  std::vector<int> nodes = {pt, e, a};
  auto out = gelu_tail(v, v.node(a).output(0), *x, nodes);
  if (!out) return std::nullopt;
  GeluMatch m;
  m.kind = "gelu_erf";
  m.nodes = sorted(nodes);
  m.output = *out;
  m.input = *x;
  return m;
}

// x^3 as Pow(x, 3) or x * (x * x) in either order; returns x and the nodes.
std::optional<std::string> cube(const GraphView& v, const std::string& value, std::vector<int>& nodes) {
  int p = v.producer(value);
  if (p < 0) return std::nullopt;
  const auto& pn = v.node(p);
  if (model::is_op(pn, "Pow")) {
    auto x = other_than_scalar(v, pn, 3.0, /*commutative=*/false);
    if (x) nodes.push_back(p);
    return x;
  }
  if (!model::is_op(pn, "Mul") || pn.input_size() != 2) return std::nullopt;
  for (int k = 0; k < 2; ++k) {
    int sq = producer_of(v, pn.input(k), "Mul");
    if (sq < 0) continue;
    const auto& sn = v.node(sq);
    const std::string& x = pn.input(1 - k);
    if (sn.input(0) == x && sn.input(1) == x && sole_consumer(v, sn.output(0)) == p) {
      nodes.insert(nodes.end(), {sq, p});
      return x;
    }
  }
  return std::nullopt;
}

std::optional<GeluMatch> gelu_tanh(const GraphView& v, int t) {
  const auto& tn = v.node(t);
  if (tn.input_size() != 1 || sole_consumer(v, tn.input(0)) != t) return std::nullopt;
  std::vector<int> nodes = {t};
  int s = producer_of(v, tn.input(0), "Mul");  // sqrt(2/pi) * (x + 0.044715 x^3)
  if (s < 0) return std::nullopt;
  auto inner = other_than_scalar(v, v.node(s), std::sqrt(2.0 / std::numbers::pi));
  if (!inner || sole_consumer(v, *inner) != s) return std::nullopt;
  int r = producer_of(v, *inner, "Add");
  if (r < 0 || v.node(r).input_size() != 2) return std::nullopt;
  nodes.insert(nodes.end(), {s, r});
  for (int k = 0; k < 2; ++k) {
    const std::string& x = v.node(r).input(k);
    const std::string& q = v.node(r).input(1 - k);
    int qn = producer_of(v, q, "Mul");
    if (qn < 0 || sole_consumer(v, q) != r) continue;
    auto cubed = other_than_scalar(v, v.node(qn), 0.044715);
    if (!cubed || sole_consumer(v, *cubed) != qn) continue;
    std::vector<int> cube_nodes;
    auto base = cube(v, *cubed, cube_nodes);
    if (!base || *base != x) continue;
    int a = add_one(v, tn.output(0));
    if (a < 0) return std::nullopt;
    std::vector<int> all = nodes;
    all.push_back(qn);
    all.insert(all.end(), cube_nodes.begin(), cube_nodes.end());
    all.push_back(a);
    auto out = gelu_tail(v, v.node(a).output(0), x, all);
    if (!out) return std::nullopt;
    GeluMatch m;
    m.kind = "gelu_tanh";
    m.tanh = true;
    m.nodes = sorted(all);
    m.output = *out;
    m.input = x;
    return m;
  }
  return std::nullopt;
}

std::optional<std::vector<std::int64_t>> reduce_axes(const GraphView& v, const onnx::NodeProto& n) {
  if (model::attr_int(n, "keepdims", 1) != 1) return std::nullopt;
  if (n.input_size() >= 2 && !n.input(1).empty()) {
    const auto* t = v.constant(n.input(1));
    if (!t) return std::nullopt;
    return model::read_ints(v.model(), *t);
  }
  return model::attr_ints(n, "axes");
}

}  // namespace

std::optional<GeluMatch> match_gelu(const GraphView& v, int anchor) {
  const auto& n = v.node(anchor);
  if (model::is_op(n, "Erf")) return gelu_erf(v, anchor);
  if (model::is_op(n, "Tanh")) return gelu_tanh(v, anchor);
  return std::nullopt;
}

std::optional<LayerNormMatch> match_layer_norm(const GraphView& v, int anchor) {
  const auto& m1 = v.node(anchor);
  if (!model::is_op(m1, "ReduceMean") || m1.input_size() < 1) return std::nullopt;
  const std::string& x = m1.input(0);
  auto axes = reduce_axes(v, m1);
  if (!axes || axes->empty()) return std::nullopt;
  auto rank = v.rank(x);
  std::vector<std::int64_t> neg;
  for (auto a : *axes) {
    if (a >= 0) {
      if (!rank) return std::nullopt;
      a -= *rank;
    }
    neg.push_back(a);
  }
  std::sort(neg.begin(), neg.end());
  for (std::size_t k = 0; k < neg.size(); ++k)  // trailing and contiguous: -k..-1
    if (neg[k] != -static_cast<std::int64_t>(neg.size() - k)) return std::nullopt;

  int d = sole_consumer(v, m1.output(0));
  if (d < 0 || !model::is_op(v.node(d), "Sub") || v.node(d).input(0) != x || v.node(d).input(1) != m1.output(0))
    return std::nullopt;
  const std::string& diff = v.node(d).output(0);
  auto readers = v.consumers(diff);
  if (readers.size() != 2 || v.is_graph_output(diff)) return std::nullopt;
  int p = -1, q = -1;
  for (int r : readers) {
    const auto& rn = v.node(r);
    if (model::is_op(rn, "Div") && rn.input(0) == diff) q = r;
    else if ((model::is_op(rn, "Pow") && rn.input(0) == diff && near(constant_scalar(v, rn.input(1)), 2.0)) ||
             (model::is_op(rn, "Mul") && rn.input(0) == diff && rn.input(1) == diff))
      p = r;
  }
  if (p < 0 || q < 0) return std::nullopt;
  int m2 = sole_consumer(v, v.node(p).output(0));
  if (m2 < 0 || !model::is_op(v.node(m2), "ReduceMean") || reduce_axes(v, v.node(m2)) != axes) return std::nullopt;
  int e = sole_consumer(v, v.node(m2).output(0));
  if (e < 0 || !model::is_op(v.node(e), "Add") || v.node(e).input_size() != 2) return std::nullopt;
  const auto& en = v.node(e);
  const std::string& eps_name = en.input(0) == v.node(m2).output(0) ? en.input(1) : en.input(0);
  auto eps = constant_scalar(v, eps_name);
  if (!eps || *eps < 0) return std::nullopt;
  int s = sole_consumer(v, en.output(0));
  if (s < 0 || !model::is_op(v.node(s), "Sqrt")) return std::nullopt;
  if (sole_consumer(v, v.node(s).output(0)) != q || v.node(q).input(1) != v.node(s).output(0)) return std::nullopt;

  LayerNormMatch m;
  m.kind = "layer_norm";
  m.input = x;
  m.epsilon = static_cast<float>(*eps);
  m.axis = neg.front();
  m.elem_type = v.elem_type(x);
  std::vector<int> nodes = {anchor, d, p, m2, e, s, q};
  std::string y = v.node(q).output(0);
  // Optional affine part: * scale, then + bias (constants).
  auto affine = [&](std::string_view op, std::string& param) {
    int k = sole_consumer(v, y);
    if (k < 0 || !model::is_op(v.node(k), op) || v.node(k).input_size() != 2) return;
    const auto& kn = v.node(k);
    const std::string& other = kn.input(0) == y ? kn.input(1) : kn.input(0);
    if (!v.constant(other)) return;
    param = other;
    nodes.push_back(k);
    y = kn.output(0);
  };
  affine("Mul", m.scale);
  affine("Add", m.bias);
  m.output = y;
  m.nodes = sorted(nodes);
  return m;
}

std::optional<Match> match_conv_bn(const GraphView& v, int anchor) {
  const auto& bn = v.node(anchor);
  if (!model::is_op(bn, "BatchNormalization") || bn.input_size() != 5) return std::nullopt;
  if (model::attr_int(bn, "training_mode", 0) != 0 || model::attr_int(bn, "spatial", 1) != 1) return std::nullopt;
  for (int k = 1; k < bn.output_size(); ++k)
    if (!bn.output(k).empty() && v.use_count(bn.output(k)) > 0) return std::nullopt;
  for (int k = 1; k < 5; ++k) {
    const auto* t = v.constant(bn.input(k));
    if (!t || t->data_type() != onnx::TensorProto::FLOAT) return std::nullopt;
  }
  int c = producer_of(v, bn.input(0), "Conv");
  if (c < 0 || sole_consumer(v, bn.input(0)) != anchor) return std::nullopt;
  const auto& conv = v.node(c);
  const auto* w = v.constant(model::input_or_empty(conv, 1));
  if (!w || w->data_type() != onnx::TensorProto::FLOAT || w->dims_size() < 3) return std::nullopt;
  if (!model::input_or_empty(conv, 2).empty() && !v.constant(conv.input(2))) return std::nullopt;
  // Per-output-channel parameters of matching length.
  for (int k = 1; k < 5; ++k)
    if (model::element_count(*v.constant(bn.input(k))) != w->dims(0)) return std::nullopt;
  Match m;
  m.kind = "conv_bn";
  m.nodes = sorted({c, anchor});
  m.output = bn.output(0);
  return m;
}

std::optional<Match> match_conv_add_bias(const GraphView& v, int anchor) {
  const auto& add = v.node(anchor);
  if (!model::is_op(add, "Add") || add.input_size() != 2) return std::nullopt;
  for (int k = 0; k < 2; ++k) {
    int c = producer_of(v, add.input(k), "Conv");
    if (c < 0 || sole_consumer(v, add.input(k)) != anchor) continue;
    const auto* bias = v.constant(add.input(1 - k));
    const auto& conv = v.node(c);
    const auto* w = v.constant(model::input_or_empty(conv, 1));
    if (!bias || !w || bias->data_type() != onnx::TensorProto::FLOAT || w->data_type() != onnx::TensorProto::FLOAT)
      continue;
    if (!model::input_or_empty(conv, 2).empty() && !v.constant(conv.input(2))) continue;
    // The bias must broadcast along the channel axis only: right-aligned to the
    // output rank (N, M, spatial...), every dim 1 except the channel one.
    int out_rank = w->dims_size();
    int r = bias->dims_size();
    if (r > out_rank) continue;
    bool ok = true;
    for (int j = 0; j < r; ++j) {
      int axis = out_rank - r + j;
      std::int64_t dim = bias->dims(j);
      if (axis == 1 ? (dim != 1 && dim != w->dims(0)) : dim != 1) ok = false;
    }
    if (!ok) continue;
    Match m;
    m.kind = "conv_add_bias";
    m.nodes = sorted({c, anchor});
    m.output = add.output(0);
    return m;
  }
  return std::nullopt;
}

std::optional<Match> match_matmul_add(const GraphView& v, int anchor) {
  const auto& add = v.node(anchor);
  if (!model::is_op(add, "Add") || add.input_size() != 2) return std::nullopt;
  for (int k = 0; k < 2; ++k) {
    int mm = producer_of(v, add.input(k), "MatMul");
    if (mm < 0 || sole_consumer(v, add.input(k)) != anchor) continue;
    const auto& mn = v.node(mm);
    auto a = v.partial_shape(mn.input(0));
    auto b = v.partial_shape(mn.input(1));
    const auto* c = v.constant(add.input(1 - k));
    if (!a || !b || !c || a->size() != 2 || b->size() != 2) continue;
    std::int32_t t = v.elem_type(mn.input(0));
    if (t != onnx::TensorProto::FLOAT && t != onnx::TensorProto::FLOAT16 && t != onnx::TensorProto::DOUBLE) continue;
    if (c->data_type() != t) continue;
    std::int64_t rows = (*a)[0], cols = (*b)[1];
    bool ok = c->dims_size() <= 2;
    for (int j = 0; ok && j < c->dims_size(); ++j) {
      std::int64_t dim = c->dims(j), want = (c->dims_size() - j == 1) ? cols : rows;
      ok = dim == 1 || (want >= 0 && dim == want);
    }
    if (!ok) continue;
    Match m;
    m.kind = "matmul_add";
    m.nodes = sorted({mm, anchor});
    m.output = add.output(0);
    return m;
  }
  return std::nullopt;
}

std::optional<Match> match_consecutive_transposes(const GraphView& v, int anchor) {
  const auto& t2 = v.node(anchor);
  if (!model::is_op(t2, "Transpose") || t2.input_size() != 1) return std::nullopt;
  int t1 = producer_of(v, t2.input(0), "Transpose");
  if (t1 < 0) return std::nullopt;
  bool perms = model::attr_ints(t2, "perm") && model::attr_ints(v.node(t1), "perm");
  if (!perms && !v.rank(v.node(t1).input(0))) return std::nullopt;
  Match m;
  m.kind = "consecutive_transposes";
  m.nodes = sorted({t1, anchor});
  m.output = t2.output(0);
  return m;
}

std::optional<Match> match_attention(const GraphView& v, int anchor) {
  const auto& sm = v.node(anchor);
  if (!model::is_op(sm, "Softmax") || sm.input_size() != 1) return std::nullopt;
  std::vector<int> nodes = {anchor};
  std::string in = sm.input(0);
  int p = v.producer(in);
  if (p >= 0 && model::is_op(v.node(p), "Add")) {  // attention mask
    nodes.push_back(p);
    int k = -1;
    for (int j = 0; j < 2 && k < 0; ++j)
      if (v.producer(v.node(p).input(j)) >= 0) k = j;
    if (k < 0) return std::nullopt;
    in = v.node(p).input(k);
    p = v.producer(in);
  }
  if (p >= 0 && (model::is_op(v.node(p), "Div") || model::is_op(v.node(p), "Mul")) &&
      constant_scalar(v, v.node(p).input(1))) {
    nodes.push_back(p);  // scale
    in = v.node(p).input(0);
    p = v.producer(in);
  }
  if (p < 0 || !model::is_op(v.node(p), "MatMul")) return std::nullopt;
  nodes.push_back(p);
  int out = sole_consumer(v, sm.output(0));
  if (out < 0 || !model::is_op(v.node(out), "MatMul") || v.node(out).input(0) != sm.output(0)) return std::nullopt;
  nodes.push_back(out);
  Match m;
  m.kind = "attention";
  m.nodes = sorted(nodes);
  m.output = v.node(out).output(0);
  return m;
}

std::optional<Match> match_identity_chain(const GraphView& v, int anchor) {
  auto passthrough = [&](int i) {
    return i >= 0 && (model::is_op(v.node(i), "Identity") || model::is_op(v.node(i), "Dropout"));
  };
  if (!passthrough(anchor) || v.node(anchor).input_size() < 1) return std::nullopt;
  if (passthrough(v.producer(v.node(anchor).input(0)))) return std::nullopt;  // not the chain's start
  Match m;
  m.kind = "identity_dropout_chain";
  int i = anchor;
  while (true) {
    m.nodes.push_back(i);
    m.output = v.node(i).output(0);
    int next = sole_consumer(v, m.output);
    if (!passthrough(next)) break;
    i = next;
  }
  m.nodes = sorted(m.nodes);
  return m;
}

std::vector<Match> find_patterns(const GraphView& v) {
  std::vector<Match> out;
  for (int i = 0; i < v.size(); ++i) {
    if (v.removed(i)) continue;
    const auto& op = v.node(i).op_type();
    if (!model::is_default_domain(v.node(i).domain())) continue;
    if (op == "Erf" || op == "Tanh") {
      if (auto m = match_gelu(v, i)) out.push_back(*m);
    } else if (op == "ReduceMean") {
      if (auto m = match_layer_norm(v, i)) out.push_back(*m);
    } else if (op == "BatchNormalization") {
      if (auto m = match_conv_bn(v, i)) out.push_back(*m);
    } else if (op == "Add") {
      if (auto m = match_conv_add_bias(v, i)) out.push_back(*m);
      else if (auto m2 = match_matmul_add(v, i)) out.push_back(*m2);
    } else if (op == "Transpose") {
      if (auto m = match_consecutive_transposes(v, i)) out.push_back(*m);
    } else if (op == "Softmax") {
      if (auto m = match_attention(v, i)) out.push_back(*m);
    } else if (op == "Identity" || op == "Dropout") {
      if (auto m = match_identity_chain(v, i)) out.push_back(*m);
    }
  }
  return out;
}

}  // namespace winml::passes
