// The npm corpus (tests/corpus/models.json) through ONNX Runtime with the
// `ref` plugin EP. Each model, float and quantized (winml-make quantize on two
// calibration samples), is compiled by ORT's compile API with the plugin,
// blobs embedded and in a sidecar, and by winml-make's built-in `ref`
// backend; each compiled model is loaded by stock ORT 1.29 and 1.30 with the
// plugin registered (ort_harness: nothing of winml-make's runtime in the
// process) and must compute what ORT's CPU EP computes on the uncompiled
// model:
//   - float: max |got - want| <= 1e-4 of the output's span, or twice what
//     ORT's own basic level moves the output when that is more (a deep
//     detector's drift on noise);
//   - quantized: <= 1e-3 of the span. Where the manifest records ORT and the
//     runtime rounding some values to neighbouring quanta
//     ("quantized_rounding"), every difference must be whole quanta of the
//     output's scale, in at most 1 % of the elements, and the plugin must
//     give exactly winml-make's runtime's bits on the same compiled model.
// Prints one "ort-plugin:" line per model with the worst differences.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <random>

#include "support/compile_util.h"
#include "model/model_io.h"
#include "ort_ep/harness.h"
#include "runtime/tensor.h"
#include "support/cli_runner.h"
#include "support/temp_dir.h"

using namespace winml;
using nlohmann::json;
using test::HarnessOptions;
using test::OrtVersion;
namespace fs = std::filesystem;

