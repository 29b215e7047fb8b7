// docs/language-models.md followed on the tests' tied decoder: its
// configuration builds, quantizes to 4-bit MatMulNBits with the settings it
// names, and what it says of tied embeddings holds: a project build folds
// the transposed table and reports no tie; with fold_constants = false the
// tie is kept and reported.
#include <gtest/gtest.h>

#include <sstream>

#include "support/decoder_models.h"
#include "support/project.h"
#include "support/temp_dir.h"

using namespace winml;
using test::Project;
namespace fs = std::filesystem;

namespace {

// The page's ```toml blocks, in order.
std::vector<std::string> toml_blocks() {
  std::istringstream in(test::read_text(test::source_dir() / "docs" / "language-models.md"));
  std::vector<std::string> blocks;
  bool in_toml = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("```")) {
      in_toml = !in_toml && line == "```toml";
      if (in_toml) blocks.emplace_back();
    } else if (in_toml) {
      blocks.back() += line + "\n";
    }
  }
  return blocks;
}

nlohmann::json quantize_report(const Project& p) {
  auto manifest = nlohmann::json::parse(test::read_text(p.out("decoder", "build_manifest.json")));
  for (const auto& s : manifest["stages"])
    if (s["name"] == "quantize") return s;
  ADD_FAILURE() << "no quantize stage in the manifest";
  return {};
}

}  // namespace

TEST(LanguageModelsDoc, ItsConfigurationQuantizesATiedDecoderAsThePageSays) {
  const auto blocks = toml_blocks();
  ASSERT_EQ(blocks.size(), 2u) << "the project's winml.toml, then the [optimize] table that keeps the tie";
  Project p;
  const fs::path src = test::decoder_model("decoder_tied");
  fs::copy_file(src, p.root() / "decoder.onnx");
  fs::copy_file(src.string() + ".data", p.root() / "decoder_tied.onnx.data");  // the location the model names
  p.write_config(blocks[0]);
  p.build();
  nlohmann::json q = quantize_report(p);
  EXPECT_EQ(q["mode"], "matmulnbits") << q.dump();
  EXPECT_EQ(q["bits"], 4);
  EXPECT_EQ(q["block_size"], 32);
  EXPECT_EQ(q["accuracy_level"], 4);
  EXPECT_GT(q["nodes_quantized"].get<int>(), 0);
  EXPECT_EQ(q["tied_embeddings"], nlohmann::json::array()) << "the page says a project build folds the tie away";

  p.write_config(blocks[0] + blocks[1]);
  p.build();
  q = quantize_report(p);
  EXPECT_EQ(q["tied_embeddings"], nlohmann::json::array({"model.embed_tokens.weight"})) << q.dump();
}
