#include "quant/calibration/calibrate.h"

#include <chrono>
#include <cstring>

#include "base/error.h"

namespace winml::quant {

std::vector<float> float_values(const ValueView& v) {
  std::vector<float> out(v.data.size() / sizeof(float));
  if (!out.empty()) std::memcpy(out.data(), v.data.data(), out.size() * sizeof(float));
  return out;
}

CalibrationResult calibrate(const model::Model& model, const std::vector<std::string>& tensors,
                            const SampleSource& samples, const CalibrationOptions& options,
                            const RunnerFactory& runner) {
  auto start = std::chrono::steady_clock::now();
  CalibrationResult result;
  CalibrationStats stats(options, tensors);
  if (!tensors.empty()) {
    if (!runner) throw BuildError("calibration needs a model runner, and none is available");
    std::unique_ptr<ModelRunner> r = runner(model, tensors);
    ValueObserver observe = [&](const std::string& name, const ValueView& v) {
      if (v.dtype != onnx::TensorProto::FLOAT || !stats.wants(name)) return;
      if (reinterpret_cast<std::uintptr_t>(v.data.data()) % alignof(float) == 0) {
        stats.add(name, std::span<const float>(reinterpret_cast<const float*>(v.data.data()),
                                               v.data.size() / sizeof(float)));
      } else {
        std::vector<float> copy = float_values(v);
        stats.add(name, copy);
      }
    };
    for (std::size_t i = 0; i < samples.size(); ++i) r->run(samples.sample(i), observe);
  }
  result.samples = samples.size();
  result.ranges = stats.ranges();
  result.unobserved = stats.unobserved();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace winml::quant
