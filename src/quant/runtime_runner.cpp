#include "quant/runtime_runner.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

#include "runtime/plan.h"
#include "runtime/session.h"
#include "runtime/tensor.h"

namespace winml::quant {

namespace {

bool is_contrib_qdq(const onnx::NodeProto& n) {
  return (n.op_type() == "QuantizeLinear" || n.op_type() == "DequantizeLinear") && n.domain() == "com.microsoft";
}

// The model as the runtime runs it, when that differs: Q/DQ of the
// com.microsoft domain moved to the ONNX domain (the runtime types values
// with libonnx 1.12's shape inference, which does not know them and crashes
// propagating Shape data through the untyped values behind them; both
// domains run on the same kernels).
std::optional<model::Model> runnable_copy(const model::Model& m) {
  const auto& g = m.proto.graph();
  if (std::none_of(g.node().begin(), g.node().end(), is_contrib_qdq)) return std::nullopt;
  model::Model copy;
  copy.proto = m.proto;
  copy.path = m.path;
  copy.external_files = m.external_files;
  for (auto& n : *copy.proto.mutable_graph()->mutable_node())
    if (is_contrib_qdq(n)) n.clear_domain();
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
  // QDQ models (the accuracy pass runs them) hold their weights as
  // DequantizeLinear of integer initializers: evaluated once, when the plan
  // is built, the Convs reading them pack them and use Winograd, and no run
  // dequantizes ~100 MB (ResNet-50) again.
  shared->plan = runtime::build_plan(
      shared->copy ? *shared->copy : m,
      runtime::PlanOptions{.dims = o.dims, .observed = observed, .fold_constant_dequantize = true});
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
