#include "quant/runtime_runner.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

#include "base/error.h"
#include "runtime/evaluate.h"
#include "runtime/kernel.h"
#include "runtime/plan.h"
#include "runtime/session.h"
#include "runtime/tensor.h"
#include "runtime/thread_pool.h"

namespace winml::quant {

namespace {

bool is_contrib_qdq(const onnx::NodeProto& n) {
  return (n.op_type() == "QuantizeLinear" || n.op_type() == "DequantizeLinear") && n.domain() == "com.microsoft";
}

bool is_dequantize(const onnx::NodeProto& n) {
  return n.op_type() == "DequantizeLinear" && (n.domain().empty() || n.domain() == "ai.onnx");
}

// Initializers that are not also graph inputs (which a feed may replace).
std::map<std::string, const onnx::TensorProto*> constant_initializers(const onnx::GraphProto& g) {
  std::set<std::string> inputs;
  for (const auto& v : g.input()) inputs.insert(v.name());
  std::map<std::string, const onnx::TensorProto*> out;
  for (const auto& t : g.initializer())
    if (!inputs.count(t.name())) out.emplace(t.name(), &t);
  return out;
}

bool reads_only(const onnx::NodeProto& n, const std::map<std::string, const onnx::TensorProto*>& constants) {
  return std::all_of(n.input().begin(), n.input().end(),
                     [&](const std::string& name) { return name.empty() || constants.count(name); });
}

// QDQ models (the accuracy pass runs them) hold their weights as
// DequantizeLinear of integer initializers. Run as they are, every run
// dequantizes them again (ResNet-50: ~100 MB written) and the Convs reading
// them neither prepack them nor use Winograd. The runner's copy holds them
// dequantized instead, computed once by the runtime's own kernel: the floats
// every run would compute. (The weights are independent: folded on every
// core, each into its own slot, so the result does not depend on which
// thread folded what.)
void fold_constant_dequantize(model::Model& m) {
  onnx::GraphProto& g = *m.proto.mutable_graph();
  const auto constants = constant_initializers(g);
  const runtime::Opsets opsets = runtime::model_opsets(m.proto);
  std::vector<int> foldable;
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    if (is_dequantize(n) && n.output_size() == 1 && reads_only(n, constants)) foldable.push_back(i);
  }
  if (foldable.empty()) return;
  std::vector<std::optional<onnx::TensorProto>> folded(foldable.size());
  runtime::ThreadPool pool(static_cast<int>(
      std::min<std::size_t>(static_cast<std::size_t>(runtime::ThreadPool::default_threads()), foldable.size())));
  pool.parallel_for(static_cast<std::int64_t>(foldable.size()), [&](std::int64_t f) {
    const auto& n = g.node(foldable[static_cast<std::size_t>(f)]);
    try {
      std::vector<runtime::Tensor> inputs;
      for (const auto& name : n.input())
        inputs.push_back(name.empty() ? runtime::Tensor() : runtime::from_proto(*constants.at(name), &m));
      folded[static_cast<std::size_t>(f)] =
          runtime::to_proto(runtime::evaluate_node(n, opsets, inputs).at(0), n.output(0));
    } catch (const InputError&) {  // (left to run, whose error names the node)
    } catch (const BuildError&) {
    }
  });
  onnx::GraphProto kept;
  std::size_t next = 0;
  for (int i = 0; i < g.node_size(); ++i) {
    const bool candidate = next < foldable.size() && foldable[next] == i;
    if (candidate && folded[next++]) continue;
    kept.add_node()->Swap(g.mutable_node(i));
  }
  g.mutable_node()->Swap(kept.mutable_node());
  for (auto& t : folded)
    if (t) g.add_initializer()->Swap(&*t);
}

// The model as the runtime runs it, when that differs: Q/DQ of the
// com.microsoft domain moved to the ONNX domain (the runtime types values
// with libonnx 1.12's shape inference, which does not know them and crashes
// propagating Shape data through the untyped values behind them; both
// domains run on the same kernels), and constant DequantizeLinear folded.
std::optional<model::Model> runnable_copy(const model::Model& m) {
  const auto& g = m.proto.graph();
  const auto constants = constant_initializers(g);
  const bool contrib = std::any_of(g.node().begin(), g.node().end(), is_contrib_qdq);
  const bool foldable = std::any_of(g.node().begin(), g.node().end(), [&](const onnx::NodeProto& n) {
    return (is_dequantize(n) || is_contrib_qdq(n)) && reads_only(n, constants);
  });
  if (!contrib && !foldable) return std::nullopt;
  model::Model copy;
  copy.proto = m.proto;
  copy.path = m.path;
  copy.external_files = m.external_files;
  for (auto& n : *copy.proto.mutable_graph()->mutable_node())
    if (is_contrib_qdq(n)) n.clear_domain();
  fold_constant_dequantize(copy);
  return copy;
}

// What the runners of one model share: its plan, with the weights its
// kernels packed or transformed (most of a runner's memory and set-up time),
// built once. Sessions run one plan concurrently.
struct SharedPlan {
  std::optional<model::Model> copy;  // declared first: the plan uses its weights
  std::shared_ptr<const runtime::Plan> plan;
  std::set<std::string> observed;  // the values its runs produce for an observer
};

// Relus are folded into the Convs and Adds before them where the observer
// does not need the values in between (calibration observes what QDQ
// quantizes: after a Conv's Relu, not before).
std::shared_ptr<const SharedPlan> build_shared_plan(const model::Model& m, const RuntimeRunnerOptions& o,
                                                    const std::set<std::string>& observed) {
  auto shared = std::make_shared<SharedPlan>();
  shared->copy = runnable_copy(m);
  shared->plan =
      runtime::build_plan(shared->copy ? *shared->copy : m, runtime::PlanOptions{.dims = o.dims, .observed = observed});
  shared->observed = observed;
  return shared;
}

class RuntimeRunner : public ModelRunner {
 public:
  RuntimeRunner(std::shared_ptr<const SharedPlan> shared, const RuntimeRunnerOptions& o)
      : shared_(std::move(shared)),
        session_(shared_->plan, runtime::SessionOptions{.threads = o.threads, .dims = o.dims}) {}

