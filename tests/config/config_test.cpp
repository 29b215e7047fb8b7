// Strict config: typed sections, file:line:column errors with suggestions,
// canonical JSON that replays to the same config.
#include <gtest/gtest.h>

#include "base/error.h"
#include "config/document.h"
#include "config/project.h"
#include "config/reference.h"
#include "support/temp_dir.h"
#include "base/path_text.h"

using namespace winml;
using namespace winml::config;
namespace fs = std::filesystem;

namespace {

ProjectConfig load(const test::TempDir& dir, const std::string& toml) {
  test::write_text(dir / "winml.toml", toml);
  return load_project(dir.path());
}

std::string error_of(const test::TempDir& dir, const std::string& toml) {
  try {
    load(dir, toml);
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace

TEST(Config, DefaultsAreFilledAndResolved) {
  test::TempDir dir;
  auto p = load(dir, "[model]\nsource = \"models/resnet.onnx\"\n");
  ASSERT_EQ(p.models.size(), 1u);
  const auto& t = p.models[0];
  EXPECT_EQ(t.model.name, "resnet");
  EXPECT_EQ(t.build.output_dir, "build");
  EXPECT_FALSE(t.build.auto_discover);
  EXPECT_EQ(t.optimize.level, "basic");
  EXPECT_EQ(t.quantize.weight_type, "int8");
  EXPECT_EQ(t.quantize.weight_symmetric, true);  // signed weights default to symmetric
  EXPECT_EQ(t.quantize.activation_symmetric, false);
  EXPECT_EQ(t.quantize.num_bins, 2048);
  EXPECT_EQ(t.compile.device, "cpu");  // from rules/ep/cpu.toml
}

TEST(Config, CanonicalJsonIsSortedCompleteAndReplays) {
  test::TempDir dir;
  auto p = load(dir, R"(
[build]
auto = true
[model]
source = "m.onnx"
dims = { batch = 2 }
[quantize]
activation_type = "uint16"
symmetric = true
[optimize]
fuse_gelu = true
)");
  std::string text = canonical_json_text(p.models[0]);
  json j = json::parse(text);
  EXPECT_EQ(j["build"]["auto"], true);
  EXPECT_EQ(j["quantize"]["weight_symmetric"], true);
  EXPECT_EQ(j["quantize"]["activation_symmetric"], true);
  EXPECT_TRUE(j["quantize"]["symmetric"].is_null());  // absorbed by the two it sets
  EXPECT_EQ(j["optimize"]["fuse_gelu"], true);
  EXPECT_EQ(j["model"]["dims"]["batch"], 2);
  for (const auto& section : {"build", "model", "export", "optimize", "quantize", "compile"})
    EXPECT_TRUE(j.contains(section)) << section;
  EXPECT_LT(text.find("\"activation_symmetric\""), text.find("\"activation_type\""));  // sorted keys

  // Replay through -c: the same resolved config, byte for byte.
  test::write_text(dir / "winml_build_config.json", text);
  auto replayed = load_project(dir.path(), dir / "winml_build_config.json");
  EXPECT_EQ(canonical_json_text(replayed.models[0]), text);
}

// A winml.toml saved by a Windows editor (CRLF) is the same configuration,
// and its errors name the same line and column.
TEST(Config, ACrlfFileIsTheSameConfigAsItsLfTwin) {
  const std::string lf =
      "[model]\nsource = \"m.onnx\"\n# a comment\n[quantize]\nsamples = 3\nper_channel = true\n[compile]\nep = \"ref\"\n";
  std::string crlf;
  for (char c : lf) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  test::TempDir a, b;
  EXPECT_EQ(canonical_json_text(load(a, crlf).models[0]), canonical_json_text(load(b, lf).models[0]));
  const std::string bad = "[model]\r\nsource = \"m.onnx\"\r\n[quantize]\r\nsampels = 3\r\n";
  EXPECT_NE(error_of(a, bad).find("winml.toml:4:1"), std::string::npos) << error_of(a, bad);
}

TEST(Config, UnknownKeyNamesLineColumnAndSuggests) {
  test::TempDir dir;
  std::string e = error_of(dir, "[model]\nsource = \"m.onnx\"\n\n[quantize]\nweigth_type = \"int8\"\n");
  EXPECT_EQ(e.substr(0, e.find(": ")), to_utf8((dir / "winml.toml")) + ":5:1") << e;
  EXPECT_NE(e.find("unknown key 'quantize.weigth_type'"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'quantize.weight_type'"), std::string::npos) << e;
}

TEST(Config, WrongTypeNamesLineColumn) {
  test::TempDir dir;
  std::string e = error_of(dir, "[model]\nsource = \"m.onnx\"\n[quantize]\nsamples = \"many\"\n");
  EXPECT_NE(e.find("winml.toml:4:11: 'quantize.samples' must be an integer, not a string"), std::string::npos) << e;
}

// [build] is read before the models: its wrong types too are errors naming
// the line, every one of them, not an exception from reading the value.
TEST(Config, WrongTypeInBuildNamesLineColumn) {
  test::TempDir dir;
  std::string e = error_of(dir, "[build]\njobs = \"x\"\nauto = 3\n[model]\nsource = \"m.onnx\"\n");
  EXPECT_NE(e.find("winml.toml:2:8: 'build.jobs' must be an integer, not a string"), std::string::npos) << e;
  EXPECT_NE(e.find("winml.toml:3:8: 'build.auto' must be a boolean, not an integer"), std::string::npos) << e;
}

TEST(Config, BadEnumValueSuggests) {
  test::TempDir dir;
  std::string e = error_of(dir, "[model]\nsource = \"m.onnx\"\n[compile]\nep = \"qnnn\"\n");
  EXPECT_NE(e.find("winml.toml:4:6"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'qnn'"), std::string::npos) << e;
}

TEST(Config, MalformedTomlNamesLine) {
  test::TempDir dir;
  std::string e = error_of(dir, "[model]\nsource = \"m.onnx\n");
  EXPECT_EQ(e.rfind(to_utf8((dir / "winml.toml")) + ":2:", 0), 0u) << e;
  EXPECT_NE(e.find("TOML syntax error"), std::string::npos) << e;
}

TEST(Config, UnknownTopLevelAndModelKeys) {
  test::TempDir dir;
  std::string e = error_of(dir, "[modle]\nsource = \"m.onnx\"\n");
  EXPECT_NE(e.find("unknown top-level key 'modle' (did you mean 'model'?)"), std::string::npos) << e;
  e = error_of(dir, "[model]\nsorce = \"m.onnx\"\n");
  EXPECT_NE(e.find("did you mean 'source'"), std::string::npos) << e;
}

TEST(Config, AllErrorsAreReportedAtOnce) {
  test::TempDir dir;
  std::string e = error_of(dir, "[model]\nsource = \"m.onnx\"\n[quantize]\nsamples = -1\nmode = \"int4\"\n");
  EXPECT_NE(e.find("quantize.samples"), std::string::npos) << e;
  EXPECT_NE(e.find("quantize.mode"), std::string::npos) << e;
}

TEST(Config, BooleanStageShorthand) {
  test::TempDir dir;
  auto p = load(dir, "quantize = false\ncompile = false\n[model]\nsource = \"m.onnx\"\n");
  EXPECT_FALSE(p.models[0].quantize.enabled);
  EXPECT_FALSE(p.models[0].compile.enabled);
  EXPECT_TRUE(p.models[0].optimize.enabled);
}

TEST(Config, SeveralModelsWithOverrides) {
  test::TempDir dir;
  auto p = load(dir, R"(
[quantize]
samples = 4
[[model]]
name = "a"
source = "a.onnx"
[[model]]
source = "b.onnx"
quantize = false
[model.compile]
ep = "ref"
)");
  ASSERT_EQ(p.models.size(), 2u);
  EXPECT_EQ(p.models[0].quantize.samples, 4);
  EXPECT_TRUE(p.models[0].quantize.enabled);
  EXPECT_EQ(p.models[1].model.name, "b");
  EXPECT_FALSE(p.models[1].quantize.enabled);
  EXPECT_EQ(p.models[1].quantize.samples, 4);  // project-wide value kept
  EXPECT_EQ(p.models[1].compile.ep, "ref");
  EXPECT_EQ(p.models[0].compile.ep, "cpu");
}

TEST(Config, DuplicateNamesAndMissingSourceAreErrors) {
  test::TempDir dir;
  EXPECT_NE(error_of(dir, "[[model]]\nsource = \"a/m.onnx\"\n[[model]]\nsource = \"b/m.onnx\"\n").find("used twice"),
            std::string::npos);
  EXPECT_NE(error_of(dir, "[model]\nname = \"x\"\n").find("has no source"), std::string::npos);
}

TEST(Config, ExampleFileIsValidAndUpToDate) {
  fs::path example = test::source_dir() / "winml.toml.example";
  EXPECT_EQ(test::read_text(example), example_toml())
      << "regenerate with: build/winml-make config --example > winml.toml.example";
  auto p = load_project(test::source_dir(), example);
  EXPECT_EQ(p.models.size(), 1u);
}

TEST(Config, ReferenceDocIsUpToDate) {
  EXPECT_EQ(test::read_text(test::source_dir() / "docs" / "configuration.md"), reference_markdown())
      << "regenerate with: build/winml-make config --reference > docs/configuration.md";
}

TEST(Config, ExampleDocumentsEveryKey) {
  std::string text = example_toml();
  for (const auto* s : std::initializer_list<const SectionSchema*>{build_schema().get(), model_schema().get(),
                                                                   export_schema().get(), optimize_schema().get(),
                                                                   quantize_schema().get(), compile_schema().get()})
    for (const auto& name : s->key_names())
      EXPECT_TRUE(text.find(name + " = ") != std::string::npos ||
                  text.find("[[" + s->name() + "." + name + "]]") != std::string::npos)
          << s->name() << "." << name;
}

TEST(Config, TheExampleValueOfEveryOptionalKeyIsValid) {
  // Optional keys appear commented out; uncommented, each must be accepted
  // (an integer key once showed `num_bins = true`).
  const std::string text = example_toml();
  int checked = 0;
  for (const auto* s :
       std::initializer_list<const SectionSchema*>{build_schema().get(), export_schema().get(), optimize_schema().get(),
                                                   quantize_schema().get(), compile_schema().get()})
    for (const auto& k : s->keys()) {
      if (!k.optional) continue;
      const std::string prefix = "\n# " + k.name + " = ";
      const auto at = text.find(prefix);
      ASSERT_NE(at, std::string::npos) << s->name() << "." << k.name;
      const auto from = at + prefix.size();
      const std::string value = text.substr(from, text.find('\n', from) - from);
      test::TempDir dir;
      EXPECT_EQ(error_of(dir, "[model]\nsource = \"m.onnx\"\n[" + s->name() + "]\n" + k.name + " = " + value + "\n"),
                "<no error>")
          << s->name() << "." << k.name << " = " << value;
      ++checked;
    }
  EXPECT_GE(checked, 5);
}

TEST(Config, ComputedDefaultsComeFromTheSchemaForProjectsAndSubcommandsAlike) {
  test::TempDir dir;
  auto p = load(dir,
                "[model]\nsource = \"m.onnx\"\n[quantize]\ncalibration_method = \"entropy\"\nweight_type = "
                "\"uint8\"\nsymmetric = true\n[compile]\nep = \"qnn\"\n");
  const auto& from_project = p.models[0];
  // What a subcommand gets from the same settings, without a project.
  QuantizeConfig q;
  q.calibration_method = "entropy";
  q.weight_type = "uint8";
  q.symmetric = true;
  QuantizeConfig from_schema = quantize_schema()->resolved(q);
  EXPECT_EQ(from_schema.num_bins, 128);
  EXPECT_EQ(from_schema.weight_symmetric, true);  // the shorthand wins over the type's default
  EXPECT_EQ(from_schema.activation_symmetric, true);
  EXPECT_FALSE(from_schema.symmetric);
  EXPECT_EQ(quantize_schema()->write(from_schema), quantize_schema()->write(from_project.quantize));
  CompileConfig c;
  c.ep = "qnn";
  EXPECT_EQ(compile_schema()->resolved(c).device, "npu");
  EXPECT_EQ(from_project.compile.device, "npu");
  // Resolving twice changes nothing.
  EXPECT_EQ(quantize_schema()->write(quantize_schema()->resolved(from_schema)), quantize_schema()->write(from_schema));
}

TEST(ConfigDocument, LocationsPointAtEachValueLineAndColumn) {
  test::TempDir dir;
  test::write_text(dir / "w.toml",
                   "# a comment\n"
                   "[build]\n"
                   "jobs = 4\r\n"
                   "\n"
                   "[[model]]\n"
                   "  name = \"a\"\n"
                   "  dims = { \"x.2\" = 640, n = 1 }\n"
                   "[[model]]\n"
                   "name = \"b\"\n"
                   "shape = [\n"
                   "  1,\n"
                   "    3 ]\n");
  const config::Document doc = config::load_toml(dir / "w.toml");
  auto at = [&](const std::string& path) {
    auto it = doc.locations.find(path);
    return it == doc.locations.end() ? std::string("none")
                                     : std::to_string(it->second.line) + ":" + std::to_string(it->second.column);
  };
  EXPECT_EQ(at("build.jobs"), "3:8");
  EXPECT_EQ(at("model[0].name"), "6:10");
  EXPECT_EQ(at("model[0].dims.x.2"), "7:20");
  EXPECT_EQ(at("model[0].dims.n"), "7:29");
  EXPECT_EQ(at("model[1].name"), "9:8");
  EXPECT_EQ(at("model[1].shape[0]"), "11:3");
  EXPECT_EQ(at("model[1].shape[1]"), "12:5");
}
