#include "passes/graph_view.h"

#include <algorithm>
#include <queue>
#include <stdexcept>

#include "model/node_util.h"
#include "model/tensor_values.h"
#include "model/walk.h"

namespace winml::passes {

namespace {

template <typename Fn>
void for_each_subgraph(const onnx::NodeProto& n, const Fn& fn) {
  for (const auto& a : n.attribute()) {
    if (a.has_g()) fn(a.g());
    for (const auto& g : a.graphs()) fn(g);
  }
}

template <typename Fn>
void for_each_subgraph(onnx::NodeProto& n, const Fn& fn) {
  for (auto& a : *n.mutable_attribute()) {
    if (a.has_g()) fn(*a.mutable_g());
    for (auto& g : *a.mutable_graphs()) fn(g);
  }
}

void collect_free(const onnx::GraphProto& g, const std::unordered_set<std::string>& outer_defined,
                  std::unordered_set<std::string>& out) {
  std::unordered_set<std::string> defined = outer_defined;
  for (const auto& i : g.input()) defined.insert(i.name());
  for (const auto& t : g.initializer()) defined.insert(t.name());
  for (const auto& s : g.sparse_initializer()) defined.insert(s.values().name());
  for (const auto& n : g.node())
    for (const auto& o : n.output()) defined.insert(o);
  for (const auto& n : g.node()) {
    for (const auto& i : n.input())
      if (!i.empty() && !defined.count(i)) out.insert(i);
    for_each_subgraph(n, [&](const onnx::GraphProto& sg) { collect_free(sg, defined, out); });
  }
  for (const auto& o : g.output())
    if (!defined.count(o.name())) out.insert(o.name());
}

bool defines(const onnx::GraphProto& g, const std::string& name) {
  for (const auto& i : g.input())
    if (i.name() == name) return true;
  for (const auto& t : g.initializer())
    if (t.name() == name) return true;
  for (const auto& n : g.node())
    for (const auto& o : n.output())
      if (o == name) return true;
  return false;
}

}  // namespace

std::unordered_set<std::string> free_names(const onnx::GraphProto& g) {
  std::unordered_set<std::string> out;
  collect_free(g, {}, out);
  return out;
}

int rename_free_uses(onnx::GraphProto& g, const std::string& from, const std::string& to) {
  if (defines(g, from)) return 0;
  int n = 0;
  for (auto& node : *g.mutable_node()) {
    for (auto& i : *node.mutable_input())
      if (i == from) i = to, ++n;
    for_each_subgraph(node, [&](onnx::GraphProto& sg) { n += rename_free_uses(sg, from, to); });
  }
  for (auto& o : *g.mutable_output())
    if (o.name() == from) o.set_name(to), ++n;
  return n;
}

GraphView::GraphView(onnx::GraphProto& graph, const model::Model& model, const GraphView* parent)
    : graph_(&graph), model_(&model), parent_(parent) {
  build();
}

GraphView GraphView::read_only(const onnx::GraphProto& graph, const model::Model& model, const GraphView* parent) {
  // The const_cast is safe: every edit checks read_only_ first.
  GraphView v(const_cast<onnx::GraphProto&>(graph), model, parent);
  v.read_only_ = true;
  return v;
}

std::unordered_set<std::string>& GraphView::names() const {
  const GraphView* root = this;
  while (root->parent_) root = root->parent_;
  // Collected on first use: most views never need a fresh name.
  if (!root->names_collected_) {
    root->names_collected_ = true;
    root->collect_names(root->model_->proto.graph());
    if (root->graph_ != &root->model_->proto.graph()) root->collect_names(*root->graph_);
  }
  return root->own_names_;
}

void GraphView::check_writable() const {
  if (read_only_) throw std::logic_error("edit of a read-only GraphView");
}

void GraphView::collect_names(const onnx::GraphProto& g) const {
  model::for_each_graph(g, [&](const onnx::GraphProto& sg, int) {
    for (const auto& i : sg.input()) own_names_.insert(i.name());
    for (const auto& t : sg.initializer()) own_names_.insert(t.name());
    for (const auto& n : sg.node()) {
      own_names_.insert(n.name());
      for (const auto& o : n.output()) own_names_.insert(o);
    }
  });
}

void GraphView::build() {
  nodes_.clear();
  removed_.clear();
  place_before_.clear();
  added_.clear();
  producer_.clear();
  readers_.clear();
  outputs_.clear();
  inputs_.clear();
  initializers_.clear();
  dropped_initializers_.clear();
  types_.clear();
  owned_types_.clear();
  owned_tensors_.clear();
  constant_cache_.clear();
  edited_ = false;

  if (!parent_) {
    // Names must be unique across the whole model; subgraph views share this set.
    own_names_.clear();
    names_collected_ = false;
  }

  for (const auto& o : graph_->output()) outputs_.insert(o.name());
  for (const auto& i : graph_->input()) inputs_.insert(i.name());
  // IR < 4: initializers are listed as inputs too but are constants.
  bool inputs_override = model_->proto.ir_version() >= 4;
  for (const auto& t : graph_->initializer()) {
    if (!inputs_override || !inputs_.count(t.name())) initializers_[t.name()] = &t;
    onnx::TypeProto& tp = owned_types_.emplace_back();
    tp.mutable_tensor_type()->set_elem_type(t.data_type());
    auto* shape = tp.mutable_tensor_type()->mutable_shape();
    for (auto d : t.dims()) shape->add_dim()->set_dim_value(d);
    types_[t.name()] = &tp;
  }
  for (const auto& v : graph_->value_info()) types_[v.name()] = &v.type();
  for (const auto& v : graph_->input()) types_[v.name()] = &v.type();
  for (const auto& v : graph_->output()) types_[v.name()] = &v.type();

  nodes_.reserve(static_cast<std::size_t>(graph_->node_size()));
  for (auto& n : *graph_->mutable_node()) nodes_.push_back(&n);
  removed_.assign(nodes_.size(), false);
  place_before_.assign(nodes_.size(), -1);
  for (int i = 0; i < size(); ++i) index_node(i);
}

void GraphView::index_node(int i) {
  const auto& n = node(i);
  for (const auto& o : n.output())
    if (!o.empty()) producer_[o] = i;
  auto add_reader = [&](const std::string& v) {
    auto& r = readers_[v];
    if (r.empty() || r.back() != i) r.push_back(i);
  };
  for (const auto& in : n.input())
    if (!in.empty()) add_reader(in);
  if (model::has_subgraph(n)) {
    std::unordered_set<std::string> free;
    for_each_subgraph(n, [&](const onnx::GraphProto& sg) { collect_free(sg, {}, free); });
    std::vector<std::string> sorted(free.begin(), free.end());
    std::sort(sorted.begin(), sorted.end());
    for (const auto& v : sorted) add_reader(v);
  }
}

int GraphView::producer(const std::string& value) const {
  auto it = producer_.find(value);
  if (it == producer_.end() || removed(it->second)) return -1;
  // The producer may have been rewired to write another name since indexing.
  for (const auto& o : node(it->second).output())
    if (o == value) return it->second;
  return -1;
}

std::vector<int> GraphView::consumers(const std::string& value) const {
  std::vector<int> out;
  auto it = readers_.find(value);
  if (it == readers_.end()) return out;
  for (int i : it->second) {
    if (removed(i) || (!out.empty() && out.back() == i)) continue;
    // Still a reader? (inputs may have been rewired)
    const auto& n = node(i);
    bool reads = std::find(n.input().begin(), n.input().end(), value) != n.input().end();
    if (!reads && model::has_subgraph(n)) {
      std::unordered_set<std::string> free;
      for_each_subgraph(n, [&](const onnx::GraphProto& sg) { collect_free(sg, {}, free); });
      reads = free.count(value) > 0;
    }
    if (reads && std::find(out.begin(), out.end(), i) == out.end()) out.push_back(i);
  }
  return out;
}

int GraphView::use_count(const std::string& value) const {
  return static_cast<int>(consumers(value).size()) + (is_graph_output(value) ? 1 : 0);
}

const onnx::TensorProto* GraphView::constant(const std::string& value) const {
  if (value.empty()) return nullptr;
  if (auto it = initializers_.find(value); it != initializers_.end()) return it->second;
  if (auto it = constant_cache_.find(value); it != constant_cache_.end()) return it->second;
  if (int p = producer(value); p >= 0) {
    const auto& n = node(p);
    if (n.op_type() != "Constant" || !(n.domain().empty() || n.domain() == "ai.onnx")) return nullptr;
    auto t = model::constant_node_tensor(n);
    if (!t) return nullptr;
    owned_tensors_.push_back(std::move(*t));
    constant_cache_[value] = &owned_tensors_.back();
    return &owned_tensors_.back();
  }
  // A graph input (including an overridable initializer) shadows outer values.
  if (inputs_.count(value)) return nullptr;
  return parent_ ? parent_->constant(value) : nullptr;
}

const onnx::TypeProto* GraphView::type(const std::string& value) const {
  if (auto it = types_.find(value); it != types_.end()) return it->second;
  return parent_ ? parent_->type(value) : nullptr;
}

std::int32_t GraphView::elem_type(const std::string& value) const {
  const auto* t = type(value);
  return t && t->has_tensor_type() ? t->tensor_type().elem_type() : 0;
}

std::optional<int> GraphView::rank(const std::string& value) const {
  const auto* t = type(value);
  if (!t || !t->has_tensor_type() || !t->tensor_type().has_shape()) return std::nullopt;
  return t->tensor_type().shape().dim_size();
}

std::optional<std::vector<std::int64_t>> GraphView::partial_shape(const std::string& value) const {
  const auto* t = type(value);
  if (!t || !t->has_tensor_type() || !t->tensor_type().has_shape()) return std::nullopt;
  std::vector<std::int64_t> dims;
  for (const auto& d : t->tensor_type().shape().dim()) dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
  return dims;
}

bool GraphView::broadcasts_into(const std::string& value, std::span<const std::int64_t> dims) const {
  if (dims.empty()) return true;  // a scalar broadcasts into any shape
  const auto shape = partial_shape(value);
  if (!shape || dims.size() > shape->size()) return false;
  const std::size_t offset = shape->size() - dims.size();
  for (std::size_t k = 0; k < dims.size(); ++k)
    if (dims[k] != 1 && (dims[k] != (*shape)[offset + k] || dims[k] < 0)) return false;
  return true;
}

std::optional<std::vector<std::int64_t>> GraphView::static_shape(const std::string& value) const {
  auto dims = partial_shape(value);
  if (!dims) return std::nullopt;
  for (auto d : *dims)
    if (d < 0) return std::nullopt;
  return dims;
}

void GraphView::add_types(const google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>& infos) {
  for (const auto& v : infos) types_.emplace(v.name(), &v.type());
}

void GraphView::remove_node(int i) {
  check_writable();
  removed_[static_cast<std::size_t>(i)] = true;
  edited_ = true;
}

int GraphView::add_node(onnx::NodeProto n, int before) {
  check_writable();
  if (n.name().empty()) n.set_name(unique_name(n.op_type()));
  else names().insert(n.name());
  for (const auto& o : n.output()) names().insert(o);
  added_.push_back(std::make_unique<onnx::NodeProto>(std::move(n)));
  nodes_.push_back(added_.back().get());
  removed_.push_back(false);
  place_before_.push_back(before);
  int i = size() - 1;
  index_node(i);
  edited_ = true;
  return i;
}

void GraphView::set_input(int i, int k, const std::string& value) {
  check_writable();
  auto& n = node(i);
  while (n.input_size() <= k) n.add_input("");
  n.set_input(k, value);
  if (!value.empty()) {
    auto& r = readers_[value];
    if (std::find(r.begin(), r.end(), i) == r.end()) r.push_back(i);
  }
  edited_ = true;
}

void GraphView::set_output(int i, int k, const std::string& value) {
  check_writable();
  node(i).set_output(k, value);
  producer_[value] = i;
  names().insert(value);
  edited_ = true;
}

void GraphView::replace_uses(const std::string& from, const std::string& to) {
  check_writable();
  for (int c : consumers(from)) {
    auto& n = node(c);
    for (auto& in : *n.mutable_input())
      if (in == from) in = to;
    for_each_subgraph(n, [&](onnx::GraphProto& sg) { rename_free_uses(sg, from, to); });
    auto& r = readers_[to];
    if (std::find(r.begin(), r.end(), c) == r.end()) r.push_back(c);
  }
  edited_ = true;
}

bool GraphView::bypass(int i, const std::string& in, const std::string& out) {
  check_writable();
  if (!is_graph_output(out)) {
    replace_uses(out, in);
    remove_node(i);
    return true;
  }
  // `out` must keep its name. Rename the producer of `in` instead, when `in` is
  // private to this node: produced here, read by nothing else, not an output.
  int p = producer(in);
  if (p < 0 || is_graph_output(in) || consumers(in).size() != 1) return false;
  remove_node(i);
  for (auto& o : *node(p).mutable_output())
    if (o == in) o = out;
  producer_[out] = p;
  return true;
}

std::string GraphView::unique_name(const std::string& base) {
  check_writable();
  std::string name = base;
  for (int k = 1; names().count(name); ++k) name = base + "_" + std::to_string(k);
  names().insert(name);
  return name;
}

const std::string& GraphView::add_initializer(onnx::TensorProto tensor) {
  check_writable();
  names().insert(tensor.name());
  auto* t = graph_->add_initializer();
  *t = std::move(tensor);
  // The repeated field may have moved earlier elements: re-point every entry.
  initializers_.clear();
  bool inputs_override = model_->proto.ir_version() >= 4;
  for (const auto& x : graph_->initializer())
    if ((!inputs_override || !inputs_.count(x.name())) && !dropped_initializers_.count(x.name()))
      initializers_[x.name()] = &x;
  onnx::TypeProto& tp = owned_types_.emplace_back();
  tp.mutable_tensor_type()->set_elem_type(t->data_type());
  auto* shape = tp.mutable_tensor_type()->mutable_shape();
  for (auto d : t->dims()) shape->add_dim()->set_dim_value(d);
  types_[t->name()] = &tp;
  edited_ = true;
  return t->name();
}

void GraphView::remove_initializer(const std::string& name) {
  check_writable();
  initializers_.erase(name);
  dropped_initializers_.insert(name);
  edited_ = true;
}

void GraphView::set_value_info(const std::string& value, const onnx::TypeProto& type) {
  check_writable();
  owned_types_.push_back(type);
  types_[value] = &owned_types_.back();
  auto* vi = graph_->add_value_info();
  vi->set_name(value);
  *vi->mutable_type() = type;
}

void GraphView::commit() {
  check_writable();
  if (!edited_) return;
  const int original = graph_->node_size();
  // Desired order: each added node goes right before its anchor, in creation order.
  std::vector<std::vector<int>> before(static_cast<std::size_t>(original) + 1);
  for (int i = original; i < size(); ++i) {
    int anchor = place_before_[static_cast<std::size_t>(i)];
    // An anchor that is itself an added node resolves to that node's anchor.
    while (anchor >= original) anchor = place_before_[static_cast<std::size_t>(anchor)];
    before[static_cast<std::size_t>(anchor < 0 ? original : anchor)].push_back(i);
  }
  std::vector<int> order;
  order.reserve(nodes_.size());
  for (int i = 0; i <= original; ++i) {
    for (int a : before[static_cast<std::size_t>(i)])
      if (!removed(a)) order.push_back(a);
    if (i < original && !removed(i)) order.push_back(i);
  }

  // Restore topological order if the placement broke it (stable: ready nodes
  // keep their relative order).
  std::unordered_map<std::string, int> made_by;
  for (std::size_t k = 0; k < order.size(); ++k)
    for (const auto& o : node(order[k]).output())
      if (!o.empty()) made_by[o] = static_cast<int>(k);
  bool sorted = true;
  std::vector<std::vector<int>> deps(order.size());
  for (std::size_t k = 0; k < order.size() && sorted; ++k) {
    std::unordered_set<std::string> reads(node(order[k]).input().begin(), node(order[k]).input().end());
    if (model::has_subgraph(node(order[k]))) {
      for_each_subgraph(node(order[k]), [&](const onnx::GraphProto& sg) { collect_free(sg, {}, reads); });
    }
    for (const auto& r : reads) {
      auto it = made_by.find(r);
      if (it == made_by.end()) continue;
      deps[k].push_back(it->second);
      if (it->second >= static_cast<int>(k)) sorted = false;
    }
  }
  if (!sorted) {
    for (std::size_t k = 0; k < order.size(); ++k) {
      deps[k].clear();
      std::unordered_set<std::string> reads(node(order[k]).input().begin(), node(order[k]).input().end());
      if (model::has_subgraph(node(order[k])))
        for_each_subgraph(node(order[k]), [&](const onnx::GraphProto& sg) { collect_free(sg, {}, reads); });
      for (const auto& r : reads)
        if (auto it = made_by.find(r); it != made_by.end() && it->second != static_cast<int>(k))
          deps[k].push_back(it->second);
    }
    std::vector<int> pending(order.size());
    std::vector<std::vector<int>> users(order.size());
    for (std::size_t k = 0; k < order.size(); ++k) {
      std::sort(deps[k].begin(), deps[k].end());
      deps[k].erase(std::unique(deps[k].begin(), deps[k].end()), deps[k].end());
      pending[k] = static_cast<int>(deps[k].size());
      for (int d : deps[k]) users[static_cast<std::size_t>(d)].push_back(static_cast<int>(k));
    }
    std::priority_queue<int, std::vector<int>, std::greater<>> ready;
    for (std::size_t k = 0; k < order.size(); ++k)
      if (pending[k] == 0) ready.push(static_cast<int>(k));
    std::vector<int> topo;
    while (!ready.empty()) {
      int k = ready.top();
      ready.pop();
      topo.push_back(order[static_cast<std::size_t>(k)]);
      for (int u : users[static_cast<std::size_t>(k)])
        if (--pending[static_cast<std::size_t>(u)] == 0) ready.push(u);
    }
    if (topo.size() != order.size())
      throw std::logic_error("optimization pass created a cycle in graph '" + graph_->name() + "'");
    order = std::move(topo);
  }

  if (!dropped_initializers_.empty()) {
    auto* inits = graph_->mutable_initializer();
    int keep = 0;
    for (int k = 0; k < inits->size(); ++k) {
      if (dropped_initializers_.count(inits->Get(k).name())) continue;
      if (keep != k) inits->SwapElements(keep, k);
      ++keep;
    }
    inits->DeleteSubrange(keep, inits->size() - keep);
  }

  // Move the nodes out (protobuf swap, no deep copies) and back in the new order.
  std::vector<onnx::NodeProto> moved(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) moved[k].Swap(&node(order[k]));
  graph_->clear_node();
  for (auto& n : moved) graph_->add_node()->Swap(&n);
  build();
}

}  // namespace winml::passes
