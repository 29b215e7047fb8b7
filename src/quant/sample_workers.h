// Samples spread over several runners of one model, each on its own thread
// (calibration and the accuracy pass: a batch-1 model rarely keeps several
// threads busy, separate samples do).
#pragma once

#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "quant/model_runner.h"

namespace winml::quant {

// Runs `run(runner, i)` for samples i in [0, samples) on `workers` runners:
// `first`, then runners from `make_runner` (a worker whose runner cannot be
// made leaves its samples to the others). Each result goes to
// `in_order(i, result)` in sample order, one at a time, so what the results
// add up to does not depend on which sample finished first. On failure the
// error of the first failing sample is thrown, as a run in order would:
// samples are claimed in order and every claimed one runs to its end.
template <typename Result>
void run_samples_concurrently(std::size_t samples, int workers, std::unique_ptr<ModelRunner> first,
                              const std::function<std::unique_ptr<ModelRunner>()>& make_runner,
                              const std::function<Result(ModelRunner&, std::size_t)>& run,
                              const std::function<void(std::size_t, Result&)>& in_order) {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mu;
  std::map<std::size_t, Result> finished;  // waiting for an earlier sample
  std::size_t delivered = 0;
  std::exception_ptr error;
  std::size_t error_sample = samples;
  const auto fail = [&](std::size_t i) {  // (under mu)
    if (i < error_sample) error = std::current_exception(), error_sample = i;
    failed = true;
  };

  auto work = [&](std::unique_ptr<ModelRunner> runner) {
    if (!runner) {
      try {
        runner = make_runner();
      } catch (const std::exception&) {
        return;  // (out of memory, say) the other workers take its samples
      }
    }
    for (;;) {
      const std::size_t i = next++;
      if (i >= samples || failed) return;
      std::optional<Result> result;
      try {
        result.emplace(run(*runner, i));
      } catch (...) {
        std::lock_guard lock(mu);
        fail(i);
        return;
      }
      std::lock_guard lock(mu);
      finished.emplace(i, std::move(*result));
      while (!failed) {
        auto it = finished.find(delivered);
        if (it == finished.end()) break;
        try {
          in_order(it->first, it->second);
        } catch (...) {
          fail(it->first);
          return;
        }
        finished.erase(it);
        ++delivered;
      }
    }
  };

  std::vector<std::thread> others;
  for (int w = 1; w < workers; ++w) others.emplace_back(work, nullptr);
  work(std::move(first));
  for (auto& t : others) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace winml::quant
