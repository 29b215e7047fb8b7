// Calibration throughput of the quantize stage: quantize_model on a model with
// generated Normal(0, 1) samples (no accuracy pass), reporting samples/s of
// the calibration step as the report measures it. Writes sample 0 as .npy
// files into OUT_DIR so ONNX Runtime can be timed on the same input.
//
// usage: bench_calibration MODEL SAMPLES THREADS OUT_DIR [weight_type activation_type method]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "common/guarded_main.h"
#include "model/model_io.h"
#include "model/tensor_file.h"
#include "quant/calibration/samples.h"
#include "quant/quantize.h"
#include "quant/runtime_runner.h"

using namespace winml;

namespace {

int run(int argc, char** argv) {
  if (argc < 5) {
    std::cerr << "usage: bench_calibration MODEL SAMPLES THREADS OUT_DIR [weight_type activation_type method]\n";
    return 2;
  }
  std::filesystem::path model_path = argv[1], out = argv[4];
  int samples = std::atoi(argv[2]), threads = std::atoi(argv[3]);
  model::Model m = model::load_model(model_path);

  config::QuantizeConfig c;
  c.samples = samples;
  c.per_channel = true;
  c.distribution = "normal";
  c.value_range = {0.0, 1.0};
  c.seed = 1;
  if (argc > 7) c.weight_type = argv[5], c.activation_type = argv[6], c.calibration_method = argv[7];

  // The first sample, for the runtime being compared.
  auto src = quant::generated_samples(1, quant::model_inputs(m.proto, {}, true), {"normal", 0.0, 1.0, 1});
  std::filesystem::create_directories(out);
  for (const auto& [name, t] : src->sample(0)) model::write_npy(out / (quant::sample_file_stem(name) + ".npy"), t);

  // The same samples through the runtime alone (no observer): the part of
  // calibration that is plain inference.
  double inference_seconds = 0;
  {
    auto all = quant::generated_samples(samples, quant::model_inputs(m.proto, {}, true), {"normal", 0.0, 1.0, 1});
    auto runner = quant::runtime_runner_factory({.threads = threads, .dims = {}})(m, {});
    runner->run(all->sample(0), {});  // warm-up, as ORT gets one
    for (int i = 0; i < samples; ++i) {
      auto feeds = all->sample(static_cast<std::size_t>(i));
      auto t0 = std::chrono::steady_clock::now();
      runner->run(feeds, {});
      inference_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
  }

  quant::QuantizeContext ctx;  // the default runner: the project's runtime
  ctx.threads = threads;
  ctx.accuracy_report = false;
  quant::QuantizeResult r = quant::quantize_model(m, c, ctx);
  double seconds = r.report["calibration_time_seconds"];
  // Without building the plan, as ORT's figure is without creating its session.
  double steady = seconds - r.report["calibration_setup_seconds"].get<double>();
  nlohmann::json j = {{"model", model_path.filename().string()},
                      {"samples", samples},
                      {"threads", threads},
                      {"calibration_method", c.calibration_method},
                      {"calibration_seconds", seconds},
                      {"samples_per_second", samples / seconds},
                      {"setup_seconds", seconds - steady},
                      {"steady_samples_per_second", samples / steady},
                      {"calibrated_tensors", r.report["qdq_pairs"]},
                      {"runtime_inference_samples_per_second", samples / inference_seconds}};
  std::cout << j.dump() << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return winml::bench::guarded_main(argc, argv, run); }
