// A decoder with a KV cache (past_key_values.* inputs, present.* outputs,
// symbolic batch and sequence dimensions sized by [model] dims) built
// through every stage: quantized to MatMulNBits and to w4a16 QDQ, compiled
// for cpu and for the ref backend; model.onnx, run by `winml-make run`,
// gives what ONNX Runtime gives (for cpu, on model.onnx itself; for ref,
// whose EPContext nodes stock ORT does not run, on quantized.onnx).
#include <gtest/gtest.h>

#include <cmath>

#include "model/model_io.h"
#include "model/tensor_file.h"
#include "support/decoder_models.h"
#include "support/ort_oracle.h"
#include "support/project.h"

using namespace winml;
using test::Project;
namespace fs = std::filesystem;

namespace {

const char* kDims = "dims = { batch_size = 1, sequence_length = 4, past_sequence_length = 3 }";

void add_decoder(const Project& p) {
  const fs::path src = test::decoder_model("decoder_kv");
  fs::copy_file(src, p.root() / "decoder.onnx");
  fs::copy_file(src.string() + ".data", p.root() / "decoder_kv.onnx.data");  // the location the model names
}

nlohmann::json manifest_stage(const Project& p, const std::string& name) {
  auto manifest = nlohmann::json::parse(test::read_text(p.out("decoder", "build_manifest.json")));
  for (const auto& s : manifest["stages"])
    if (s["name"] == name) return s;
  return nullptr;
}

// model.onnx through `winml-make run` against `oracle` in ONNX Runtime, on the same feeds.
void expect_run_matches_ort(const Project& p, const fs::path& oracle) {
  const auto feeds = test::decoder_feeds(true, {}, 3);
  std::vector<std::string> args = {"run", "-m", p.out("decoder", "model.onnx").string(), "--output-dir",
                                   (p.root() / "ours").string()};
  fs::create_directories(p.root() / "feeds");
  for (const auto& [name, t] : feeds) {
    const fs::path file = p.root() / "feeds" / (name + ".npy");
    model::write_npy(file, t);
    args.insert(args.end(), {"--input", name + "=" + file.string()});
  }
  for (const char* d : {"batch_size=1", "sequence_length=4", "past_sequence_length=3"})
    args.insert(args.end(), {"--dim", d});
  auto run = test::run_cli(args, p.root());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto ort = test::run_in_ort(oracle, feeds);
  ASSERT_TRUE(ort.ok) << ort.error;
  ASSERT_EQ(ort.outputs.size(), 1u + 2 * test::kDecoderLayers);
  for (const auto& [name, want] : ort.outputs) {
    const model::TensorFile got = model::read_npy(p.root() / "ours" / (name + ".npy"));
    ASSERT_EQ(got.shape, want.shape) << name;
    double diff = 0, lo = INFINITY, hi = -INFINITY;
    for (std::int64_t i = 0; i < want.element_count(); ++i) {
      const double w = want.as<float>()[i];
      diff = std::max(diff, std::fabs(static_cast<double>(got.as<float>()[i]) - w));
      lo = std::min(lo, w), hi = std::max(hi, w);
    }
    EXPECT_LE(diff, 1e-3 * (hi - lo)) << name << ": span " << hi - lo;
  }
}

void build_decoder(const std::string& quantize, const std::string& ep) {
  Project p;
  add_decoder(p);
  p.write_config(std::string("[model]\nsource = \"decoder.onnx\"\n") + kDims + "\n[quantize]\n" + quantize +
                 "\nsamples = 2\n[compile]\nep = \"" + ep + "\"\n");
  auto report = p.build();
  EXPECT_EQ(test::stages_with(report, "decoder", "failed").size(), 0u);
  const auto q = manifest_stage(p, "quantize");
  // Every layer's 7 projections and the LM head: MatMulNBits nodes, or
  // weights behind a blocked DequantizeLinear (opset 21).
  if (q["mode"] == "matmulnbits") {
    EXPECT_EQ(q["nodes_quantized"], 2 * 7 + 1) << q.dump();
  } else {
    EXPECT_EQ(q["opset"], 21) << q.dump();
    const model::Model m = model::load_model(p.out("decoder", "quantized.onnx"));
    int blocked = 0;
    for (const auto& n : m.proto.graph().node())
      for (const auto& a : n.attribute())
        if (n.op_type() == "DequantizeLinear" && a.name() == "block_size" && a.i() == 32) ++blocked;
    EXPECT_EQ(blocked, 2 * 7 + 1);
  }
  ASSERT_FALSE(q["accuracy"].empty());
  const auto c = manifest_stage(p, "compile");
  EXPECT_EQ(c["status"], "completed") << c.dump();
  expect_run_matches_ort(p, ep == "cpu" ? p.out("decoder", "model.onnx") : p.out("decoder", "quantized.onnx"));
  // Incremental: nothing reruns.
  EXPECT_TRUE(test::stages_with(p.build(), "decoder", "completed").empty());
}

}  // namespace

TEST(DecoderBuild, MatMulNBitsForCpu) { build_decoder("mode = \"matmulnbits\"", "cpu"); }
TEST(DecoderBuild, MatMulNBitsForRef) { build_decoder("mode = \"matmulnbits\"", "ref"); }
TEST(DecoderBuild, W4a16QdqForCpu) { build_decoder("weight_type = \"int4\"\nactivation_type = \"uint16\"", "cpu"); }
TEST(DecoderBuild, W4a16QdqForRef) { build_decoder("weight_type = \"int4\"\nactivation_type = \"uint16\"", "ref"); }
