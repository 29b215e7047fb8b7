// Vendor compilers behind `[compile] command`: the result is verified, blobs
// get content-addressed names, and every kind of bad output is refused with
// nothing written. The stand-in compilers are winml-make itself (a real
// compiler of real EPContext models) and small shell commands that copy a
// prepared EPContext model into place, as a vendor script would.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "support/compile_util.h"
#include "compile/epcontext_node.h"
#include "model/model_io.h"
#include "model/node_util.h"
#include "store/digest.h"
#include "support/cli_runner.h"
#include "support/model_builder.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

std::set<std::string> files_in(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

// A vendor script: copies `model` to {output} and, when given, `blob` to
// {output_dir}/<blob_name>.
std::vector<std::string> copy_command(const fs::path& model, const fs::path& blob = {},
                                      const std::string& blob_name = "ctx.bin") {
  std::string script = "/bin/cp '" + model.string() + "' '{output}'";
  if (!blob.empty()) script += " && /bin/cp '" + blob.string() + "' '{output_dir}/" + blob_name + "'";
  return {"/bin/sh", "-c", script};
}

test::CliResult compile_qnn(const test::TempDir& dir, const std::vector<std::string>& command,
                            std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"compile", "-m", (dir / "in.onnx").string(), "-o", (dir / "out" / "c.onnx").string(),
                                   "--ep",    "qnn"};
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back("--");
  args.insert(args.end(), command.begin(), command.end());
  return test::run_cli(args);
}

}  // namespace

