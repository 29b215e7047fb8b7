// The optimization pass interface. A pass rewrites one graph at a time through
// a GraphView and returns how many rewrites it made; the driver
// (optimize.h) runs the enabled passes over every graph, subgraphs included,
// until a round makes no rewrite. Every pass preserves the model's outputs
// (values and graph output names).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/model.h"
#include "passes/graph_view.h"

namespace winml::ep {
struct EpTable;
}

namespace winml::passes {

class ConstantEvaluator;

// What passes need to know about opsets.
struct OpsetFacts {
  std::int64_t onnx = 0;         // default-domain opset the model imports
  std::int64_t microsoft = 0;    // com.microsoft opset, 0 when not imported
  std::int64_t libonnx_max = 0;  // newest default-domain opset libonnx's schemas know
};

// The opset facts of a model.
OpsetFacts opset_facts(const model::Model& m);

// libonnx shape inference in lenient mode (a node it cannot infer keeps its
// existing types). Skipped, with a note, for default-domain opsets newer than
// libonnx knows. Returns the number of value_info entries added.
int infer_shapes_lenient(onnx::ModelProto& m, const OpsetFacts& opsets, std::string* note);

struct PassContext {
  model::Model& model;
  OpsetFacts opsets;
  // Operator table of the EP the model is optimized for; null when none was named.
  const ep::EpTable* ep_table = nullptr;  // the target EP's operator table, when one is named
  // Evaluates constant nodes for fold_constants; null disables evaluation.
  const ConstantEvaluator* evaluator = nullptr;
  // Human-readable remarks for the report (skipped work, fallbacks).
  std::vector<std::string> notes;

  void note(std::string message);
  // Adds an opset import (e.g. com.microsoft) if the model lacks it.
  void require_opset(const std::string& domain, std::int64_t version);
};

class Pass {
 public:
  virtual ~Pass() = default;
  // Runs over the main graph and every subgraph, committing each; returns the
  // number of rewrites. Whole-model passes override this.
  virtual int run_model(PassContext& ctx);
  // Rewrites one graph (edits go through `view`, the driver commits them).
  virtual int run_graph(GraphView& view, PassContext& ctx) { return 0; }
};

// A pass that looks at each node once and may rewrite around it.
class NodePass : public Pass {
 public:
  int run_graph(GraphView& view, PassContext& ctx) override;
  // Returns true when it rewrote something around node `i` (a live node).
  virtual bool rewrite(GraphView& view, int i, PassContext& ctx) = 0;
};

}  // namespace winml::passes
