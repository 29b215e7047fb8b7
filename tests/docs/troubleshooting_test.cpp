// docs/troubleshooting.md quotes winml-make's messages. Each scenario here
// makes the real CLI print one, and every line it prints must be quoted in
// the page as printed (the project's folder shown as /work/proj, ONNX
// Runtime's default folder as /home/me/.cache/winml-make/ort; "..." in a
// quote stands for what it leaves out). Every quoted error or warning line
// must be reproduced here, or listed in kNotReproducedHere with the reason,
// so that no example goes stale unnoticed when a message changes.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "model/model_io.h"
#include "support/cli_runner.h"
#include "support/project.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

// Quoted lines whose setup this test does not make (external data, a
// corrupt state or cache entry, a held lock, a copied binary, a vendor
// compiler): matched by a part of each.
const std::vector<std::string> kNotReproducedHere = {
    "cannot find winml-make's model tools",        // a binary copied alone, under /home/me
    "external data file 'ext.onnx.data' is missing",
    "is too short for tensor 'fc.weight'",
    "external data location '../x' is refused",
    "qnn compiler wrote an unusable model",
    "still locked by pid",
    "1 content does not match its digest (local)",
    "state: is corrupt; starting without build records",
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Whether `quote` stands for `printed`: equal, or equal but for the parts
// "..." leaves out.
bool quotes(const std::string& quote, const std::string& printed) {
  std::size_t at = 0, from = 0;
  for (std::size_t dots; (dots = quote.find("...", from)) != std::string::npos; from = dots + 3) {
    const std::string part = quote.substr(from, dots - from);
    const std::size_t found = printed.find(part, at);
    if (found == std::string::npos || (from == 0 && found != 0)) return false;
    at = found + part.size();
  }
  const std::string tail = quote.substr(from);
  if (from == 0) return quote == printed;
  return printed.size() >= at + tail.size() && printed.compare(printed.size() - tail.size(), tail.size(), tail) == 0;
}

class TroubleshootingPage {
 public:
  TroubleshootingPage() {
    bool in_block = false;
    for (const auto& line : lines_of(test::read_text(test::source_dir() / "docs" / "troubleshooting.md"))) {
      if (line.starts_with("```")) in_block = !in_block;
      else if (in_block && line.find_first_not_of(" .") != std::string::npos) block_lines_.push_back(line);  // ("..." alone: lines left out)
    }
  }

  // Every line of `printed` (stderr) is quoted in a block of the page.
  void expect_quoted(const std::string& printed, const fs::path& project) {
    for (std::string line : lines_of(printed)) {
      line = normalized(line, project);
      bool found = false;
      for (const auto& quote : block_lines_)
        if (quotes(quote, line)) found = true, reproduced_.push_back(quote);
      EXPECT_TRUE(found) << "docs/troubleshooting.md does not quote what winml-make prints:\n" << line;
    }
  }

  // Every quoted error and warning was reproduced, or is listed.
  void expect_all_reproduced() const {
    for (const auto& quote : block_lines_) {
      if (!quote.starts_with("winml-make: error:") && !quote.starts_with("winml-make: warning:")) continue;
      if (std::find(reproduced_.begin(), reproduced_.end(), quote) != reproduced_.end()) continue;
      bool listed = false;
      for (const auto& part : kNotReproducedHere) listed = listed || quote.find(part) != std::string::npos;
      EXPECT_TRUE(listed) << "docs/troubleshooting.md quotes a message no scenario reproduces:\n" << quote;
    }
  }

 private:
  static std::string normalized(std::string line, const fs::path& project) {
    const std::string dir = project.string();
    for (std::size_t at; !dir.empty() && (at = line.find(dir)) != std::string::npos;)
      line.replace(at, dir.size(), "/work/proj");
    static const std::regex ort_cache("[^ ]*/1\\.29\\.0/lib/");
    static const std::regex torch_cache("[^ ]*/hub/checkpoints/");
    line = std::regex_replace(line, ort_cache, "/home/me/.cache/winml-make/ort/1.29.0/lib/");
    return std::regex_replace(line, torch_cache, "/home/me/.cache/torch/hub/checkpoints/");
  }

  std::vector<std::string> block_lines_;
  std::vector<std::string> reproduced_;
};

// The page's project: /work/proj with net.onnx (examples/quickstart's model).
struct DocProject {
  test::TempDir dir;
  DocProject() { fs::copy_file(test::source_dir() / "examples/quickstart/model.onnx", dir / "net.onnx"); }
  fs::path root() const { return dir.path(); }
  void config(const std::string& text) const { test::write_text(dir / "winml.toml", text); }
  test::CliResult run(const std::vector<std::string>& args, std::map<std::string, std::string> env = {}) const {
    env["WINML_MAKE_CACHE_DIR"] = (dir / "cache").string();
    return test::run_cli(args, root(), env);
  }
};

// Writes `bytes` over `file` at `offset`, keeping its size.
void overwrite(const fs::path& file, std::streamoff offset, const std::string& bytes) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(offset);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

TEST(TroubleshootingDoc, QuotesTheMessagesWinmlMakePrints) {
  TroubleshootingPage page;
  DocProject p;
  auto check = [&](const test::CliResult& r, int exit_code) {
    EXPECT_EQ(r.exit_code, exit_code) << r.err;
    page.expect_quoted(r.err, p.root());
  };

  // The configuration.
  p.config("[model]\nsource = \"net.onnx\"\n[build]\noutput_dri = \"out\"\n[quantize]\nper_chanel = true\n"
           "samples = \"8\"\n");
  check(p.run({"config"}), 2);
  p.config("[model]\nsource = \"net.onnx\"\n[compile]\nep = \"qnm\"\n");
  check(p.run({"config"}), 2);
  p.config("[model]\nsource = \"net.onnx\"\n[quantize]\nmode = \"int4\"\n");
  check(p.run({"config"}), 2);
  p.config("[model]\nsource = \"net.onnx\n");
  check(p.run({"config"}), 2);
  fs::remove(p.dir / "winml.toml");
  check(p.run({"-c", (p.root() / "winml.toml").string(), "config"}), 2);
  p.config("[[model]]\nname = \"small\"\nsource = \"net.onnx\"\n[[model]]\nname = \"small_ref\"\nsource = \"net.onnx\"\n");
  check(p.run({"smal"}), 2);

  // The source model.
  test::write_text(p.dir / "model.onnx", "not a model");
  check(p.run({"inspect", "-m", "model.onnx"}), 2);

  // A compiled model given to optimize, quantize or compile.
  auto compiled = p.run({"compile", "-m", "net.onnx", "-o", "out/compiled.onnx", "--ep", "ref"});
  ASSERT_EQ(compiled.exit_code, 0) << compiled.err;
  check(p.run({"optimize", "-m", "out/compiled.onnx", "-o", "o.onnx"}), 2);
  check(p.run({"quantize", "-m", "out/compiled.onnx", "-o", "q.onnx"}), 2);
  check(p.run({"compile", "-m", "out/compiled.onnx", "-o", "c/c.onnx", "--ep", "ref"}), 2);

  // Already quantized input.
  ASSERT_EQ(p.run({"quantize", "-m", "net.onnx", "-o", "q.onnx"}).exit_code, 0);
  check(p.run({"quantize", "-m", "q.onnx", "-o", "q2.onnx"}), 2);

  // Calibration data.
  check(p.run({"quantize", "-m", "net.onnx", "-o", "q.onnx", "--calibration-data", (p.root() / "calib").string()}), 2);

  // Compile: no QNN in stock ONNX Runtime; a vendor compiler for an EP that compiles at load time.
  p.config("[model]\nsource = \"net.onnx\"\n[compile]\nep = \"qnn\"\n");
  check(p.run({}), 2);
  check(p.run({"compile", "-m", "net.onnx", "-o", "c/c.onnx", "--ep", "cpu", "--", "echo", "{input}"}), 2);

  // EPContext blobs: missing, not a blob, truncated, altered in its plan, altered in its weights.
  for (const char* d : {"miss", "hdr", "trunc", "meta", "bad", "esc"})
    ASSERT_EQ(p.run({"compile", "-m", "net.onnx", "-o", std::string(d) + "/compiled.onnx", "--ep", "ref"}).exit_code, 0);
  fs::remove(p.dir / "miss" / "compiled_ref.bin");
  overwrite(p.dir / "hdr" / "compiled_ref.bin", 0, "XXXXXXXX");
  fs::resize_file(p.dir / "trunc" / "compiled_ref.bin", 100);
  overwrite(p.dir / "meta" / "compiled_ref.bin", 100, "U");
  overwrite(p.dir / "bad" / "compiled_ref.bin", 20000, "UUUU");
  for (const char* d : {"miss", "hdr", "trunc", "meta"}) check(p.run({"run", "-m", std::string(d) + "/compiled.onnx"}), 2);
  check(p.run({"epcontext", "--embed", "-m", "bad/compiled.onnx", "-o", "bad/embedded.onnx"}), 2);
  // A blob named outside the model's folder.
  model::Model escaping = model::load_model(p.dir / "esc" / "compiled.onnx");
  for (auto& node : *escaping.proto.mutable_graph()->mutable_node())
    for (auto& a : *node.mutable_attribute())
      if (a.name() == "ep_cache_context") a.set_s("../compiled_ref.bin");
  model::save_model(escaping, p.dir / "esc" / "compiled.onnx");
  check(p.run({"run", "-m", "esc/compiled.onnx"}), 2);

  // torchvision's pretrained weights: a checkpoint not in torch's cache, a name the model does not have.
  p.config("[export]\ntorchvision = \"resnet50\"\nweights = \"DEFAULT\"\n");
  check(p.run({}, {{"TORCH_HOME", (p.dir / "torch").string()}}), 2);
  p.config("[export]\ntorchvision = \"resnet50\"\nweights = \"IMAGENET1K_V3\"\n");
  check(p.run({"config"}), 2);

  // Command-line flags.
  check(p.run({"quantize", "-m", "net.onnx", "-o", "q.onnx", "--weight-type", "int3"}), 2);
  check(p.run({"optimize", "-m", "net.onnx", "-o", "o.onnx", "--enable", "fuse_gelux"}), 2);
  check(p.run({"cache", "gc", "--max-size", "10Q"}), 2);

  page.expect_all_reproduced();
}