  std::map<std::string, model::TensorFile> run(const Feeds& feeds, const ValueObserver& observer) override {
    std::map<std::string, runtime::Tensor> in;
    for (const auto& [name, t] : feeds) in.emplace(name, runtime::from_tensor_file(t));
    runtime::Observer forward;
    if (observer)
      forward = [&](const std::string& name, const runtime::Tensor& t) {
        if (!t.defined()) return;
        observer(name, ValueView{t.dtype(), t.shape(), std::span<const std::byte>(t.raw(), t.bytes())});
      };
    std::map<std::string, model::TensorFile> out;
    for (const auto& [name, t] : session_.run(in, forward)) out.emplace(name, runtime::to_tensor_file(t));
    return out;
  }

 private:
  std::shared_ptr<const SharedPlan> shared_;  // declared first: the session runs its plan
  runtime::Session session_;
};

}  // namespace

// Runners made for the same model while another one of them is alive
// share its plan (when it produces every value they observe); the first
// builds it while the others wait for it.
RunnerFactory runtime_runner_factory(const RuntimeRunnerOptions& options) {
  struct Cache {
    std::mutex mu;
    const model::Model* model = nullptr;
    std::weak_ptr<const SharedPlan> plan;
  };
  auto cache = std::make_shared<Cache>();
  return [options, cache](const model::Model& m,
                          const std::vector<std::string>& observed_names) -> std::unique_ptr<ModelRunner> {
    const std::set<std::string> observed(observed_names.begin(), observed_names.end());
    std::shared_ptr<const SharedPlan> shared;
    {
      std::lock_guard lock(cache->mu);
      if (cache->model == &m) shared = cache->plan.lock();
      if (shared && !std::includes(shared->observed.begin(), shared->observed.end(), observed.begin(), observed.end()))
        shared.reset();
      if (!shared) {
        shared = build_shared_plan(m, options, observed);
        cache->model = &m;
        cache->plan = shared;
      }
    }
    return std::make_unique<RuntimeRunner>(std::move(shared), options);
  };
}

}  // namespace winml::quant
