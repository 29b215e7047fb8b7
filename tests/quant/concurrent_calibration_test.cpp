// Calibration with several samples in flight (one runner each) gives exactly
// what one sample at a time gives: ranges, channel means, the quantized model,
// and the error of the first failing sample.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <thread>

#include "base/error.h"
#include "model/tensor_file.h"
#include "quant/calibration/calibrate.h"
#include "quant/quantize.h"
#include "quant/runtime_runner.h"
#include "support/quant_models.h"
#include "support/model_builder.h"
#include "support/temp_dir.h"

namespace winml::test {
namespace {

struct Calibration {
  quant::CalibrationResult result;
  std::string error;
};

Calibration calibrate_with(const model::Model& m, const quant::SampleSource& samples, quant::CalibrationMethod method,
                           int workers, quant::RunnerFactory runner = {}) {
  std::vector<std::string> tensors;
  std::map<std::string, std::int64_t> means;
  for (const auto& n : m.proto.graph().node()) {
    for (const auto& out : n.output()) tensors.push_back(out);
    if (n.op_type() == "Conv") means.emplace(n.output(0), 1);
  }
  quant::CalibrationOptions o;
  o.method = method;
  o.workers = workers;
  o.threads = workers > 1 ? 1 : 2;
  Calibration run;
  try {
    if (!runner) runner = quant::runtime_runner_factory({.threads = o.threads});
    run.result = quant::calibrate(m, tensors, samples, o, runner, means);
  } catch (const InputError& e) {
    run.error = e.what();
  }
  return run;
}

model::TensorFile image(std::vector<std::int64_t> shape, std::uint32_t seed, float scale = 1.0f) {
  model::TensorFile t;
  t.dtype = onnx::TensorProto::FLOAT;
  t.shape = shape;
  std::size_t n = 1;
  for (auto d : shape) n *= static_cast<std::size_t>(d);
  std::vector<float> v = random_floats(n, seed);
  for (auto& x : v) x *= scale;
  t.data.resize(n * sizeof(float));
  std::memcpy(t.data.data(), v.data(), t.data.size());
  return t;
}

TEST(ConcurrentCalibration, RangesAndMeansDoNotDependOnHowManySamplesRunAtOnce) {
  const model::Model m = in_memory(small_cnn());
  auto samples = quant::generated_samples(7, quant::model_inputs(m.proto, {}, true), {"normal", 0.0, 1.0, 3});
  for (auto method : {quant::CalibrationMethod::kMinMax, quant::CalibrationMethod::kPercentile}) {
    const Calibration one = calibrate_with(m, *samples, method, 1);
    ASSERT_EQ(one.error, "");
    ASSERT_GE(one.result.ranges.size(), 8u);
    ASSERT_EQ(one.result.channel_means.size(), 2u);  // conv1, conv2
    for (int workers : {2, 3, 7, 16}) {
      const Calibration many = calibrate_with(m, *samples, method, workers);
      ASSERT_EQ(many.error, "");
      EXPECT_EQ(many.result.ranges, one.result.ranges) << workers << " workers";
      EXPECT_EQ(many.result.channel_means, one.result.channel_means) << workers << " workers";
      EXPECT_EQ(many.result.samples, 7u);
    }
  }
}

// The project runtime, slowed down on samples whose first value is huge, so
// that the samples after them finish first.
class SlowOnHugeSamples : public quant::ModelRunner {
 public:
  explicit SlowOnHugeSamples(std::unique_ptr<quant::ModelRunner> inner) : inner_(std::move(inner)) {}
  std::map<std::string, model::TensorFile> run(const quant::Feeds& feeds, const quant::ValueObserver& o) override {
    float first = 0;
    std::memcpy(&first, feeds.begin()->second.data.data(), sizeof first);
    if (std::fabs(first) > 1e6f) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    return inner_->run(feeds, o);
  }

 private:
  std::unique_ptr<quant::ModelRunner> inner_;
};

TEST(ConcurrentCalibration, SamplesAreMergedInSampleOrderWhicheverFinishesFirst) {
  // Channel sums of 1e16-scale samples and small ones: adding them in another
  // order changes the low bits of the means, so an out-of-order merge shows.
  TempDir dir;
  const model::Model m = in_memory(small_cnn());
  const float scales[] = {1e16f, 1.0f, -1e16f, 3.0f, 1e15f, 1.0f};
  for (int s = 0; s < 6; ++s) {
    const auto sample = dir / ("s" + std::to_string(s));
    std::filesystem::create_directories(sample);
    model::write_npy(sample / "x.npy", image({1, 3, 16, 16}, s % 2 ? 60 + s : 60, scales[s]));
  }
  auto samples = quant::directory_samples(dir.path(), 6, quant::model_inputs(m.proto, {}, false));
  const auto real = quant::runtime_runner_factory({.threads = 1});
  quant::RunnerFactory slow = [&](const model::Model& model, const std::vector<std::string>& observe) {
    return std::make_unique<SlowOnHugeSamples>(real(model, observe));
  };
  const Calibration one = calibrate_with(m, *samples, quant::CalibrationMethod::kMinMax, 1, slow);
  const Calibration three = calibrate_with(m, *samples, quant::CalibrationMethod::kMinMax, 3, slow);
  ASSERT_EQ(one.error, "");
  ASSERT_EQ(three.error, "");
  ASSERT_EQ(one.result.channel_means.size(), 2u);
  EXPECT_EQ(three.result.channel_means, one.result.channel_means);
  EXPECT_EQ(three.result.ranges, one.result.ranges);
}

TEST(ConcurrentCalibration, TheFirstFailingSampleIsReported) {
  TempDir dir;
  const model::Model m = in_memory(small_cnn());
  for (int s = 0; s < 6; ++s) {
    const auto sample = dir / ("s" + std::to_string(s));
    std::filesystem::create_directories(sample);
    const bool bad = s == 2 || s == 4;  // a wrong height
    model::write_npy(sample / "x.npy", image({1, 3, bad ? 15 : 16, 16}, 40 + s));
  }
  auto samples = quant::directory_samples(dir.path(), 6, quant::model_inputs(m.proto, {}, false));
  for (int workers : {1, 3}) {
    const Calibration run = calibrate_with(m, *samples, quant::CalibrationMethod::kMinMax, workers);
    EXPECT_NE(run.error.find((dir / "s2" / "x.npy").string()), std::string::npos) << workers << ": " << run.error;
  }
}

TEST(ConcurrentCalibration, TheQuantizedModelIsTheSameWhateverTheThreadCount) {
  const model::Model m = in_memory(small_cnn());
  config::QuantizeConfig c = quant_config("int8", "uint8", true);
  c.samples = 6;
  c.bias_correction = true;
  std::string bytes[2];
  for (int k = 0; k < 2; ++k) {
    quant::QuantizeContext ctx;
    ctx.threads = k == 0 ? 1 : 3;  // one sample at a time; three at once
    ctx.accuracy_report = false;
    const quant::QuantizeResult r = quant::quantize_model(m, c, ctx);
    ASSERT_GT(r.report["nodes_quantized"].get<int>(), 0) << r.report.dump(2);
    r.model.proto.SerializeToString(&bytes[k]);
  }
  EXPECT_EQ(bytes[0], bytes[1]);
}

}  // namespace
}  // namespace winml::test
