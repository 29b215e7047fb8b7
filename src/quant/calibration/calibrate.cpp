#include "quant/calibration/calibrate.h"

#include <chrono>
#include <cstring>

#include "base/error.h"
#include "runtime/thread_pool.h"

namespace winml::quant {

std::vector<float> float_values(const ValueView& v) {
  std::vector<float> out(v.data.size() / sizeof(float));
  if (!out.empty()) std::memcpy(out.data(), v.data.data(), out.size() * sizeof(float));
  return out;
}

CalibrationResult calibrate(const model::Model& model, const std::vector<std::string>& tensors,
                            const SampleSource& samples, const CalibrationOptions& options, const RunnerFactory& runner,
                            const std::map<std::string, std::int64_t>& means) {
  auto start = std::chrono::steady_clock::now();
  CalibrationResult result;
  CalibrationStats stats(options, tensors);
  std::map<std::string, ChannelMean> mean_stats;
  for (const auto& [name, axis] : means) mean_stats.emplace(name, ChannelMean(axis));
  if (!tensors.empty() || !means.empty()) {
    if (!runner) throw BuildError("calibration needs a model runner, and none is available");
    std::vector<std::string> observed = tensors;
    for (const auto& [name, axis] : means) observed.push_back(name);
    std::unique_ptr<ModelRunner> r = runner(model, observed);
    // Statistics of large values are split over threads while the runtime
    // waits for the observer.
    runtime::ThreadPool pool(options.threads);
    ParallelFor parallel = [&pool](std::int64_t n, const std::function<void(std::int64_t)>& fn) {
      pool.parallel_for(n, fn);
    };
    ValueObserver observe = [&](const std::string& name, const ValueView& v) {
      auto mean = mean_stats.find(name);
      if (v.dtype != onnx::TensorProto::FLOAT || (!stats.wants(name) && mean == mean_stats.end())) return;
      std::vector<float> copy;
      std::span<const float> values;
      if (reinterpret_cast<std::uintptr_t>(v.data.data()) % alignof(float) == 0) {
        values = std::span<const float>(reinterpret_cast<const float*>(v.data.data()), v.data.size() / sizeof(float));
      } else {
        copy = float_values(v);
        values = copy;
      }
      stats.add(name, values, parallel);
      if (mean != mean_stats.end()) mean->second.add(values, v.shape, parallel);
    };
    for (std::size_t i = 0; i < samples.size(); ++i) r->run(samples.sample(i), observe);
  }
  result.samples = samples.size();
  result.ranges = stats.ranges();
  result.unobserved = stats.unobserved();
  for (const auto& [name, m] : mean_stats)
    if (!m.empty()) result.channel_means.emplace(name, m.means());
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace winml::quant
