// The same bytes on every machine, the whole promise on real models: one
// project of eight -- the quickstart example, ResNet-50, EfficientNet-B0 and
// the transformer encoder (torchvision exports, random weights), and four
// npm corpus models: silero_vad_v5 (an LSTM inside If), ppocr_cls (a CNN),
// oww_embedding (a tf2onnx CNN), oww_hey_jarvis (an MLP with If) -- built
// from scratch through every stage by the real CLI, each build in its own
// project and its own empty cache, under WINML_RUNTIME_ISA = the machine's
// default, avx2 and generic, each with WINML_RUNTIME_THREADS = 1 and 3 (3 on
// 2 cores: more threads than cores, tiles split unevenly). The default and
// avx2 builds, at both thread counts, must write byte-identical artifacts
// under the same keys; so must the two generic builds; between generic and
// the others a file may differ only if the stage that wrote it has another
// key (the generic variant's products round twice and its arithmetic enters
// the keys, docs/runtime.md), and some must differ, or the comparison would
// not be seeing the bytes. It fails when the bytes differ: with one model
// built from another config in the 3-thread default build (quantize.samples
// 3 instead of 2 for EfficientNet-B0), it named that model's quantized.onnx,
// compiled_ref.bin, model_ref.bin and winml_build_config.json, and its keys.
//
// What keeps it quick (the six builds take 93 s on 2 cores, shared, at a
// load average of 8) without weakening the promise: calibration takes 2 samples (the quickstart keeps
// its example's 8), since the code that differs between variants (GEMM,
// vector math, libm, the calibration reductions) runs on every sample and
// more samples add time, not coverage; ResNet-50, EfficientNet-B0 and the
// transformer encoder come from the exported fixtures (op13, op13, op17)
// rather than an export in each build, since export never computes with
// the runtime (its key is the same under every variant: SameBytes.*).
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include <nlohmann/json.hpp>

#include "base/instruction_set.h"
#include "model/tensor_file.h"
#include "support/project.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

// One input of a corpus model's calibration sample: uniform in [low, high], a constant when they are equal.
struct InputSpec {
  std::string name;
  std::vector<std::int64_t> shape;
  double low, high;
  bool int64 = false;
};

struct CorpusModel {
  std::string name, dims;
  std::vector<InputSpec> inputs;
};

// Inputs and ranges as tests/corpus/models.json gives them.
const std::vector<CorpusModel>& corpus_models() {
  static const std::vector<CorpusModel> models = {
      {"silero_vad_v5",
       R"({ "input.0" = 1, "input.1" = 512, "state.1" = 1 })",
       {{"input", {1, 512}, -0.5, 0.5}, {"state", {2, 1, 128}, 0, 0}, {"sr", {}, 16000, 16000, true}}},
      {"ppocr_cls", R"({ "x.0" = 1, "x.2" = 48, "x.3" = 192 })", {{"x", {1, 3, 48, 192}, -1, 1}}},
      {"oww_embedding", R"({ "input_1.0" = 1 })", {{"input_1", {1, 76, 32, 1}, 0, 1}}},
      {"oww_hey_jarvis", "{}", {{"x.1", {1, 16, 96}, -1, 1}}},
  };
  return models;
}

void write_sample(const fs::path& dir, const std::vector<InputSpec>& inputs, std::uint32_t seed) {
  fs::create_directories(dir);
  std::mt19937 rng(seed);
  for (const InputSpec& in : inputs) {
    model::TensorFile t;
    t.shape = in.shape;
    std::int64_t n = 1;
    for (auto d : in.shape) n *= d;
    std::uniform_real_distribution<double> u(in.low, in.high);
    auto value = [&] { return in.low == in.high ? in.low : u(rng); };
    if (in.int64) {
      t.dtype = onnx::TensorProto::INT64;
      std::vector<std::int64_t> v(n);
      for (auto& x : v) x = static_cast<std::int64_t>(value());
      t.data.resize(n * sizeof(std::int64_t));
      std::memcpy(t.data.data(), v.data(), t.data.size());
    } else {
      std::vector<float> v(n);
      for (auto& x : v) x = static_cast<float>(value());
      t.data.resize(n * sizeof(float));
      std::memcpy(t.data.data(), v.data(), t.data.size());
    }
    model::write_npy(dir / (in.name + ".npy"), t);
  }
}

