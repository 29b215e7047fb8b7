#include "support/ort_runner.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>

#include "base/error.h"
#include "model/model_io.h"
#include "support/ort_oracle.h"
#include "support/temp_dir.h"

namespace winml::test {

namespace {

class OrtRunner : public quant::ModelRunner {
 public:
  OrtRunner(const model::Model& m, const std::vector<std::string>& observe) {
    model::Model copy;
    copy.proto = m.proto;
    copy.path = m.path;
    copy.external_files = m.external_files;
    std::set<std::string> outputs;
    for (const auto& o : copy.proto.graph().output()) outputs.insert(o.name()), originals_.insert(o.name());
    for (const auto& name : observe) {
      if (outputs.count(name)) continue;
      auto* o = copy.proto.mutable_graph()->add_output();
      o->set_name(name);
      o->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    }
    path_ = dir_ / "model.onnx";
    model::save_model(copy, path_);
  }

  std::map<std::string, model::TensorFile> run(const quant::Feeds& feeds,
                                               const quant::ValueObserver& observer) override {
    OrtResult r = run_in_ort(path_, feeds);
    if (!r.ok) throw BuildError("onnxruntime-node failed: " + r.error);
    std::map<std::string, model::TensorFile> out;
    for (auto& [name, t] : r.outputs) {
      if (observer) observer(name, quant::ValueView{t.dtype, t.shape, t.data});
      if (originals_.count(name)) out.emplace(name, std::move(t));
    }
    if (observer)
      for (const auto& [name, t] : feeds) observer(name, quant::ValueView{t.dtype, t.shape, t.data});
    return out;
  }

 private:
  TempDir dir_;
  std::filesystem::path path_;
  std::set<std::string> originals_;
};

}  // namespace

quant::RunnerFactory ort_runner_factory() {
  return [](const model::Model& m, const std::vector<std::string>& observe) -> std::unique_ptr<quant::ModelRunner> {
    return std::make_unique<OrtRunner>(m, observe);
  };
}

}  // namespace winml::test
