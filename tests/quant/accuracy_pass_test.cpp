// The quantize stage's accuracy pass. Calibration keeps the float model's
// outputs of each sample (within a budget) and the pass compares them instead
// of running the float model again: the outputs are the ones a fresh run
// gives, bit for bit, so the report is the same. The quantized model's
// samples run several at once, added up in sample order: the same table.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "base/error.h"

#include "quant/accuracy.h"
#include "quant/calibration/calibrate.h"
#include "quant/quantize.h"
#include "quant/runtime_runner.h"
#include "support/quant_models.h"

namespace winml::test {
namespace {

std::unique_ptr<quant::SampleSource> samples_for(const model::Model& m, std::int64_t n) {
  return quant::generated_samples(n, quant::model_inputs(m.proto, {}, true), {"normal", 0.0, 1.0, 9});
}

quant::CalibrationResult calibrate_keeping(const model::Model& m, const quant::SampleSource& samples, int workers,
                                           std::size_t budget) {
  std::vector<std::string> tensors;
  for (const auto& n : m.proto.graph().node()) tensors.push_back(n.output(0));
  quant::CalibrationOptions o;
  o.workers = workers;
  o.threads = 1;
  o.keep_outputs_bytes = budget;
  return quant::calibrate(m, tensors, samples, o, quant::runtime_runner_factory({.threads = 1}));
}

std::size_t bytes_of(const quant::Feeds& outputs) {
  std::size_t b = 0;
  for (const auto& [name, t] : outputs) b += t.data.size() + name.size();
  return b;
}

}  // namespace

TEST(KeptOutputs, AreTheOutputsAFreshRunGivesWithinTheBudget) {
  const model::Model m = in_memory(small_cnn());
  auto samples = samples_for(m, 5);
  auto fresh = quant::runtime_runner_factory({.threads = 2})(m, {});  // another thread count: the same bits
  std::vector<quant::Feeds> want;
  for (std::size_t i = 0; i < samples->size(); ++i) want.push_back(fresh->run(samples->sample(i), {}));
  const std::size_t one = bytes_of(want[0]);
  for (int workers : {1, 3}) {
    auto all = calibrate_keeping(m, *samples, workers, std::size_t{1} << 20);
    ASSERT_EQ(all.outputs.size(), 5u);
    for (std::size_t i = 0; i < 5; ++i) {
      ASSERT_TRUE(all.outputs[i]) << "sample " << i << ", " << workers << " workers";
      ASSERT_EQ(all.outputs[i]->size(), want[i].size());
      for (const auto& [name, t] : want[i]) EXPECT_EQ(all.outputs[i]->at(name).data, t.data) << name << " sample " << i;
    }
    auto two = calibrate_keeping(m, *samples, workers, 2 * one + one / 2);
    EXPECT_EQ(std::count_if(two.outputs.begin(), two.outputs.end(), [](const auto& o) { return o.has_value(); }), 2)
        << workers << " workers";
    auto none = calibrate_keeping(m, *samples, workers, 0);
    EXPECT_TRUE(std::none_of(none.outputs.begin(), none.outputs.end(), [](const auto& o) { return o.has_value(); }));
  }
}

TEST(KeptOutputs, TheAccuracyPassRunsOnlyTheQuantizedModelAndReportsTheSame) {
  const model::Model f = in_memory(small_cnn());
  quant::QuantizeContext ctx;
  ctx.threads = 2;
  const quant::QuantizeResult r = quant::quantize_model(f, quant_config(), ctx);  // (its default runner)
  ASSERT_TRUE(r.report.contains("accuracy")) << r.report.dump();

  const auto real = quant::runtime_runner_factory({.threads = 2});
  int runners = 0;
  quant::RunnerFactory counting = [&](const model::Model& model, const std::vector<std::string>& observe) {
    ++runners;
    return real(model, observe);
  };
  // The samples quantize used, run here from scratch: the table must match the report's.
  const config::QuantizeConfig c = quant_config();
  auto used = quant::generated_samples(
      c.samples, quant::model_inputs(f.proto, {}, true),
      {c.distribution, c.value_range[0], c.value_range[1], static_cast<std::uint64_t>(c.seed)});
  const auto fresh = quant::compare_models(f, r.model, *used, counting);
  EXPECT_EQ(runners, 2);
  EXPECT_EQ(quant::accuracy_json(fresh), r.report["accuracy"]);

  std::vector<std::optional<quant::Feeds>> known;
  for (std::size_t i = 0; i < used->size(); ++i) known.push_back(real(f, {})->run(used->sample(i), {}));
  runners = 0;
  const auto reused = quant::compare_models(f, r.model, *used, counting, known);
  EXPECT_EQ(runners, 1) << "the float model ran although every sample's outputs were known";
  EXPECT_EQ(quant::accuracy_json(reused), quant::accuracy_json(fresh));
}

}  // namespace winml::test

namespace winml::test {

TEST(AccuracyPass, SamplesAtOnceGiveTheSameTableAndTheFirstFailingSamplesError) {
  const model::Model f = in_memory(small_cnn());
  quant::QuantizeContext ctx;
  ctx.accuracy_report = false;
  const model::Model q = quant::quantize_model(f, quant_config(), ctx).model;
  auto samples = samples_for(f, 7);
  const auto one_thread = quant::runtime_runner_factory({.threads = 1});
  const auto alone = quant::accuracy_json(quant::compare_models(f, q, *samples, one_thread));
  for (int workers : {2, 3, 7}) {
    EXPECT_EQ(quant::accuracy_json(quant::compare_models(f, q, *samples, one_thread, {}, workers)), alone)
        << workers << " workers";
  }

  // Samples 2 and 5 fail in the quantized model (one slow, so later ones
  // finish first): sample 2's error is the one reported.
  quant::RunnerFactory failing = [&](const model::Model& m, const std::vector<std::string>& observe) {
    struct Failing : quant::ModelRunner {
      std::unique_ptr<quant::ModelRunner> inner;
      const model::Model* candidate;
      const model::Model* model;
      quant::SampleSource* samples;
      quant::Feeds run(const quant::Feeds& feeds, const quant::ValueObserver& o) override {
        for (std::size_t bad : {std::size_t{2}, std::size_t{5}})
          if (model == candidate && feeds.begin()->second.data == samples->sample(bad).begin()->second.data) {
            if (bad == 2) std::this_thread::sleep_for(std::chrono::milliseconds(100));
            throw InputError("sample " + std::to_string(bad) + " failed");
          }
        return inner->run(feeds, o);
      }
    };
    auto r = std::make_unique<Failing>();
    r->inner = one_thread(m, observe);
    r->candidate = &q;
    r->model = &m;
    r->samples = samples.get();
    return r;
  };
  for (int workers : {1, 3}) {
    try {
      quant::compare_models(f, q, *samples, failing, {}, workers);
      ADD_FAILURE() << "no error with " << workers << " workers";
    } catch (const InputError& e) {
      EXPECT_STREQ(e.what(), "sample 2 failed") << workers << " workers";
    }
  }
}

}  // namespace winml::test
