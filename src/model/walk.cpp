#include "model/walk.h"

namespace winml::model {

namespace {
template <typename G, typename Fn>
void walk_graphs(G& g, const Fn& fn, int depth) {
  fn(g, depth);
  for (int n = 0; n < g.node_size(); ++n) {
    auto& node = [&]() -> auto& {
      if constexpr (std::is_const_v<G>) return g.node(n);
      else return *g.mutable_node(n);
    }
    ();
    for (int a = 0; a < node.attribute_size(); ++a) {
      auto& attr = [&]() -> auto& {
        if constexpr (std::is_const_v<G>) return node.attribute(a);
        else return *node.mutable_attribute(a);
      }
      ();
      if (attr.has_g()) {
        if constexpr (std::is_const_v<G>) walk_graphs(attr.g(), fn, depth + 1);
        else walk_graphs(*attr.mutable_g(), fn, depth + 1);
      }
      for (int i = 0; i < attr.graphs_size(); ++i) {
        if constexpr (std::is_const_v<G>) walk_graphs(attr.graphs(i), fn, depth + 1);
        else walk_graphs(*attr.mutable_graphs(i), fn, depth + 1);
      }
    }
  }
}
}  // namespace

void for_each_graph(onnx::GraphProto& g, const std::function<void(onnx::GraphProto&, int)>& fn) {
  walk_graphs(g, fn, 0);
}

void for_each_graph(const onnx::GraphProto& g, const std::function<void(const onnx::GraphProto&, int)>& fn) {
  walk_graphs(g, fn, 0);
}

void for_each_tensor(onnx::GraphProto& root, const std::function<void(onnx::TensorProto&, TensorSite)>& fn) {
  for_each_graph(root, [&](onnx::GraphProto& g, int) {
    for (auto& t : *g.mutable_initializer()) fn(t, TensorSite::kInitializer);
    for (auto& s : *g.mutable_sparse_initializer()) fn(*s.mutable_values(), TensorSite::kSparseValue);
    for (auto& n : *g.mutable_node())
      for (auto& a : *n.mutable_attribute()) {
        if (a.has_t()) fn(*a.mutable_t(), TensorSite::kAttribute);
        for (auto& t : *a.mutable_tensors()) fn(t, TensorSite::kAttribute);
      }
  });
}

void for_each_tensor(const onnx::GraphProto& root,
                     const std::function<void(const onnx::TensorProto&, TensorSite)>& fn) {
  for_each_graph(root, [&](const onnx::GraphProto& g, int) {
    for (const auto& t : g.initializer()) fn(t, TensorSite::kInitializer);
    for (const auto& s : g.sparse_initializer()) fn(s.values(), TensorSite::kSparseValue);
    for (const auto& n : g.node())
      for (const auto& a : n.attribute()) {
        if (a.has_t()) fn(a.t(), TensorSite::kAttribute);
        for (const auto& t : a.tensors()) fn(t, TensorSite::kAttribute);
      }
  });
}

}  // namespace winml::model