namespace {

struct CorpusModel {
  std::string name, quantized_rounding;
  json inputs;
};

std::ostream& operator<<(std::ostream& os, const CorpusModel& m) { return os << m.name; }

std::vector<CorpusModel> manifest() {
  std::ifstream in(test::source_dir() / "tests/corpus/models.json");
  const json j = json::parse(in);
  std::vector<CorpusModel> models;
  for (const auto& p : j["packages"])
    for (const auto& m : p["models"]) models.push_back({m["name"], m.value("quantized_rounding", ""), m["inputs"]});
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
      t.data.resize(static_cast<std::size_t>(n) * 8);
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t v = low == high ? static_cast<std::int64_t>(low) : static_cast<std::int64_t>(u(rng));
        std::memcpy(t.data.data() + i * 8, &v, 8);
      }
    } else {
      t.data.resize(static_cast<std::size_t>(n) * 4);
      for (std::int64_t i = 0; i < n; ++i) {
        const float v = low == high ? static_cast<float>(low) : static_cast<float>(u(rng));
        std::memcpy(t.data.data() + i * 4, &v, 4);
      }
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

std::string dims_option(const std::map<std::string, std::int64_t>& dims) {
  std::string s;
  for (const auto& [k, v] : dims) s += (s.empty() ? "" : ",") + k + "=" + std::to_string(v);
  return s;
}

// The scale of the DequantizeLinear producing graph output `name` (0 if none, or not per tensor).
double output_quantum(const model::Model& m, const std::string& name) {
  const auto& g = m.proto.graph();
  for (const auto& n : g.node()) {
    if (n.op_type() != "DequantizeLinear" || n.output(0) != name) continue;
    for (const auto& t : g.initializer())
      if (t.name() == n.input(1) && t.data_type() == onnx::TensorProto::FLOAT && t.dims_size() == 0) {
        const model::TensorBytes b = m.tensor_bytes(t);
        float s = 0;
        std::memcpy(&s, b.bytes.data(), 4);
        return s;
      }
  }
  return 0;
}

// Differences of whole quanta (of `quantum`), in at most 1 % of the elements.
void expect_whole_quanta(const model::TensorFile& got, const model::TensorFile& want, double quantum,
                         const std::string& what) {
  ASSERT_GT(quantum, 0) << what << ": no per-tensor DequantizeLinear scale for the output";
  ASSERT_EQ(got.shape, want.shape) << what;
  std::int64_t differing = 0;
  for (std::int64_t i = 0; i < want.element_count(); ++i) {
    const double d = std::fabs(double(got.as<float>()[i]) - double(want.as<float>()[i])) / quantum;
    if (d == 0) continue;
    ++differing;
    EXPECT_NEAR(d, std::round(d), 1e-2) << what << ": element " << i << " differs by " << d << " quanta";
  }
  EXPECT_LE(differing, want.element_count() / 100) << what << ": " << differing << " elements differ";
}

class CorpusInOrt : public ::testing::TestWithParam<CorpusModel> {};

TEST_P(CorpusInOrt, CompiledWithThePluginComputesWhatOnnxRuntimeComputes) {
  const CorpusModel& c = GetParam();
  const fs::path source = fs::path(WINML_CORPUS_DIR) / "models" / (c.name + ".onnx");
  ASSERT_TRUE(fs::exists(source)) << source << " is missing: run node tests/corpus/fetch.js";
  const model::Model original = model::load_model(source);
  const auto dims = open_dims(original, c.inputs);
  test::TempDir dir;
  std::vector<std::string> dim_flags;
  for (const auto& [k, v] : dims) dim_flags.push_back("--dim=" + k + "=" + std::to_string(v));

  // The quantized model, from two calibration samples.
  for (std::uint32_t s = 0; s < 2; ++s) {
    const fs::path d = dir / "calib" / ("sample" + std::to_string(s));
    fs::create_directories(d);
    for (const auto& [name, t] : sample(c.inputs, 17 + s)) model::write_npy(d / (name + ".npy"), t);
  }
  const fs::path quantized = dir / "quantized.onnx";
  std::vector<std::string> q = {"quantize", "-m", source.string(), "-o", quantized.string(), "--calibration-data",
                                (dir / "calib").string(), "--samples", "2", "--no-accuracy"};
  q.insert(q.end(), dim_flags.begin(), dim_flags.end());
  auto run = test::run_cli(q);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;

  // winml-make's artifacts: the built-in backend's, and its `ort` backend's (ORT's compile API with the plugin).
  std::map<std::string, fs::path> builtin;
  for (const char* backend : {"ref", "ort"})
    for (bool embed : {false, true}) {
      const std::string name = std::string(backend) + (embed ? "_embed" : "_bin");
      const fs::path out = dir / name / "compiled.onnx";
      std::vector<std::string> args = {"compile", "-m", quantized.string(), "-o", out.string(), "--ep", "ref",
                                       "--backend", backend, "--no-validate"};
      if (embed) args.push_back("--embed");
      if (std::string(backend) == "ref") args.insert(args.end(), dim_flags.begin(), dim_flags.end());
      else if (!dims.empty()) args.push_back("--provider-option=dims=" + dims_option(dims));
      run = test::run_cli(args);
      ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
      builtin["winml-make compile --backend " + name] = out;
    }

  // ORT's CPU EP on the uncompiled models (and its basic level, for its own drift).
  const auto feeds = sample(c.inputs, 17);
  HarnessOptions cpu;
  std::vector<std::string> actions;
  for (const auto& [model, name] : {std::pair{source, "float"}, {quantized, "quantized"}}) {
    auto a = test::run_action(model, dir / "cpu" / name);
    actions.insert(actions.end(), a.begin(), a.end());
  }
  auto reference = test::run_harness(cpu, actions, feeds);
  ASSERT_EQ(reference.exit_code, 0) << reference.err;
  ASSERT_EQ(reference.runs.size(), 2u);
  const auto& want_float = reference.runs[0];
  const auto& want_quantized = reference.runs[1];
  HarnessOptions basic;
  basic.opt_level = "basic";
  auto ort_basic = test::run_harness(basic, test::run_action(source, dir / "cpu" / "basic"), feeds);
  ASSERT_EQ(ort_basic.exit_code, 0) << ort_basic.err;

  // ORT's compile API with the plugin: float and quantized, .bin and embedded.
  HarnessOptions plugin;
  plugin.plugin = true;
  if (!dims.empty()) plugin.provider_options = {{"dims", dims_option(dims)}};
  struct Compiled {
    std::string what;
    fs::path path;
    bool quantized;
  };
  std::vector<Compiled> compiled;
  actions.clear();
  for (const auto& [model, kind] : {std::pair{source, "float"}, {quantized, "quantized"}})
    for (bool embed : {false, true}) {
      const fs::path out = dir / (std::string(kind) + (embed ? "_embed" : "_bin")) / "compiled.onnx";
      fs::create_directories(out.parent_path());
      actions.insert(actions.end(), {"--embed", embed ? "1" : "0", "--compile", model.string(), out.string()});
      compiled.push_back({std::string(kind) + (embed ? ", embedded" : ", .bin"), out, model == quantized});
    }
  auto compile = test::run_harness(plugin, actions);
  ASSERT_EQ(compile.exit_code, 0) << compile.err;
  for (const auto& [what, path] : builtin) compiled.push_back({what, path, true});

  // Each compiled model in ORT 1.29 and 1.30 with the plugin, against ORT's CPU EP.
  double worst_float = 0, worst_quantized = 0;
  for (OrtVersion v : {OrtVersion::k1_29, OrtVersion::k1_30}) {
    HarnessOptions with_plugin = plugin;
    with_plugin.ort = v;
    actions.clear();
    for (std::size_t k = 0; k < compiled.size(); ++k) {
      auto a = test::run_action(compiled[k].path, dir / "runs" / test::ort_version_name(v) / std::to_string(k));
      actions.insert(actions.end(), a.begin(), a.end());
    }
    auto runs = test::run_harness(with_plugin, actions, feeds);
    ASSERT_EQ(runs.exit_code, 0) << runs.err;
    ASSERT_EQ(runs.ort_version, test::ort_version_name(v));
    ASSERT_EQ(runs.runs.size(), compiled.size());
    for (std::size_t k = 0; k < compiled.size(); ++k) {
      const Compiled& m = compiled[k];
      const std::string what = m.what + " in ORT " + runs.ort_version;
      const auto& want = m.quantized ? want_quantized : want_float;
      const auto& got = runs.runs[k];
      ASSERT_EQ(got.size(), want.size()) << what;
      for (const auto& [name, w] : want) {
        ASSERT_TRUE(got.count(name)) << what << ": output " << name;
        const double d = test::span_relative_diff(got.at(name), w);
        if (!m.quantized) {
          const double drift = test::span_relative_diff(ort_basic.outputs.at(name), w);
          worst_float = std::max(worst_float, d);
          EXPECT_LE(d, std::max(1e-4, 2 * drift)) << what << ": output " << name;
        } else if (c.quantized_rounding.empty()) {
          worst_quantized = std::max(worst_quantized, d);
          EXPECT_LE(d, 1e-3) << what << ": output " << name;
        } else {
          worst_quantized = std::max(worst_quantized, d);
          expect_whole_quanta(got.at(name), w, output_quantum(model::load_model(quantized), name),
                              what + ": output " + name);
        }
      }
      // Where the recorded rounding differs from ORT, the plugin still gives the runtime's exact bits.
      if (m.quantized && !c.quantized_rounding.empty() && v == OrtVersion::k1_29) {
        std::map<std::string, runtime::Tensor> runtime_feeds;
        for (const auto& [name, t] : feeds) runtime_feeds.emplace(name, runtime::from_tensor_file(t));
        for (const auto& [name, t] : test::run_model(m.path, runtime_feeds)) {
          const auto mine = runtime::to_tensor_file(t);
          EXPECT_EQ(mine.data, got.at(name).data) << what << ": output " << name << " differs from the runtime's";
        }
      }
    }
  }
  std::printf("ort-plugin: | %s | %.1e | %.1e |\n", c.name.c_str(), worst_float, worst_quantized);
}

INSTANTIATE_TEST_SUITE_P(Npm, CorpusInOrt, ::testing::ValuesIn(manifest()),
                         [](const ::testing::TestParamInfo<CorpusModel>& i) { return i.param.name; });

}  // namespace
