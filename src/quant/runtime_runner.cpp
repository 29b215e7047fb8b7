#include "quant/runtime_runner.h"

#include <algorithm>
#include <optional>

#include "runtime/session.h"
#include "runtime/tensor.h"

namespace winml::quant {

namespace {

bool is_contrib_qdq(const onnx::NodeProto& n) {
  return (n.op_type() == "QuantizeLinear" || n.op_type() == "DequantizeLinear") && n.domain() == "com.microsoft";
}

// The runtime types values with libonnx 1.12's shape inference, which does
// not know the com.microsoft Q/DQ and crashes propagating Shape data through
// the untyped values behind them. The runtime runs both domains with the same
// kernels, so it gets a copy with those Q/DQ in the ONNX domain.
std::optional<model::Model> runnable_copy(const model::Model& m) {
  const auto& nodes = m.proto.graph().node();
  if (std::none_of(nodes.begin(), nodes.end(), is_contrib_qdq)) return std::nullopt;
  model::Model copy;
  copy.proto = m.proto;
  copy.path = m.path;
  copy.external_files = m.external_files;
  for (auto& n : *copy.proto.mutable_graph()->mutable_node())
    if (is_contrib_qdq(n)) n.clear_domain();
  return copy;
}

class RuntimeRunner : public ModelRunner {
 public:
  RuntimeRunner(const model::Model& m, const RuntimeRunnerOptions& o)
      : copy_(runnable_copy(m)),
        session_(copy_ ? *copy_ : m, runtime::SessionOptions{.threads = o.threads, .dims = o.dims}) {}

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
  std::optional<model::Model> copy_;  // declared first: the session uses it
  runtime::Session session_;
};

}  // namespace

RunnerFactory runtime_runner_factory(const RuntimeRunnerOptions& options) {
  return [options](const model::Model& m, const std::vector<std::string>&) -> std::unique_ptr<ModelRunner> {
    return std::make_unique<RuntimeRunner>(m, options);
  };
}

}  // namespace winml::quant