void write_project(test::Project& p) {
  fs::copy_file(test::source_dir() / "examples/quickstart/model.onnx", p.root() / "quickstart.onnx");
  for (const char* m : {"resnet50_op13.onnx", "efficientnet_b0_op13.onnx", "transformer_encoder_op17.onnx"})
    p.link_exported_model(m);
  // The quickstart's own config; ResNet-50's example config (w8a16, minmax, a .bin sidecar); the defaults.
  std::string config = R"(
[[model]]
name = "quickstart"
source = "quickstart.onnx"
optimize.level = "extended"
quantize.weight_type = "int8"
quantize.activation_type = "uint8"
quantize.per_channel = true
quantize.samples = 8
quantize.distribution = "uniform"
quantize.value_range = [0.0, 1.0]
compile.ep = "ref"

[[model]]
name = "resnet50"
source = "resnet50_op13.onnx"
optimize.level = "extended"
quantize.weight_type = "int8"
quantize.activation_type = "uint16"
quantize.per_channel = true
quantize.calibration_method = "minmax"
quantize.samples = 2
quantize.distribution = "normal"
quantize.value_range = [0.0, 1.0]
compile.ep = "ref"
compile.embed = false

[[model]]
name = "efficientnet_b0"
source = "efficientnet_b0_op13.onnx"
quantize.samples = 2
compile.ep = "ref"

[[model]]
name = "transformer_encoder"
source = "transformer_encoder_op17.onnx"
quantize.samples = 2
compile.ep = "ref"
)";
  for (const CorpusModel& c : corpus_models()) {
    const fs::path source = fs::path(WINML_CORPUS_DIR) / "models" / (c.name + ".onnx");
    ASSERT_TRUE(fs::exists(source)) << source << " is missing: run node tests/corpus/fetch.js";
    fs::copy_file(source, p.root() / (c.name + ".onnx"));
    for (std::uint32_t s = 0; s < 2; ++s)
      write_sample(p.root() / ("calib_" + c.name) / ("sample" + std::to_string(s)), c.inputs, 17 + s);
    config += "\n[[model]]\nname = \"" + c.name + "\"\nsource = \"" + c.name + ".onnx\"\ndims = " + c.dims +
              "\nquantize.calibration_data = \"calib_" + c.name + "\"\nquantize.samples = 2\ncompile.ep = \"ref\"\n";
  }
  p.write_config(config);
}

struct Build {
  std::map<std::string, std::string> digests;  // "model/file" -> digest, every artifact but the manifests
  std::map<std::string, std::string> keys;     // "model/stage" -> key
  std::map<std::string, std::string> made_by;  // "model/file" -> "model/stage" that wrote it
};

Build build_under(const std::map<std::string, std::string>& env) {
  test::Project p;
  write_project(p);
  const nlohmann::json report = p.build({}, 0, env);
  Build b;
  for (const auto& [stage, status] : test::statuses(report))
    EXPECT_EQ(status, "completed") << stage << " in its own empty cache";
  for (const auto& e : fs::directory_iterator(p.root() / "build")) {
    if (!e.is_directory() || e.path().filename() == ".winml-make") continue;
    const std::string model = e.path().filename().string();
    for (const auto& [file, digest] : test::artifact_digests(e.path())) b.digests[model + "/" + file] = digest;
    const auto manifest = nlohmann::json::parse(test::read_text(e.path() / "build_manifest.json"));
    for (const auto& s : manifest["stages"]) {
      const std::string stage = model + "/" + s["name"].get<std::string>();
      b.keys[stage] = s.value("key", "");
      for (const auto& o : s.value("outputs", nlohmann::json::array()))
        b.made_by[model + "/" + o["file"].get<std::string>()] = stage;
    }
  }
  return b;
}

std::vector<std::string> differing(const Build& a, const Build& b) {
  std::vector<std::string> out;
  for (const auto& [file, digest] : a.digests)
    if (!b.digests.count(file) || b.digests.at(file) != digest) out.push_back(file);
  for (const auto& [file, digest] : b.digests)
    if (!a.digests.count(file)) out.push_back(file);
  return out;
}

}  // namespace

TEST(SameBytesMatrix, EveryVariantAndThreadCountBuildsTheSameBytesOrAnotherKey) {
  const auto under = [](const char* isa, const char* threads) {
    std::map<std::string, std::string> env = {{"WINML_RUNTIME_THREADS", threads}};
    if (*isa) env["WINML_RUNTIME_ISA"] = isa;
    return build_under(env);
  };
  const Build a = under("", "1"), b = under("", "3"), c = under("avx2", "1"), d = under("avx2", "3");
  const Build g = under("generic", "1"), g3 = under("generic", "3");

  ASSERT_GE(a.digests.size(), 8u * 8u) << "eight models, every artifact";
  for (const char* model : {"quickstart", "resnet50", "efficientnet_b0", "transformer_encoder", "silero_vad_v5",
                            "ppocr_cls", "oww_embedding", "oww_hey_jarvis"})
    EXPECT_TRUE(a.digests.count(std::string(model) + "/model.onnx")) << model;
  EXPECT_EQ(differing(a, b), std::vector<std::string>{}) << "the machine's default: 1 against 3 runtime threads";
  EXPECT_EQ(differing(a, c), std::vector<std::string>{}) << "1 thread: the machine's default against avx2";
  EXPECT_EQ(differing(b, d), std::vector<std::string>{}) << "3 threads: the machine's default against avx2";
  EXPECT_EQ(differing(g, g3), std::vector<std::string>{}) << "generic: 1 against 3 runtime threads";
  for (const Build* other : {&b, &c, &d}) EXPECT_EQ(a.keys, other->keys);
  EXPECT_EQ(g.keys, g3.keys);

  const std::vector<std::string> generic_differs = differing(c, g);
  for (const std::string& file : generic_differs) {
    SCOPED_TRACE(file);
    ASSERT_TRUE(c.made_by.count(file)) << "a file no stage names";
    const std::string& stage = c.made_by.at(file);
    EXPECT_NE(c.keys.at(stage), g.keys.at(stage)) << stage << " wrote other bytes under the same key";
  }
  // The comparison sees real differences: without FMA the calibration scales round differently.
  if (cpu_instruction_set() != InstructionSet::kGeneric) {
    EXPECT_FALSE(generic_differs.empty());
  }
}
