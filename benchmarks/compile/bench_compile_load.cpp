// Time to a ready-to-run session in the runtime: the uncompiled model
// (load_model + Session: parse, shape inference, kernel creation, memory
// plan) against the same model compiled with the `ref` backend (the plan is
// read back and the weights mapped), with the blob as a sidecar and
// embedded. Runs are interleaved so drift on a shared machine hits all
// variants alike; medians and the ratio uncompiled / compiled are printed.
//
// usage: bench_compile_load [--reps N] [--first-run] MODEL.onnx...
//   --first-run  also time session + one inference on ones (weights touched)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "common/guarded_main.h"
#include "compile/compile.h"
#include "model/model_io.h"
#include "runtime/session.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Session ready (and optionally one run) from a cold start of the process's
// view, loading as `winml-make run` does (embedded blobs used where they lie).
double time_session(const fs::path& path, bool first_run) {
  double t0 = now_ms();
  model::Model m = model::load_model(path, {.map_blobs = true});
  runtime::Session s(m);
  if (first_run) {
    std::map<std::string, runtime::Tensor> feeds;
    for (const auto& in : s.inputs()) {
      runtime::Tensor t = runtime::Tensor::allocate(in.dtype, in.shape);
      std::fill_n(t.mutable_data<float>(), t.size(), 1.0f);
      feeds[in.name] = t;
    }
    s.run(feeds);
  }
  return now_ms() - t0;
}

int run(int argc, char** argv) {
  int reps = 15;
  bool first_run = false;
  std::vector<fs::path> models;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--first-run")) first_run = true;
    else models.emplace_back(argv[i]);
  }
  if (models.empty()) {
    std::fprintf(stderr, "usage: %s [--reps N] [--first-run] MODEL.onnx...\n", argv[0]);
    return 2;
  }
  fs::path work = fs::temp_directory_path() / ("bench_compile_load." + std::to_string(::getpid()));
  std::printf("time to a ready session, median of %d interleaved runs (ms)%s\n", reps,
              first_run ? "; + first run: session and one inference" : "");
  std::printf("%-22s %12s %12s %12s %12s %12s\n", "model", "uncompiled", "ref .bin", "ref embed", "ratio .bin",
              "ratio embed");
  for (const auto& source : models) {
    fs::path dir = work / source.stem();
    compile::CompileOptions o;
    o.ep = "ref";
    o.validate = false;
    compile::compile_model(source, dir / "bin" / "compiled.onnx", o);
    o.embed = true;
    compile::compile_model(source, dir / "embed" / "compiled.onnx", o);
    const std::vector<fs::path> variants = {source, dir / "bin" / "compiled.onnx", dir / "embed" / "compiled.onnx"};
    for (const auto& v : variants) time_session(v, false);  // warm the page cache

    std::vector<std::vector<double>> t(variants.size());
    for (int r = 0; r < reps; ++r)
      for (std::size_t k = 0; k < variants.size(); ++k) t[k].push_back(time_session(variants[k], false));
    double u = median(t[0]), b = median(t[1]), e = median(t[2]);
    std::printf("%-22s %12.2f %12.2f %12.2f %11.2fx %11.2fx\n", source.stem().c_str(), u, b, e, u / b, u / e);
    if (first_run) {
      std::vector<double> f;
      for (const auto& v : variants) f.push_back(time_session(v, true));
      std::printf("%-22s %12.1f %12.1f %12.1f %11.2fx %11.2fx\n", "  + first run", f[0], f[1], f[2], f[0] / f[1],
                  f[0] / f[2]);
    }
    fs::remove_all(dir);
  }
  fs::remove_all(work);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return winml::bench::guarded_main(argc, argv, run); }
