// The build graph: one chain of stage nodes per model. A node is pure
// data (what it reads, what it writes, what its key is made of); running it is
// the NodeRunner's business, so this layer knows nothing about ONNX.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "store/digest.h"
#include "store/ingredient_log.h"

namespace winml::graph {

using store::Digest;
using store::Ingredient;

// Inputs from outside the graph, declared by the stage. Paths are relative to
// the project directory (absolute ones are allowed but then the key depends on
// the file's content only, never on its path).
enum class InputKind {
  kFile,   // one file; missing is an input error
  kGlob,   // files matching a pattern ('*', '?', '**'); none is fine
  kTree,   // every file below a directory; missing is an input error
  kModel,  // a model file and the sidecars it names (found by the runner, memoized by content)
};

struct InputDecl {
  InputKind kind = InputKind::kFile;
  std::string path;
  // kFile: the name its ingredient takes ("file:<name>") in place of the
  // path, for a file outside the project whose place depends on the machine
  // (a checkpoint in $TORCH_HOME): its key holds what it is, not where, so
  // clones elsewhere share results. Empty: the path (relative to the project
  // when it is inside).
  std::string name;
  friend bool operator==(const InputDecl&, const InputDecl&) = default;
};

struct Node {
  std::string model;           // model name, also its output folder
  std::string name;            // stage: export, analyze, optimize, quantize, compile, package
  std::string kind;            // what the runner executes: the stage, or "import" / "optimize.auto" in its place
  std::string implementation;  // e.g. "winml-quantize/1", for reports
  std::string primary_output;  // e.g. "optimized.onnx"; other files written next to it are sidecars
  bool enabled = true;
  std::string disabled_reason;
  // Why this node cannot run here, found when the plan was made
  // (pipeline::Declarations::cannot_run); a dry run reports it as a failure.
  std::string cannot_run;
  std::vector<std::size_t> deps;  // nodes whose outputs are this node's inputs (earlier in Graph::nodes)
  std::vector<InputDecl> extra_inputs;
  // Config values, tool and implementation versions. May be empty for a graph
  // read back from a stored plan: the ingredient log has them by digest.
  std::vector<Ingredient> static_ingredients;
  Digest static_digest;

  std::string id() const { return model + "/" + name; }
};

struct Graph {
  std::vector<Node> nodes;           // topological order: deps always point backwards
  std::vector<std::string> models;   // in config order

  // Index of `model`/`name`, or npos.
  std::size_t find(const std::string& model, const std::string& name) const;
  // Node indices of each model (in `models` order), in one pass.
  std::vector<std::vector<std::size_t>> nodes_by_model() const;
};

inline constexpr std::size_t npos = static_cast<std::size_t>(-1);

}  // namespace winml::graph
