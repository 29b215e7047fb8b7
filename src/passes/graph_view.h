// An index over one ONNX graph for passes: who produces and who reads each
// value, which values are constants, what type and shape each value has, and
// a small set of edits (remove, insert, rewire) applied by commit().
//
// Reads through the enclosing graphs: a subgraph (If/Loop/Scan body) sees the
// constants and value types of the graphs around it, and a node that holds a
// subgraph counts as a reader of every outer value the subgraph mentions.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/model.h"
#include "model/onnx.h"

namespace winml::passes {

class GraphView {
 public:
  // `parent` is the view of the graph holding the node this graph belongs to.
  GraphView(onnx::GraphProto& graph, const model::Model& model, const GraphView* parent = nullptr);
  // For read-only users (analysis): the view is built the same way, but every
  // edit throws std::logic_error.
  GraphView(const GraphView&) = delete;
  GraphView& operator=(const GraphView&) = delete;
  GraphView(GraphView&&) = default;
  static GraphView read_only(const onnx::GraphProto& graph, const model::Model& model,
                             const GraphView* parent = nullptr);

  onnx::GraphProto& graph() { return *graph_; }
  const onnx::GraphProto& graph() const { return *graph_; }
  const model::Model& model() const { return *model_; }
  const GraphView* parent() const { return parent_; }

  // Nodes, by index. Removed nodes stay addressable until commit().
  int size() const { return static_cast<int>(nodes_.size()); }
  onnx::NodeProto& node(int i) { return *nodes_[static_cast<std::size_t>(i)]; }
  const onnx::NodeProto& node(int i) const { return *nodes_[static_cast<std::size_t>(i)]; }
  bool removed(int i) const { return removed_[static_cast<std::size_t>(i)]; }

  // The node of this graph producing `value`, or -1 (graph input, initializer,
  // outer-scope value, or removed producer).
  int producer(const std::string& value) const;
  // Live nodes of this graph reading `value` (each once, even if it reads it
  // twice), including nodes whose subgraphs read it.
  std::vector<int> consumers(const std::string& value) const;
  // Number of live readers plus one if it is an output of this graph.
  int use_count(const std::string& value) const;
  bool is_graph_output(const std::string& value) const { return outputs_.count(value) > 0; }
  bool is_graph_input(const std::string& value) const { return inputs_.count(value) > 0; }

  // The constant value of `value`: a non-overridable initializer or a Constant
  // node's tensor, here or in an enclosing graph. nullptr otherwise.
  const onnx::TensorProto* constant(const std::string& value) const;
  // True if `value` is an initializer of this graph (not an enclosing one).
  bool is_local_initializer(const std::string& value) const { return initializers_.count(value) > 0; }

  // Type information from value_info, inputs, outputs or initializers.
  const onnx::TypeProto* type(const std::string& value) const;
  std::int32_t elem_type(const std::string& value) const;  // 0 when unknown
  std::optional<int> rank(const std::string& value) const;
  // Every dimension known and fixed.
  std::optional<std::vector<std::int64_t>> static_shape(const std::string& value) const;
  // Dimensions with -1 for the unknown/symbolic ones (rank must be known).
  std::optional<std::vector<std::int64_t>> partial_shape(const std::string& value) const;
  // True when a tensor of shape `dims` broadcasts into `value` without
  // widening it: rank not larger, each dimension 1 or equal to a known one.
  bool broadcasts_into(const std::string& value, std::span<const std::int64_t> dims) const;

  // Adds type information from elsewhere (e.g. shape inference run on a copy)
  // for values this graph does not describe yet. `infos` must outlive the view.
  void add_types(const google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>& infos);

  // ---- edits ----
  void remove_node(int i);
  // Adds a node; at commit it is placed just before node `before` (or at the end
  // for -1). Returns its index.
  int add_node(onnx::NodeProto node, int before);
  // Rewires input `k` of node `i` / renames its output `k` (keeping the index current).
  void set_input(int i, int k, const std::string& value);
  void set_output(int i, int k, const std::string& value);
  // Makes every reader in this graph (and in subgraphs that see it) read `to`
  // instead of `from`. Graph outputs are not touched.
  void replace_uses(const std::string& from, const std::string& to);
  // Removes node `i`, whose output `out` equals its input `in` (Identity-like).
  // When `out` is a graph output, the producer of `in` is renamed to write `out`
  // instead, if that is safe. Returns false (and changes nothing) otherwise.
  bool bypass(int i, const std::string& in, const std::string& out);
  // A value/node name not used anywhere in the model, derived from `base`.
  std::string unique_name(const std::string& base);
  // Adds an initializer to this graph (inline data). Returns its name.
  const std::string& add_initializer(onnx::TensorProto tensor);
  // Drops an initializer of this graph (at commit).
  void remove_initializer(const std::string& name);
  // Records type information for a (new) value.
  void set_value_info(const std::string& value, const onnx::TypeProto& type);

  // Writes the edits into the GraphProto (removed nodes dropped, added nodes
  // placed, topological order restored) and rebuilds the index.
  void commit();
  bool edited() const { return edited_; }

 private:
  void build();
  void check_writable() const;
  std::unordered_set<std::string>& names() const;
  void index_node(int i);
  void collect_names(const onnx::GraphProto& g) const;

  onnx::GraphProto* graph_;
  const model::Model* model_;
  const GraphView* parent_;
  bool read_only_ = false;
  bool edited_ = false;

  std::vector<onnx::NodeProto*> nodes_;
  std::vector<bool> removed_;
  std::vector<int> place_before_;  // for added nodes: index they go before (-1: end)
  std::vector<std::unique_ptr<onnx::NodeProto>> added_;
  std::unordered_map<std::string, int> producer_;
  std::unordered_map<std::string, std::vector<int>> readers_;
  std::unordered_set<std::string> outputs_, inputs_;
  std::unordered_map<std::string, const onnx::TensorProto*> initializers_;
  std::unordered_set<std::string> dropped_initializers_;
  std::unordered_map<std::string, const onnx::TypeProto*> types_;
  std::deque<onnx::TypeProto> owned_types_;              // types synthesized for initializers / set_value_info
  mutable std::deque<onnx::TensorProto> owned_tensors_;  // Constant node attributes converted to tensors
  mutable std::unordered_map<std::string, const onnx::TensorProto*> constant_cache_;
  // Every name in the model; kept by the root view, shared by subgraph views.
  mutable std::unordered_set<std::string> own_names_;
  mutable bool names_collected_ = false;
};

// Outer-scope names a subgraph reads (names it uses but does not define).
std::unordered_set<std::string> free_names(const onnx::GraphProto& g);

// Renames reads of `from` to `to` inside `g` and its subgraphs, except where a
// graph defines `from` itself (shadowing). Returns the number of rewritten inputs.
int rename_free_uses(onnx::GraphProto& g, const std::string& from, const std::string& to);

}  // namespace winml::passes
