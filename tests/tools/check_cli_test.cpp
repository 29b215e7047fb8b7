// `winml-make check` through the real binary: a built project checks clean;
// an artifact tampered with in place, or its copy in the cache, is named
// with its stage and check exits 1; the scratch build leaves nothing behind.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "base/path_text.h"
#include "model/model_io.h"
#include "support/platform.h"
#include "support/project.h"
#include "support/temp_dir.h"

using namespace winml;
using test::Project;
namespace fs = std::filesystem;

namespace {

std::string recorded_digest(const Project& p, const std::string& stage, const std::string& file) {
  const auto m = nlohmann::json::parse(test::read_text(p.out("net", "build_manifest.json")));
  for (const auto& s : m["stages"])
    if (s["name"] == stage)
      for (const auto& o : s["outputs"])
        if (o["file"] == file) return o["digest"];
  return "";
}

// Replaces a file (perhaps a read-only cache blob or a hard link to one) with other bytes.
void overwrite(const fs::path& file, const std::string& bytes) {
  test::remove_file(file);
  test::write_text(file, bytes);
}

}  // namespace

TEST(CheckCli, ABuiltProjectIsTheBytesOfAFreshBuild) {
  Project p;
  p.write_small_project();
  p.build();
  const test::CliResult r = p.run({"check"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("are the bytes of a fresh build"), std::string::npos) << r.out;
  // The scratch build is gone.
  for (const auto& e : fs::recursive_directory_iterator(p.root() / "build"))
    EXPECT_EQ(e.path().filename().string().find("check-"), std::string::npos) << e.path();
}

TEST(CheckCli, AnArtifactTamperedWithInPlaceIsNamedWithItsStage) {
  Project p;
  p.write_small_project();
  p.build();
  // One weight of the quantized model changed, the file still a valid model.
  model::Model m = model::load_model(p.out("net", "quantized.onnx"));
  for (auto& t : *m.proto.mutable_graph()->mutable_initializer())
    if (t.data_type() == onnx::TensorProto::FLOAT && !t.raw_data().empty()) {
      t.mutable_raw_data()->at(0) ^= 1;
      break;
    }
  const std::string bytes = model::serialize_deterministic(m.proto);
  overwrite(p.out("net", "quantized.onnx"), bytes);
  const test::CliResult r = p.run({"check", "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["differences"].size(), 1u) << j.dump(2);
  EXPECT_EQ(j["differences"][0]["stage"], "quantize");
  EXPECT_EQ(j["differences"][0]["file"], "quantized.onnx");
  EXPECT_EQ(j["differences"][0]["where"], "in place");
  EXPECT_EQ(j["differences"][0]["first"].get<std::string>().rfind("initializer ", 0), 0u) << j.dump(2);
}

TEST(CheckCli, AnArtifactTamperedWithInTheCacheIsNamedWithItsStage) {
  Project p;
  p.write_small_project();
  p.build();
  const std::string digest = recorded_digest(p, "optimize", "optimized.onnx");
  ASSERT_FALSE(digest.empty());
  const fs::path blob = p.cache_dir() / "cas" / digest.substr(0, 2) / digest;
  ASSERT_TRUE(fs::exists(blob)) << blob;
  overwrite(blob, "not the optimized model");
  const test::CliResult r = p.run({"check"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("net/optimize: optimized.onnx differs in the cache"), std::string::npos) << r.out;
}

// The generic variant keys its stages apart (docs/runtime.md): a project
// built with fused multiply-adds, checked without them, differs, and check
// says that the fresh build ran under another key.
TEST(CheckCli, AnotherArithmeticIsNamedAsAnotherKey) {
  Project p;
  for (const char* f : {"model.onnx", "winml.toml"})
    fs::copy_file(test::source_dir() / "examples" / "quickstart" / f, p.root() / f);
  p.build({}, 0, {{"WINML_RUNTIME_ISA", "avx2"}});
  const test::CliResult same = p.run({"check"}, {{"WINML_RUNTIME_ISA", "avx2"}});
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  const test::CliResult generic = p.run({"check"}, {{"WINML_RUNTIME_ISA", "generic"}});
  EXPECT_EQ(generic.exit_code, 1) << generic.err;
  EXPECT_NE(generic.out.find("quickstart/quantize: quantized.onnx differs in place: initializer "), std::string::npos)
      << generic.out;
  EXPECT_NE(generic.out.find("(the fresh build's key differs from the record's)"), std::string::npos) << generic.out;
}

TEST(CheckCli, AProjectNeverBuiltIsSaidSo) {
  Project p;
  p.write_small_project();
  const test::CliResult r = p.run({"check"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.first_error_line(), "winml-make: error: check: nothing to compare: net was never built (no " +
                                      to_utf8(p.root() / "build" / "net" / "build_manifest.json") +
                                      "); build first, then check")
      << r.err;
}

// One model's fresh build fails: check names it and the cause, and with -k
// still compares the others.
TEST(CheckCli, AModelWhoseFreshBuildFailsIsNamedWithTheCause) {
  Project p;
  p.write_model("good.onnx", 1);
  p.write_model("bad.onnx", 2);
  p.write_config("[[model]]\nname = \"good\"\nsource = \"good.onnx\"\n[[model]]\nname = \"bad\"\nsource = "
                 "\"bad.onnx\"\n");
  p.build();
  test::write_text(p.root() / "bad.onnx", "x\n");
  const std::string cause = "winml-make: error: check: bad/export: the fresh build failed: " +
                            to_utf8(p.root() / "bad.onnx") + ": not a usable ONNX model";
  test::CliResult r = p.run({"check"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.first_error_line().substr(0, cause.size()), cause) << r.err;
  EXPECT_EQ(r.err.find("\"status\""), std::string::npos) << r.err;  // no report JSON

  r = p.run({"check", "-k"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.first_error_line().substr(0, cause.size()), cause) << r.err;
  // good was compared: tampering with it is found too.
  const auto manifest = nlohmann::json::parse(test::read_text(p.out("good", "build_manifest.json")));
  ASSERT_FALSE(manifest["stages"].empty());
  r = p.run({"check", "-k", "--json"});
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_GT(j["compared"].get<int>(), 0) << r.out;
  EXPECT_FALSE(j["same"].get<bool>());
  ASSERT_EQ(j["failed"].size(), 1u) << r.out;
  EXPECT_EQ(j["failed"][0]["model"], "bad");
}
