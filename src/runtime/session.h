// runtime::Session: runs an ONNX model on the CPU.
//
//   model::Model m = model::load_model("model.onnx");
//   runtime::Session s(m, {.threads = 4});
//   auto outputs = s.run({{"input", x}}, [](const std::string& name, const runtime::Tensor& t) {
//     /* every value as it is produced, e.g. for calibration statistics */
//   });
//
// Construction builds the plan: every op is checked up front (an
// UnsupportedError names the op and node), attributes are parsed and weights
// pre-packed. Results are bit-identical for any thread count and across runs
// of the same binary on the same machine.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "runtime/executor.h"
#include "runtime/plan.h"
#include "runtime/tensor.h"

namespace winml::model {
class Model;
}

namespace winml::runtime {

class ThreadPool;

struct SessionOptions {
  int threads = 0;  // 0: one per core
  // Values of symbolic input dimensions (dim_param); unnamed ones default to 1.
  std::map<std::string, std::int64_t> dims = {};
  // Static memory planning (an arena reused across runs); off = allocate per value.
  bool memory_plan = true;
  // The values a run's observer needs (PlanOptions::observed): given, Relus
  // are folded into the steps producing their inputs, and values named here
  // are still produced as the graph defines them. Not given, every value is.
  std::optional<std::set<std::string>> observed = {};
  // DequantizeLinear of constants evaluated when the plan is built
  // (PlanOptions::fold_constant_dequantize).
  bool fold_constant_dequantize = false;
  // Models larger than this (as float32) stream their weights
  // (PlanOptions::stream_weights_above).
  std::uint64_t stream_weights_above = PlanOptions::kStreamWeightsAbove;
};

struct IoInfo {
  std::string name;
  DataType dtype = 0;
  Shape shape;               // symbolic dimensions resolved from SessionOptions::dims
  bool has_default = false;  // an input with an initializer default may be omitted
};

class Session {
 public:
  // `model` must outlive the session: weights are used in place.
  explicit Session(const model::Model& model, SessionOptions options = {});
  explicit Session(std::shared_ptr<const Plan> plan, SessionOptions options = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const std::vector<IoInfo>& inputs() const { return inputs_; }
  const std::vector<IoInfo>& outputs() const { return outputs_; }
  const Plan& plan() const { return *plan_; }
  int threads() const;

  // Runs the model. Every input without a default must be fed; feeds are
  // checked against declared types and fixed dimensions (InputError).
  // Concurrent calls are allowed.
  // `profile`, when given, receives each step's wall time.
  std::map<std::string, Tensor> run(const std::map<std::string, Tensor>& feeds, const Observer& observer = {},
                                    RunProfile* profile = nullptr) const;

 private:
  std::shared_ptr<void> take_arena() const;
  void return_arena(std::shared_ptr<void> arena) const;

  std::shared_ptr<const Plan> plan_;
  SessionOptions options_;
  std::vector<IoInfo> inputs_, outputs_;
  std::unique_ptr<ThreadPool> pool_;
  mutable std::mutex arena_mutex_;
  mutable std::vector<std::shared_ptr<void>> arenas_;
};

}  // namespace winml::runtime
