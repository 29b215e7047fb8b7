// The execution plan: everything decided before a model runs, kept as plain
// data apart from Session so that it can be inspected (and, for the `ref`
// compile backend, serialized) on its own.
//
//   values     every named value: graph inputs, constants, node outputs, with
//              element type and static shape where shape inference knows them
//   steps      nodes in a topological order, each with its kernel (attributes
//              parsed, constant weights pre-packed) and the values whose last
//              use it is, so they are released right after it
//   buffers    static memory assignment: values of static shape that never
//              escape a run share one arena by offset, reused across runs
//   captures   for a subgraph (If/Loop body), the outer-scope names it reads
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/onnx.h"
#include "runtime/gemm.h"
#include "runtime/kernel.h"
#include "runtime/tensor.h"

namespace winml::model {
class Model;
}

namespace winml::runtime {

struct ValueInfo {
  std::string name;
  DataType dtype = 0;          // 0 when unknown before running
  std::optional<Shape> shape;  // static shape, when known
  int buffer = -1;             // arena buffer index, or -1: allocated at run time
  // Graph inputs: per dimension, the dim_param name ("?" when unnamed) or
  // empty for a fixed size.
  std::vector<std::string> dim_params;
};

struct Step {
  std::string op_type;
  std::string domain;
  std::string node_name;
  int node = -1;  // index of the node in its graph (to serialize the plan with its nodes)
  std::shared_ptr<const Kernel> kernel;
  std::vector<int> inputs;  // value ids, -1 for an absent optional input; explicit ones first
  int explicit_inputs = 0;  // the rest are implicit: outer-scope values read by subgraphs
  std::vector<std::string> implicit_names;
  std::vector<int> outputs;           // value ids, -1 for an unnamed output
  std::vector<int> release;           // values whose last use is this step
  bool widen_half = false;            // float16/bfloat16 inputs are computed in float32
  DataType half_storage = 0;          // float outputs are stored as this half type (its half constants were widened)
  bool output_aliases_input = false;  // output 0 may share input 0's storage
  bool may_write_over_input0 = false;  // KernelTraits::may_write_over_input0
  bool writes_over_input0 = false;     // the memory plan placed output 0 over input 0
  bool folds_relu = false;             // KernelTraits::folds_relu
  bool relu_output = false;            // a Relu folded in: the kernel clamps output 0 at zero as it writes it
  // Memory-mapped constants the step reads where they lie, in a plan that
  // streams its weights: their pages are dropped again after each run of
  // the step (read back from the file when next needed).
  std::vector<int> release_pages;
  std::string describe() const;        // "node 'name' (Op)"
};

struct ArenaBuffer {
  std::int64_t offset = 0;  // bytes from the arena start, 64-byte aligned
  std::int64_t bytes = 0;
};

class Plan {
 public:
  std::string source;  // the model file, for messages
  Opsets opsets;
  std::vector<ValueInfo> values;
  std::vector<int> inputs;                        // graph inputs, in order (including those with initializer defaults)
  std::vector<int> outputs;                       // graph outputs, in order
  std::vector<std::pair<int, Tensor>> constants;  // initializers and Constant node values
  std::vector<std::string> captures;              // outer-scope names (subgraphs only)
  std::vector<int> capture_values;                // their value ids, same order
  std::vector<Step> steps;
  std::vector<ArenaBuffer> buffers;
  std::int64_t arena_bytes = 0;
  // Weights the kernels packed, in creation order (subgraphs' included): a
  // `ref` blob stores them so that loading it packs nothing.
  std::vector<std::shared_ptr<const PackedWeights>> packed;
  // What constant views of subgraph plans point into when the plan does not
  // come from a model the caller keeps (a `ref` blob's parsed nodes).
  std::shared_ptr<const void> keepalive;

  int find(const std::string& name) const;  // value id or -1
  // Rebuilds the name index behind find() from `values`, for plans assembled
  // outside build_plan (a deserialized `ref` EPContext plan).
  void reindex();

 private:
  friend class PlanBuilder;
  std::map<std::string, int> index_;
};

struct PlanOptions {
  // Values for symbolic input dimensions (dim_param); others default to 1.
  std::map<std::string, std::int64_t> dims;
  // Infer static shapes and assign arena buffers to values that have them.
  bool memory_plan = true;
  // The values an observer of the runs needs, by name. Given, a Relu is
  // folded into the Conv or Add whose float32 output only it reads, unless
  // that output is named here or is a graph output: the Relu's value is then
  // written by the producing step (one pass less) and the value before it
  // never exists. Not given (the default), every value is produced as the
  // graph defines it.
  std::optional<std::set<std::string>> observed;
  // DequantizeLinear of constants (QDQ models' weights) evaluated once, at
  // plan time, into float constants: the Convs and MatMuls reading them pack
  // them (and use Winograd) instead of reading a value dequantized on every
  // run. Off by default: a `ref` blob would store the floats, 4x the integers.
  bool fold_constant_dequantize = false;
  // A model whose initializers would take more than this as float32 (their
  // elements x 4 bytes) streams its weights: memory-mapped weights are read
  // where they lie on every run and their pages dropped after each step,
  // never packed, widened or dequantized into copies the plan keeps, and
  // steps that read only constants run just before their first reader. The
  // plan then holds no weights of its own, so a model many times the
  // memory runs; each run reads its weights from the page cache.
  std::uint64_t stream_weights_above = kStreamWeightsAbove;
  static constexpr std::uint64_t kStreamWeightsAbove = std::uint64_t{1} << 30;
};

// Whether build_plan streams the weights of `model` (PlanOptions).
bool streams_weights(const model::Model& model, const PlanOptions& options = {});

// The plan of a model's main graph. Kernels are created (and unsupported ops
// rejected, naming op and node) here. `model` must outlive the plan: constant
// tensors are views of its initializers.
std::shared_ptr<const Plan> build_plan(const model::Model& model, const PlanOptions& options = {});

// The plan of a graph in a given opset context: subgraphs, and single nodes
// wrapped in a graph for evaluation. Names the graph reads but does not define
// become captures.
std::shared_ptr<const Plan> build_graph_plan(const onnx::GraphProto& graph, const Opsets& opsets,
                                             const model::Model* model, const std::string& source,
                                             const PlanOptions& options = {});

// Input dimensions as the plan resolves them: fixed dims kept, symbolic ones
// from `dims` (default 1).
Shape resolve_input_shape(const onnx::ValueInfoProto& input, const std::map<std::string, std::int64_t>& dims);

}  // namespace winml::runtime
