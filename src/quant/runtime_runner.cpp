#include "quant/runtime_runner.h"

#include "runtime/session.h"
#include "runtime/tensor.h"

namespace winml::quant {

namespace {

class RuntimeRunner : public ModelRunner {
 public:
  RuntimeRunner(const model::Model& m, const RuntimeRunnerOptions& o)
      : session_(m, runtime::SessionOptions{.threads = o.threads, .dims = o.dims}) {}

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
  runtime::Session session_;
};

}  // namespace

RunnerFactory runtime_runner_factory(const RuntimeRunnerOptions& options) {
  return [options](const model::Model& m, const std::vector<std::string>&) -> std::unique_ptr<ModelRunner> {
    return std::make_unique<RuntimeRunner>(m, options);
  };
}

}  // namespace winml::quant