TEST(ExternalCompiler, WithoutACommandTheErrorSaysWhatToConfigure) {
  test::TempDir dir;
  test::write_model(test::small_model(), dir / "in.onnx");
  // Without a vendor compiler, qnn compiles through ONNX Runtime, whose stock
  // library has no QNN EP: the error names both ways to provide one.
  auto r = test::run_cli({"compile", "-m", (dir / "in.onnx").string(), "-o", (dir / "c.onnx").string(), "--ep", "qnn"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("has no execution provider QNNExecutionProvider (ep = \"qnn\""), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("give a vendor compiler in the arguments after `--`"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Point --ep-library at"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "c.onnx"));
  auto nested = test::run_cli(
      {"compile", "-m", (dir / "in.onnx").string(), "-o", (dir / "new" / "c.onnx").string(), "--ep", "qnn"});
  EXPECT_EQ(nested.exit_code, 2);
  EXPECT_FALSE(fs::exists(dir / "new"));  // not even the directory

  auto cpu = test::run_cli(
      {"compile", "-m", (dir / "in.onnx").string(), "-o", (dir / "c.onnx").string(), "--ep", "cpu", "--", "/bin/true"});
  EXPECT_EQ(cpu.exit_code, 2);
  EXPECT_NE(cpu.err.find("a vendor compiler (the arguments after `--`) is only used for EPs compiled ahead of time"),
            std::string::npos)
      << cpu.err;
}

TEST(ExternalCompiler, ResultIsVerifiedRenamedByContentAndValidated) {
  test::TempDir dir;
  test::write_model(test::small_model(), dir / "in.onnx");
  // winml-make's own ref backend plays the vendor compiler: it writes
  // {output} and a .bin sidecar next to it.
  auto r = compile_qnn(dir,
                       {test::winml_make_binary().string(), "compile", "-m", "{input}", "-o", "{output}", "--ep", "ref",
                        "--no-validate"},
                       {"--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto metrics = nlohmann::json::parse(r.out);
  ASSERT_EQ(metrics["blobs"].size(), 1u);
  const std::string name = metrics["blobs"][0]["file"];
  EXPECT_TRUE(std::regex_match(name, std::regex("c_[0-9a-f]{32}\\.bin"))) << name;
  EXPECT_EQ(metrics["blobs"][0]["digest"], store::hash_file(dir / "out" / name).hex());
  EXPECT_EQ(files_in(dir / "out"), (std::set<std::string>{"c.onnx", name}));
  model::Model m = model::load_model(dir / "out" / "c.onnx");
  EXPECT_EQ(model::find_attr(m.proto.graph().node(0), "ep_cache_context")->s(), name);
  // The blobs are ref blobs, which the runtime executes: validation ran them.
  EXPECT_EQ(metrics["validation"]["mode"], "run");
  auto x = test::random_input({1, 8}, 3);
  auto a = test::run_model(dir / "in.onnx", {{"x", x}}), b = test::run_model(dir / "out" / "c.onnx", {{"x", x}});
  EXPECT_TRUE(a.at("y").same_as(b.at("y")));

  // The same bytes get the same name; the earlier result is replaced.
  auto again = compile_qnn(dir, {test::winml_make_binary().string(), "compile", "-m", "{input}", "-o", "{output}",
                                 "--ep", "ref", "--no-validate"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(files_in(dir / "out"), (std::set<std::string>{"c.onnx", name}));
}

TEST(ExternalCompiler, VendorBlobsAreCheckedForStructureOnly) {
  test::TempDir dir;
  test::write_model(test::small_model(), dir / "in.onnx");
  test::write_model(test::epcontext_model("QNNExecutionProvider", 0, "ctx.bin"), dir / "prebuilt.onnx");
  test::write_text(dir / "prebuilt.bin", "QNN context binary bytes");
  auto r = compile_qnn(dir, copy_command(dir / "prebuilt.onnx", dir / "prebuilt.bin"), {"--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto metrics = nlohmann::json::parse(r.out);
  EXPECT_EQ(metrics["validation"]["mode"], "structure");
  EXPECT_NE(metrics["validation"]["reason"].get<std::string>().find("compiled for QNNExecutionProvider"),
            std::string::npos)
      << metrics["validation"].dump();
  EXPECT_EQ(metrics["validation"]["epcontext_nodes"], 1);
  EXPECT_EQ(test::read_text(dir / "out" / metrics["blobs"][0]["file"].get<std::string>()), "QNN context binary bytes");
}

TEST(ExternalCompiler, EnvironmentIsOnlyWhatIsDeclared) {
  test::TempDir dir;
  test::write_model(test::small_model(), dir / "in.onnx");
  test::write_model(test::epcontext_model("QNNExecutionProvider", 1, "embedded"), dir / "prebuilt.onnx");
  std::vector<std::string> command = {
      "/bin/sh", "-c", "test -n \"$WINML_TEST_SDK\" && /bin/cp '" + (dir / "prebuilt.onnx").string() + "' '{output}'"};
  std::vector<std::string> args = {"compile", "-m", (dir / "in.onnx").string(), "-o", (dir / "c.onnx").string(),
                                   "--ep",    "qnn"};
  auto run = [&](std::vector<std::string> extra) {
    auto a = args;
    a.insert(a.end(), extra.begin(), extra.end());
    a.push_back("--");
    a.insert(a.end(), command.begin(), command.end());
    return test::run_cli(a, {}, {{"WINML_TEST_SDK", "/opt/sdk"}});
  };
  EXPECT_EQ(run({}).exit_code, 1);  // set in our environment, but not declared
  auto r = run({"--env", "WINML_TEST_SDK"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(ExternalCompiler, DevicePlaceholderDefaultsToTheEpsDevice) {
  test::TempDir dir;
  test::write_model(test::small_model(), dir / "in.onnx");
  test::write_model(test::epcontext_model("QNNExecutionProvider", 1, "embedded"), dir / "prebuilt.onnx");
  // rules/ep/qnn.toml: default_device = "npu".
  std::vector<std::string> command = {
      "/bin/sh", "-c", "test '{device}' = npu && /bin/cp '" + (dir / "prebuilt.onnx").string() + "' '{output}'"};
  EXPECT_EQ(compile_qnn(dir, command).exit_code, 0);
  EXPECT_EQ(compile_qnn(dir, command, {"--device", "gpu"}).exit_code, 1);
}

struct BadOutput {
  const char* name;
  std::function<std::vector<std::string>(const test::TempDir&)> command;
  std::string message;
};

class BadCompilerOutput : public ::testing::TestWithParam<int> {};

const std::vector<BadOutput>& bad_outputs() {
  auto prebuilt = [](const test::TempDir& dir, const std::string& reference) {
    test::write_model(test::epcontext_model("QNNExecutionProvider", 0, reference), dir / "prebuilt.onnx");
    return dir / "prebuilt.onnx";
  };
  static const std::vector<BadOutput> b = {
      {"exit code",
       [](const test::TempDir&) {
         return std::vector<std::string>{"/bin/sh", "-c", "echo compiler says no >&2; exit 3"};
       },
       "qnn compiler failed with exit code 3"},
      {"no output", [](const test::TempDir&) { return std::vector<std::string>{"/bin/true"}; },
       "exited 0 but did not write {output}"},
      {"not compiled", [](const test::TempDir& dir) { return copy_command(dir / "in.onnx"); },
       "has no EPContext nodes"},
      {"parent reference", [prebuilt](const test::TempDir& dir) { return copy_command(prebuilt(dir, "../ctx.bin")); },
       "EPContext ep_cache_context '../ctx.bin' is refused"},
      {"absolute reference",
       [prebuilt](const test::TempDir& dir) {
         test::write_text(dir / "abs.bin", "blob");
         return copy_command(prebuilt(dir, (dir / "abs.bin").string()));
       },
       "abs.bin' is refused: it must be a relative path"},
      {"missing blob", [prebuilt](const test::TempDir& dir) { return copy_command(prebuilt(dir, "ctx.bin")); },
       "EPContext blob 'ctx.bin' of node 'ctx_0' is missing"},
      {"empty blob",
       [prebuilt](const test::TempDir& dir) {
         test::write_text(dir / "empty.bin", "");
         return copy_command(prebuilt(dir, "ctx.bin"), dir / "empty.bin");
       },
       "EPContext blob 'ctx.bin' of node 'ctx_0' is empty"},
  };
  return b;
}

TEST_P(BadCompilerOutput, IsRefusedAndNothingIsWritten) {
  const BadOutput& b = bad_outputs()[static_cast<std::size_t>(GetParam())];
  test::TempDir dir;
  test::write_model(test::small_model(), dir / "in.onnx");
  fs::create_directories(dir / "out");
  auto before = files_in(dir / "out");
  auto r = compile_qnn(dir, b.command(dir));
  EXPECT_EQ(r.exit_code, 1) << b.name << ": " << r.err;
  EXPECT_NE(r.err.find(b.message), std::string::npos) << b.name << ": " << r.err;
  EXPECT_EQ(files_in(dir / "out"), before) << b.name;  // no model, no blob, no temporary directory
}

INSTANTIATE_TEST_SUITE_P(Outputs, BadCompilerOutput, ::testing::Range(0, 7), [](const auto& info) {
  std::string n = bad_outputs()[static_cast<std::size_t>(info.param)].name;
  for (auto& c : n)
    if (c == ' ') c = '_';
  return n;
});
