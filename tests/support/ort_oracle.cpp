#include "support/ort_oracle.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>

#include "support/cli_runner.h"
#include "support/temp_dir.h"

namespace winml::test {

namespace fs = std::filesystem;

OrtResult run_in_ort(const fs::path& model, const std::map<std::string, model::TensorFile>& inputs,
                     const OrtOptions& options) {
  OrtResult r;
  fs::path modules = fs::path(WINML_ORT_NODE_DIR) / "node_modules";
  if (!fs::exists(modules / "onnxruntime-node")) {
    ADD_FAILURE() << "onnxruntime-node is not installed in " << modules
                  << " (the fixture.onnxruntime_node test installs it)";
    r.error = "onnxruntime-node missing";
    return r;
  }
  TempDir io;
  for (const auto& [name, t] : inputs) {
    std::string file = name;
    for (auto& c : file)
      if (c == '/') c = '_';
    model::write_npy(io / "in" / (file + ".npy"), t);
  }
  std::vector<std::string> argv = {"node",        (source_dir() / "tests" / "ort" / "ort_run.js").string(),
                                   "--model",     model.string(),
                                   "--inputs",    (io / "in").string(),
                                   "--outputs",   (io / "out").string(),
                                   "--opt-level", options.opt_level,
                                   "--threads",   std::to_string(options.threads),
                                   "--json"};
  if (!options.optimized_model.empty())
    argv.insert(argv.end(), {"--optimized-model", options.optimized_model.string()});
  if (options.repeat > 0) argv.insert(argv.end(), {"--repeat", std::to_string(options.repeat)});
  CliResult run = run_program(argv, {}, {{"NODE_PATH", modules.string()}});
  if (run.exit_code != 0) {
    r.error = run.err;
    return r;
  }
  r.report = nlohmann::json::parse(run.out);
  for (const auto& o : r.report["outputs"]) {
    std::string name = o["name"];
    std::string file = name;
    for (auto& c : file)
      if (c == '/') c = '_';
    r.outputs[name] = model::read_npy(io / "out" / (file + ".npy"));
  }
  r.ok = true;
  return r;
}

namespace {
bool same_shape(const model::TensorFile& a, const model::TensorFile& b) {
  return a.dtype == b.dtype && a.shape == b.shape && a.data.size() == b.data.size();
}
}  // namespace

double max_relative_diff(const model::TensorFile& a, const model::TensorFile& b) {
  if (!same_shape(a, b) || a.dtype != onnx::TensorProto::FLOAT) return std::numeric_limits<double>::infinity();
  double worst = 0;
  const float *x = a.as<float>(), *y = b.as<float>();
  for (std::int64_t i = 0; i < a.element_count(); ++i) {
    double d = std::fabs(double(x[i]) - double(y[i])) / std::max(std::fabs(double(y[i])), 1e-3);
    if (std::isnan(d)) return std::numeric_limits<double>::infinity();
    worst = std::max(worst, d);
  }
  return worst;
}

double max_abs_diff(const model::TensorFile& a, const model::TensorFile& b) {
  if (!same_shape(a, b) || a.dtype != onnx::TensorProto::FLOAT) return std::numeric_limits<double>::infinity();
  double worst = 0;
  const float *x = a.as<float>(), *y = b.as<float>();
  for (std::int64_t i = 0; i < a.element_count(); ++i) {
    double d = std::fabs(double(x[i]) - double(y[i]));
    if (std::isnan(d)) return std::numeric_limits<double>::infinity();
    worst = std::max(worst, d);
  }
  return worst;
}

std::string outputs_that_do_not_vary(const std::map<std::string, model::TensorFile>& a,
                                     const std::map<std::string, model::TensorFile>& b) {
  std::string constant;
  int judged = 0;
  for (const auto& [name, x] : a) {
    auto it = b.find(name);
    if (it == b.end() || x.dtype != onnx::TensorProto::FLOAT || it->second.dtype != x.dtype) continue;
    ++judged;
    if (!same_shape(x, it->second)) continue;
    double magnitude = 0;
    for (const auto* t : {&x, &it->second})
      for (std::int64_t i = 0; i < t->element_count(); ++i)
        magnitude = std::max(magnitude, std::fabs(double(t->as<float>()[i])));
    const double spread = max_abs_diff(x, it->second);
    if (x.element_count() > 0 && !(spread > std::max(1e-5 * magnitude, 1e-5))) {
      char figures[96];
      std::snprintf(figures, sizeof figures, " (moved %.2g, magnitude %.2g)", spread, magnitude);
      constant += (constant.empty() ? "" : ", ") + name + figures;
    }
  }
  return judged == 0 ? "no float output" : constant;
}

model::TensorFile ones(const std::vector<std::int64_t>& shape) {
  model::TensorFile t;
  t.shape = shape;
  std::vector<float> v(static_cast<std::size_t>(t.element_count()), 1.0f);
  t.data.resize(v.size() * 4);
  std::memcpy(t.data.data(), v.data(), t.data.size());
  return t;
}

model::TensorFile random_tensor(const std::vector<std::int64_t>& shape, std::uint32_t seed) {
  model::TensorFile t;
  t.shape = shape;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(static_cast<std::size_t>(t.element_count()));
  for (auto& x : v) x = dist(rng);
  t.data.resize(v.size() * 4);
  std::memcpy(t.data.data(), v.data(), t.data.size());
  return t;
}

}  // namespace winml::test
