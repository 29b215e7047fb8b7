// The same bytes on every machine: the quickstart example (convolutions,
// a Gemm, calibration, a `ref` blob) built from scratch under each runtime
// instruction set (WINML_RUNTIME_ISA), each in its own project and cache.
// AVX2 and the machine's default (AVX-512 where the CPU has it) must give
// byte-identical artifacts with the same keys; the generic variant, whose
// products round twice (docs/runtime.md), may differ only where its stage's
// key differs, so a shared cache never mixes them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/project.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

struct Build {
  std::map<std::string, std::string> artifacts;  // file -> bytes, every file the build wrote but the manifest
  std::map<std::string, std::string> keys;       // stage -> key
  std::map<std::string, std::string> made_by;    // file -> the stage that wrote it
};

// The quickstart copied into a fresh project, built with `env` and `args`.
Build build_quickstart(const std::map<std::string, std::string>& env, std::vector<std::string> args = {}) {
  test::Project p;
  for (const char* f : {"model.onnx", "winml.toml"})
    fs::copy_file(test::source_dir() / "examples" / "quickstart" / f, p.root() / f);
  p.build(std::move(args), 0, env);
  Build b;
  b.artifacts = test::artifacts(p.root() / "build");
  const auto manifest = nlohmann::json::parse(test::read_text(p.out("quickstart", "build_manifest.json")));
  for (const auto& s : manifest["stages"]) {
    b.keys[s["name"]] = s.value("key", "");
    for (const auto& o : s.value("outputs", nlohmann::json::array()))
      b.made_by["quickstart/" + o["file"].get<std::string>()] = s["name"];
  }
  return b;
}

std::vector<std::string> differing(const Build& a, const Build& b) {
  std::vector<std::string> out;
  for (const auto& [file, bytes] : a.artifacts)
    if (file.ends_with("build_manifest.json")) continue;
    else if (!b.artifacts.count(file) || b.artifacts.at(file) != bytes) out.push_back(file);
  for (const auto& [file, bytes] : b.artifacts)
    if (!a.artifacts.count(file)) out.push_back(file);
  return out;
}

}  // namespace

TEST(SameBytes, Avx2AndTheMachinesDefaultBuildTheSameBytesWithTheSameKeys) {
  const Build native = build_quickstart({});
  const Build avx2 = build_quickstart({{"WINML_RUNTIME_ISA", "avx2"}});
  const Build avx2_one_job = build_quickstart({{"WINML_RUNTIME_ISA", "avx2"}}, {"-j", "1"});
  ASSERT_GE(native.artifacts.size(), 8u);
  EXPECT_EQ(differing(native, avx2), std::vector<std::string>{});
  EXPECT_EQ(differing(avx2, avx2_one_job), std::vector<std::string>{});
  EXPECT_EQ(native.keys, avx2.keys);
}

TEST(SameBytes, TheGenericVariantDiffersOnlyUnderAnotherKey) {
  const Build avx2 = build_quickstart({{"WINML_RUNTIME_ISA", "avx2"}});
  const Build generic = build_quickstart({{"WINML_RUNTIME_ISA", "generic"}});
  for (const std::string& file : differing(avx2, generic)) {
    SCOPED_TRACE(file);
    ASSERT_TRUE(avx2.made_by.count(file)) << "a file no stage names";
    const std::string& stage = avx2.made_by.at(file);
    EXPECT_NE(avx2.keys.at(stage), generic.keys.at(stage)) << stage << " wrote other bytes under the same key";
  }
  // Stages that never compute with the runtime keep one key (and one cache entry) for both.
  EXPECT_EQ(avx2.keys.at("export"), generic.keys.at("export"));
  EXPECT_NE(avx2.keys.at("quantize"), generic.keys.at("quantize"));
}

TEST(SameBytes, AnUnknownInstructionSetIsAnInputError) {
  test::Project p;
  p.write_small_project();
  const test::CliResult r = p.run({}, {{"WINML_RUNTIME_ISA", "sse9"}});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("WINML_RUNTIME_ISA=sse9: expected generic, avx2 or avx512"), std::string::npos) << r.err;
}

// WINML_RUNTIME_THREADS sets the runtime's threads where a command names none
// (a build's stages, `run` without --threads); a bad value is an input error.
TEST(SameBytes, TheRuntimeThreadCountComesFromTheEnvironment) {
  test::Project p;
  p.write_small_project();
  const test::CliResult three = p.run({"run", "-m", "net.onnx", "--json"}, {{"WINML_RUNTIME_THREADS", "3"}});
  ASSERT_EQ(three.exit_code, 0) << three.err;
  EXPECT_EQ(nlohmann::json::parse(three.out)["threads"], 3) << three.out;
  const test::CliResult named = p.run({"run", "-m", "net.onnx", "--json", "--threads", "1"},
                                      {{"WINML_RUNTIME_THREADS", "3"}});
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_EQ(nlohmann::json::parse(named.out)["threads"], 1) << named.out;
  for (const char* bad : {"0", "two", "3x"}) {
    const test::CliResult r = p.run({}, {{"WINML_RUNTIME_THREADS", bad}});
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find(std::string("WINML_RUNTIME_THREADS=") + bad + ": expected a whole number from 1 to 1024"),
              std::string::npos)
        << r.err;
  }
}
