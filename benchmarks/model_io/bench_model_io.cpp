// Loads a model with its external data and saves it with external data, as
// `onnx.load` + `onnx.save_model(save_as_external_data=True)` do.
// usage: bench_model_io IN.onnx OUT.onnx
#include <chrono>
#include <cstdio>

#include "common/guarded_main.h"
#include "model/model_io.h"

namespace {

int run(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s IN.onnx OUT.onnx\n", argv[0]);
    return 2;
  }
  auto t0 = std::chrono::steady_clock::now();
  winml::model::Model m = winml::model::load_model(argv[1]);
  winml::model::SaveOptions opts;
  opts.external = winml::model::ExternalData::kAlways;
  winml::model::save_model(m, argv[2], opts);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%.3f\n", s);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return winml::bench::guarded_main(argc, argv, run); }
