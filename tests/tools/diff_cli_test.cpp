// `winml-make diff A B` through the real binary, on generated pairs: the
// same model, then one change each (an initializer in external data, a
// node, an attribute, an input shape, metadata, an EPContext sidecar), and
// a model that cannot be read.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "model/model_io.h"
#include "support/cli_runner.h"
#include "support/model_builder.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

// linear_model(16, 8) with its weights in external data, edited by `edit`.
fs::path save_linear(const fs::path& dir, const std::string& name,
                     const std::function<void(onnx::ModelProto&)>& edit = {}) {
  model::Model m;
  m.proto = test::linear_model(16, 8);
  if (edit) edit(m.proto);
  fs::create_directories(dir);
  m.path = dir / name;
  model::SaveOptions opts;
  opts.external = model::ExternalData::kAlways;
  model::save_model(m, m.path, opts);
  return m.path;
}

onnx::TensorProto& initializer(onnx::ModelProto& m, const std::string& name) {
  for (auto& t : *m.mutable_graph()->mutable_initializer())
    if (t.name() == name) return t;
  throw std::runtime_error("no initializer " + name);
}

onnx::NodeProto& node(onnx::ModelProto& m, const std::string& name) {
  for (auto& n : *m.mutable_graph()->mutable_node())
    if (n.name() == name) return n;
  throw std::runtime_error("no node " + name);
}

nlohmann::json diff_json(const fs::path& a, const fs::path& b, int expected_exit) {
  const test::CliResult r = test::run_cli({"diff", a.string(), b.string(), "--json"});
  EXPECT_EQ(r.exit_code, expected_exit) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out;
  return j.is_discarded() ? nlohmann::json::object() : j;
}

}  // namespace

TEST(DiffCli, TheSameModelSavedTwiceIsTheSame) {
  test::TempDir dir;
  const auto a = save_linear(dir / "a", "m.onnx"), b = save_linear(dir / "b", "m.onnx");
  const test::CliResult r = test::run_cli({"diff", a.string(), b.string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("are the same"), std::string::npos) << r.out;
  EXPECT_EQ(diff_json(a, b, 0)["same"], true);
}

TEST(DiffCli, AChangedInitializerInExternalDataNamesItsCountAndLargestDifference) {
  test::TempDir dir;
  const auto a = save_linear(dir / "a", "m.onnx");
  const auto b = save_linear(dir / "b", "m.onnx", [](onnx::ModelProto& m) {
    auto& w = initializer(m, "W");
    auto* f = reinterpret_cast<float*>(w.mutable_raw_data()->data());
    f[3] += 0.5f;
    f[100] -= 0.25f;
  });
  ASSERT_TRUE(fs::exists(dir / "b" / "m.onnx.data"));
  const auto j = diff_json(a, b, 1);
  ASSERT_EQ(j["differences"].size(), 1u) << j.dump(2);
  EXPECT_EQ(j["differences"][0]["kind"], "initializer");
  EXPECT_EQ(j["differences"][0]["name"], "W");
  EXPECT_EQ(j["differences"][0]["detail"], "2 of 128 elements differ, max |A-B| 0.5");
}

TEST(DiffCli, AChangedNodeAttributeAndInputShapeAreEachNamed) {
  test::TempDir dir;
  const auto a = save_linear(dir / "a", "m.onnx");
  const auto op = save_linear(dir / "op", "m.onnx", [](onnx::ModelProto& m) { node(m, "relu").set_op_type("Sigmoid"); });
  auto j = diff_json(a, op, 1);
  ASSERT_EQ(j["differences"].size(), 1u) << j.dump(2);
  EXPECT_EQ(j["differences"][0]["kind"], "node");
  EXPECT_EQ(j["differences"][0]["name"], "'relu'");
  EXPECT_EQ(j["differences"][0]["detail"], "Relu vs Sigmoid");

  auto leaky = [](float alpha) {
    return [alpha](onnx::ModelProto& m) {
      node(m, "relu").set_op_type("LeakyRelu");
      test::set_attr(node(m, "relu"), "alpha", alpha);
    };
  };
  const auto quarter = save_linear(dir / "quarter", "m.onnx", leaky(0.25f));
  const auto half = save_linear(dir / "half", "m.onnx", leaky(0.5f));
  j = diff_json(quarter, half, 1);
  ASSERT_EQ(j["differences"].size(), 1u) << j.dump(2);
  EXPECT_EQ(j["differences"][0]["kind"], "attribute");
  EXPECT_EQ(j["differences"][0]["name"], "'relu'.alpha");
  EXPECT_EQ(j["differences"][0]["detail"], "0.25 vs 0.5");

  const auto shape = save_linear(dir / "shape", "m.onnx", [](onnx::ModelProto& m) {
    m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_value(4);
  });
  j = diff_json(a, shape, 1);
  ASSERT_EQ(j["differences"].size(), 1u) << j.dump(2);
  EXPECT_EQ(j["differences"][0]["kind"], "input");
  EXPECT_EQ(j["differences"][0]["name"], "x");
  EXPECT_EQ(j["differences"][0]["detail"], "float32['batch',16] vs float32[4,16]");

  const auto meta = save_linear(dir / "meta", "m.onnx", [](onnx::ModelProto& m) {
    auto* p = m.add_metadata_props();
    p->set_key("release");
    p->set_value("2");
  });
  const test::CliResult r = test::run_cli({"diff", a.string(), meta.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "metadata metadata_props release: only in B (2)\n");
}

TEST(DiffCli, AnEpContextSidecarIsReadWhereItLies) {
  test::TempDir dir;
  for (const char* side : {"a", "b"}) {
    fs::create_directories(dir / side);
    test::write_text(dir / side / "c.onnx", model::serialize_deterministic(test::epcontext_model("ref", 0, "c_ref.bin")));
  }
  test::write_text(dir / "a" / "c_ref.bin", "0123456789");
  test::write_text(dir / "b" / "c_ref.bin", "0123456789");
  diff_json(dir / "a" / "c.onnx", dir / "b" / "c.onnx", 0);
  test::write_text(dir / "b" / "c_ref.bin", "01234x6789");
  const auto j = diff_json(dir / "a" / "c.onnx", dir / "b" / "c.onnx", 1);
  ASSERT_EQ(j["differences"].size(), 1u) << j.dump(2);
  EXPECT_EQ(j["differences"][0]["kind"], "blob");
  EXPECT_EQ(j["differences"][0]["detail"], "10 vs 10 bytes, first difference at byte 5");
}

TEST(DiffCli, AModelThatCannotBeReadIsAnInputError) {
  test::TempDir dir;
  const auto a = save_linear(dir / "a", "m.onnx");
  const test::CliResult r = test::run_cli({"diff", a.string(), (dir / "missing.onnx").string()});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find("missing.onnx"), std::string::npos) << r.err;
}
