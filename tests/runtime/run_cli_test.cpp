// `winml-make run` through the real binary.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <nlohmann/json.hpp>

#include "base/path_text.h"
#include "model/model_io.h"
#include "model/tensor_file.h"
#include "support/cli_runner.h"
#include "support/model_builder.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

fs::path write_model(const test::TempDir& dir, const onnx::ModelProto& proto, const std::string& name = "m.onnx") {
  model::Model m;
  m.proto = proto;
  model::save_model(m, dir / name);
  return dir / name;
}

// y = x * 2 over a [batch, 3] input.
onnx::ModelProto doubling_model() {
  test::GraphBuilder b;
  b.input("x", {"batch", 3});
  b.initializer("two", {}, {2.0f});
  b.node("Mul", {"x", "two"}, {"y"});
  b.output("y", {"batch", 3});
  return test::make_model(b.graph());
}

}  // namespace

TEST(RunCli, SummarizesOutputsAsJson) {
  test::TempDir dir;
  auto model = write_model(dir, doubling_model());
  model::TensorFile x{onnx::TensorProto::FLOAT, {2, 3}, {}};
  std::vector<float> v = {1, -2, 3, 4, 5, -6};
  x.data.resize(v.size() * 4);
  std::memcpy(x.data.data(), v.data(), x.data.size());
  model::write_npy(dir / "x.npy", x);
  auto r = test::run_cli({"run", "-m", model.string(), "--input", "x=" + (dir / "x.npy").string(), "--json",
                          "--output-dir", dir.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  const auto& y = j["outputs"][0];
  EXPECT_EQ(y["name"], "y");
  EXPECT_EQ(y["dtype"], "float32");
  EXPECT_EQ(y["shape"], nlohmann::json({2, 3}));
  EXPECT_EQ(y["min"], -12.0);
  EXPECT_EQ(y["max"], 10.0);
  EXPECT_DOUBLE_EQ(y["mean"].get<double>(), 10.0 / 6);
  EXPECT_EQ(y["nan"], 0);
  auto saved = model::read_npy(dir / "y.npy");
  EXPECT_EQ(saved.shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(saved.as<float>()[5], -12.0f);
}

TEST(RunCli, FillsInputsAndBindsSymbolicDims) {
  test::TempDir dir;
  auto model = write_model(dir, doubling_model());
  auto ones = test::run_cli({"run", "-m", model.string(), "--dim", "batch=4", "--json"});
  ASSERT_EQ(ones.exit_code, 0) << ones.err;
  auto j = nlohmann::json::parse(ones.out);
  EXPECT_EQ(j["outputs"][0]["shape"], nlohmann::json({4, 3}));
  EXPECT_EQ(j["outputs"][0]["min"], 2.0);
  EXPECT_EQ(j["outputs"][0]["max"], 2.0);

  auto r1 = test::run_cli({"run", "-m", model.string(), "--random", "--seed", "5", "--json"});
  auto r2 = test::run_cli({"run", "-m", model.string(), "--random", "--seed", "5", "--json"});
  auto r3 = test::run_cli({"run", "-m", model.string(), "--random", "--seed", "6", "--json"});
  ASSERT_EQ(r1.exit_code, 0) << r1.err;
  auto mean = [](const test::CliResult& r) { return nlohmann::json::parse(r.out)["outputs"][0]["mean"].get<double>(); };
  EXPECT_EQ(mean(r1), mean(r2));
  EXPECT_NE(mean(r1), mean(r3));
}

TEST(RunCli, TextOutputAndTiming) {
  test::TempDir dir;
  auto model = write_model(dir, doubling_model());
  auto r = test::run_cli({"run", "-m", model.string(), "--repeat", "3", "--threads", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("y: float32[1, 3]  min 2  max 2  mean 2  nan 0  inf 0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("over 3 runs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 thread,"), std::string::npos) << r.out;
}

TEST(RunCli, CountsNonFiniteValues) {
  test::TempDir dir;
  test::GraphBuilder b;
  b.input("x", {3});
  b.node("Log", {"x"}, {"y"});
  b.output("y", {3});
  auto model = write_model(dir, test::make_model(b.graph()));
  model::TensorFile x{onnx::TensorProto::FLOAT, {3}, {}};
  std::vector<float> v = {-1, 0, 1};
  x.data.resize(12);
  std::memcpy(x.data.data(), v.data(), 12);
  model::write_npy(dir / "x.npy", x);
  auto r = test::run_cli({"run", "-m", model.string(), "--input", "x=" + (dir / "x.npy").string(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto y = nlohmann::json::parse(r.out)["outputs"][0];
  EXPECT_EQ(y["nan"], 1);
  EXPECT_EQ(y["inf"], 1);
  EXPECT_EQ(y["min"], 0.0);
  EXPECT_EQ(y["max"], 0.0);
}

TEST(RunCli, ErrorsAndExitCodes) {
  test::TempDir dir;
  auto model = write_model(dir, doubling_model());
  auto bad_input = test::run_cli({"run", "-m", model.string(), "--input", "nope=" + (dir / "missing.npy").string()});
  EXPECT_EQ(bad_input.exit_code, 2);
  EXPECT_NE(bad_input.first_error_line().find("missing.npy"), std::string::npos) << bad_input.err;

  auto bad_dim = test::run_cli({"run", "-m", model.string(), "--dim", "batch"});
  EXPECT_EQ(bad_dim.exit_code, 2);
  EXPECT_NE(bad_dim.err.find("NAME=VALUE"), std::string::npos) << bad_dim.err;

  test::GraphBuilder b;
  b.input("x", {3});
  b.node("Frobnicate", {"x"}, {"y"}, "frob_1");
  b.output("y", {3});
  auto unsupported = write_model(dir, test::make_model(b.graph()), "u.onnx");
  auto r = test::run_cli({"run", "-m", unsupported.string()});
  EXPECT_EQ(r.exit_code, 1) << "valid model, unsupported op: a build failure, not an input error";
  EXPECT_NE(r.first_error_line().find("u.onnx"), std::string::npos) << r.err;
  EXPECT_NE(r.first_error_line().find("node 'frob_1' (Frobnicate)"), std::string::npos) << r.err;
}

TEST(RunCli, ProfilesTimePerOpType) {
  test::TempDir dir;
  auto model = write_model(dir, doubling_model());
  auto r = test::run_cli({"run", "-m", model.string(), "--repeat", "2", "--profile", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("profile_ms_per_run")) << r.out;
  EXPECT_EQ(j["profile_ms_per_run"]["Mul"]["nodes"], 1);
  EXPECT_GE(j["profile_ms_per_run"]["Mul"]["ms"].get<double>(), 0.0);
  EXPECT_EQ(j["repeat"], 2);
  EXPECT_GT(j["median_ms"].get<double>(), 0.0);
}

// `run` folds a Relu into the Conv before it: the profile names the pair.
TEST(RunCli, ProfileNamesAReluFoldedIntoItsConv) {
  test::TempDir dir;
  test::GraphBuilder b;
  b.input("x", {1, 8, 16, 16});
  b.initializer("w", {8, 8, 3, 3}, test::random_floats(8 * 8 * 9, 5));
  auto& conv = b.node("Conv", {"x", "w"}, {"c"}, "conv");
  test::set_attr(conv, "pads", std::vector<std::int64_t>{1, 1, 1, 1});
  b.node("Relu", {"c"}, {"y"}, "relu");
  b.output("y", {1, 8, 16, 16});
  auto model = write_model(dir, test::make_model(b.graph()), "conv_relu.onnx");
  auto r = test::run_cli({"run", "-m", model.string(), "--repeat", "2", "--profile", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["profile_ms_per_run"]["Conv+Relu"]["nodes"], 1) << r.out;
  EXPECT_FALSE(j["profile_ms_per_run"].contains("Relu")) << r.out;
  EXPECT_EQ(j["profile_slowest_nodes"][0]["op_type"], "Conv+Relu") << r.out;
  EXPECT_GE(j["outputs"][0]["min"].get<double>(), 0.0) << "clamped";
}

TEST(RunCli, ProfileListsTheSlowestNodesByName) {
  test::TempDir dir;
  test::GraphBuilder b;
  // The MatMul's 134M multiply-adds (32 x 4096 x 1024) against 128k and 32k
  // elements for the cheap nodes: it stays the slowest when a loaded machine
  // preempts a cheap node for a time slice (a square 512 MatMul did not: its
  // Neg on 262k elements took 3 ms in such a run).
  b.input("x", {32, 4096});
  b.initializer("w", {4096, 1024}, std::vector<float>(4096 * 1024, 0.5f));
  b.node("Relu", {"x"}, {"r"}, "cheap_relu");
  b.node("MatMul", {"r", "w"}, {"m"}, "big_matmul");
  b.node("Neg", {"m"}, {"y"}, "cheap_neg");
  b.output("y", {32, 1024});
  auto model = write_model(dir, test::make_model(b.graph()), "three.onnx");
  auto r = test::run_cli({"run", "-m", model.string(), "--repeat", "5", "--profile", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto nodes = nlohmann::json::parse(r.out)["profile_slowest_nodes"];
  ASSERT_EQ(nodes.size(), 3u) << r.out;
  EXPECT_EQ(nodes[0]["node"], "big_matmul");
  EXPECT_EQ(nodes[0]["op_type"], "MatMul");
  std::set<std::string> names;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    names.insert(nodes[i]["node"].get<std::string>());
    if (i > 0) {
      EXPECT_LE(nodes[i]["ms"].get<double>(), nodes[i - 1]["ms"].get<double>()) << "slowest first";
    }
  }
  EXPECT_EQ(names, (std::set<std::string>{"big_matmul", "cheap_relu", "cheap_neg"}));

  auto text = test::run_cli({"run", "-m", model.string(), "--repeat", "2", "--profile"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("slowest nodes:"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("big_matmul"), std::string::npos) << text.out;
}

TEST(RunCli, RunsInOnnxRuntimeAsAnApplicationWould) {
  test::TempDir dir;
  auto model = write_model(dir, doubling_model());
  auto ort = test::run_cli({"run", "-m", model.string(), "--runtime", "ort", "--dim", "batch=4", "--json"});
  ASSERT_EQ(ort.exit_code, 0) << ort.err;
  auto j = nlohmann::json::parse(ort.out);
  EXPECT_EQ(j["runtime"], "onnxruntime 1.29.0");
  EXPECT_EQ(j["execution_provider"], "CPUExecutionProvider");
  EXPECT_EQ(j["outputs"][0]["shape"], nlohmann::json({4, 3}));
  EXPECT_EQ(j["outputs"][0]["min"], 2.0);
  EXPECT_EQ(j["outputs"][0]["max"], 2.0);
  // The same seeded inputs as winml-make's runtime: the same outputs (x * 2 is exact).
  auto in_winml = test::run_cli({"run", "-m", model.string(), "--random", "--seed", "5", "--json", "--output-dir",
                                 (dir / "winml").string()});
  auto in_ort = test::run_cli({"run", "-m", model.string(), "--random", "--seed", "5", "--json", "--runtime", "ort",
                               "--ep", "cpu", "--output-dir", (dir / "ort").string()});
  ASSERT_EQ(in_ort.exit_code, 0) << in_ort.err;
  EXPECT_EQ(model::read_npy(dir / "winml" / "y.npy").data, model::read_npy(dir / "ort" / "y.npy").data);
  // Another ORT library.
  auto v130 = test::run_cli(
      {"run", "-m", model.string(), "--runtime", "ort", "--ort-library", WINML_ORT_LIBRARY_1_30, "--json"});
  ASSERT_EQ(v130.exit_code, 0) << v130.err;
  EXPECT_EQ(nlohmann::json::parse(v130.out)["runtime"], "onnxruntime 1.30.0");
}

TEST(RunCli, OnnxRuntimeOptionsAreCheckedBeforeRunning) {
  test::TempDir dir;
  auto model = write_model(dir, doubling_model());
  auto run = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"run", "-m", model.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return test::run_cli(args);
  };
  auto r = run({"--ep", "cpu"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("add --runtime ort"), std::string::npos) << r.err;
  r = run({"--runtime", "ort", "--repeat", "2", "--profile"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not with --runtime ort"), std::string::npos) << r.err;
  r = run({"--runtime", "ort", "--ort-library", (dir / "missing.so").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(to_utf8(dir / "missing.so") + ": no such file"), std::string::npos) << r.err;
  r = run({"--runtime", "ort", "--ep", "qnn"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("has no execution provider QNNExecutionProvider"), std::string::npos) << r.err;
  r = run({"--runtime", "ort", "--device", "npu"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("give --ep"), std::string::npos) << r.err;
}

// ONNX Runtime hands an EPContext node only to the EP its `source` names;
// without that EP the session is refused. The error names the --ep to pass,
// not only ORT's words.
TEST(RunCli, AModelCompiledForAnotherEpNamesTheEpToPass) {
  test::TempDir dir;
  auto model = write_model(dir, doubling_model());
  const std::string compiled = (dir / "out" / "compiled.onnx").string();
  auto c = test::run_cli({"compile", "-m", model.string(), "-o", compiled, "--ep", "ref", "--dim", "batch=2"});
  ASSERT_EQ(c.exit_code, 0) << c.out << c.err;
  for (const std::vector<std::string>& ep : {std::vector<std::string>{}, {"--ep", "cpu"}}) {
    std::vector<std::string> args = {"run", "-m", compiled, "--runtime", "ort"};
    args.insert(args.end(), ep.begin(), ep.end());
    auto r = test::run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(compiled + ": it was compiled for WinmlMakeRefExecutionProvider (the `source` of its "
                                    "EPContext nodes)"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("not on CPUExecutionProvider: pass --ep ref"), std::string::npos) << r.err;
  }
  // As told: it runs.
  auto ok = test::run_cli({"run", "-m", compiled, "--runtime", "ort", "--ep", "ref", "--json"});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(nlohmann::json::parse(ok.out)["execution_provider"], "WinmlMakeRefExecutionProvider");
}
