#include "quant/calibration/calibrate.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>

#include "base/error.h"
#include "base/progress.h"
#include "quant/sample_workers.h"
#include "runtime/thread_pool.h"

namespace winml::quant {

std::vector<float> float_values(const ValueView& v) {
  std::vector<float> out(v.data.size() / sizeof(float));
  if (!out.empty()) std::memcpy(out.data(), v.data.data(), out.size() * sizeof(float));
  return out;
}

namespace {

// What one sample contributes. Each part is exact within the sample and the
// parts are merged in sample order, so the result does not depend on how
// many samples ran at once or which finished first.
struct SampleStats {
  std::map<std::string, MinMax> ranges;
  std::map<std::string, ChannelSums> sums;
};

class Collection {
 public:
  Collection(const CalibrationOptions& options, const std::vector<std::string>& tensors,
             const std::map<std::string, std::int64_t>& means)
      : stats_(options, tensors), ranges_need_values_(needs_values_in_order(options.method)) {
    for (const auto& [name, axis] : means) means_.emplace(name, ChannelMean(axis));
  }

  // An observer filling `sample`. Histogram methods add values to the
  // statistics at once, so their samples must run one at a time, in order.
  ValueObserver observer(SampleStats& sample, ParallelFor parallel) {
    return [this, &sample, parallel](const std::string& name, const ValueView& v) {
      auto mean = means_.find(name);
      const bool range = stats_.wants(name);
      if (v.dtype != onnx::TensorProto::FLOAT || (!range && mean == means_.end())) return;
      std::vector<float> copy;
      std::span<const float> values;
      if (reinterpret_cast<std::uintptr_t>(v.data.data()) % alignof(float) == 0) {
        values = std::span<const float>(reinterpret_cast<const float*>(v.data.data()), v.data.size() / sizeof(float));
      } else {
        copy = float_values(v);
        values = copy;
      }
      // A value inside a Loop body is seen once per iteration.
      if (range && ranges_need_values_) stats_.add(name, values, parallel);
      const bool own_range = range && !ranges_need_values_;
      MinMax seen;
      bool have_range = false;
      if (mean != means_.end())
        if (auto s = channel_sums(values, v.shape, mean->second.axis(), parallel, own_range ? &seen : nullptr)) {
          sample.sums[name].add(*s);
          have_range = own_range;
        }
      if (own_range) sample.ranges[name] = combine(sample.ranges[name], have_range ? seen : min_max(values, parallel));
    };
  }

  void merge(const SampleStats& sample) {
    for (const auto& [name, range] : sample.ranges) stats_.add(name, range);
    for (const auto& [name, sums] : sample.sums) means_.at(name).add(sums);
  }

  void finish(CalibrationResult& result) const {
    result.ranges = stats_.ranges();
    result.unobserved = stats_.unobserved();
    for (const auto& [name, m] : means_)
      if (!m.empty()) result.channel_means.emplace(name, m.means());
  }

 private:
  CalibrationStats stats_;
  bool ranges_need_values_;
  std::map<std::string, ChannelMean> means_;
};

// The model's outputs per sample, kept while they fit in a budget. Which
// samples fit may depend on the order they finish in; what the outputs are
// does not.
class KeptOutputs {
 public:
  KeptOutputs(std::size_t samples, std::size_t budget) : outputs_(samples), left_(budget) {}
  void offer(std::size_t sample, Feeds&& outputs) {
    std::size_t bytes = 0;
    for (const auto& [name, t] : outputs) bytes += t.data.size() + name.size();
    std::lock_guard lock(mu_);
    if (bytes > left_) return;
    left_ -= bytes;
    outputs_[sample] = std::move(outputs);
  }
  std::vector<std::optional<Feeds>> take() { return std::move(outputs_); }

 private:
  std::mutex mu_;
  std::vector<std::optional<Feeds>> outputs_;
  std::size_t left_;
};

// One sample at a time on one runner; statistics of large values are split
// over threads while the runtime waits for the observer.
void run_in_order(ModelRunner& runner, const SampleSource& samples, Collection& collection, KeptOutputs& kept,
                  int threads) {
  runtime::ThreadPool pool(threads);
  ParallelFor parallel = [&pool](std::int64_t n, const std::function<void(std::int64_t)>& fn) {
    pool.parallel_for(n, fn);
  };
  for (std::size_t i = 0; i < samples.size(); ++i) {
    SampleStats s;
    kept.offer(i, runner.run(samples.sample(i), collection.observer(s, parallel)));
    collection.merge(s);
    progress::report("calibration", i + 1, samples.size(), "samples");
  }
}

// Samples spread over `workers` runners, each with its own threads; each
// sample's statistics are computed by the worker that ran it and merged in
// sample order.
void run_concurrently(std::unique_ptr<ModelRunner> first, const RunnerFactory& factory, const model::Model& model,
                      const std::vector<std::string>& observed, const SampleSource& samples, Collection& collection,
                      KeptOutputs& kept, int workers) {
  run_samples_concurrently<SampleStats>(
      samples.size(), workers, std::move(first), [&] { return factory(model, observed); },
      [&](ModelRunner& runner, std::size_t i) {
        SampleStats s;
        kept.offer(i, runner.run(samples.sample(i), collection.observer(s, {})));
        return s;
      },
      [&](std::size_t i, SampleStats& s) {
        collection.merge(s);
        progress::report("calibration", i + 1, samples.size(), "samples");
      });
}

}  // namespace

CalibrationResult calibrate(const model::Model& model, const std::vector<std::string>& tensors,
                            const SampleSource& samples, const CalibrationOptions& options, const RunnerFactory& runner,
                            const std::map<std::string, std::int64_t>& means) {
  auto start = std::chrono::steady_clock::now();
  CalibrationResult result;
  Collection collection(options, tensors, means);
  if (!tensors.empty() || !means.empty()) {
    if (!runner) throw BuildError("calibration needs a model runner, and none is available");
    std::vector<std::string> observed = tensors;
    for (const auto& [name, axis] : means) observed.push_back(name);
    std::unique_ptr<ModelRunner> first = runner(model, observed);  // (its errors come first, from here)
    result.setup_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const int workers = needs_values_in_order(options.method)
                            ? 1
                            : static_cast<int>(std::min<std::size_t>(std::max(options.workers, 1), samples.size()));
    KeptOutputs kept(samples.size(), options.keep_outputs_bytes);
    if (workers > 1) run_concurrently(std::move(first), runner, model, observed, samples, collection, kept, workers);
    else run_in_order(*first, samples, collection, kept, options.threads);
    result.outputs = kept.take();
  }
  result.samples = samples.size();
  collection.finish(result);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace winml::quant
