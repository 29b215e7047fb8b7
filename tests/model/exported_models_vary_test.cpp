// Every exported test model (tests/fixtures/export_models.py) computes
// outputs that depend on its input, in ONNX Runtime: a model that gives every
// input the same answer (a zero classification head, or BatchNorm's default
// statistics collapsing a random network) would let every comparison made on
// it pass whatever the code under test computes.
#include <gtest/gtest.h>

#include <set>

#include "model/model_io.h"
#include "support/ort_oracle.h"
#include "support/temp_dir.h"
#include "base/path_text.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

// Seeded uniform [-1, 1) values for every graph input (open dimensions as 1).
std::map<std::string, model::TensorFile> random_inputs(const model::Model& m, std::uint32_t seed) {
  std::set<std::string> weights;
  for (const auto& t : m.proto.graph().initializer()) weights.insert(t.name());
  std::map<std::string, model::TensorFile> feeds;
  for (const auto& in : m.proto.graph().input()) {
    if (weights.count(in.name())) continue;
    std::vector<std::int64_t> shape;
    for (const auto& d : in.type().tensor_type().shape().dim()) shape.push_back(d.has_dim_value() ? d.dim_value() : 1);
    feeds[in.name()] = test::random_tensor(shape, seed);
  }
  return feeds;
}

}  // namespace

TEST(ExportedModels, EveryOutputVariesWithTheInput) {
  int models = 0;
  for (const auto& entry : fs::directory_iterator(test::test_models_dir())) {
    if (entry.path().extension() != ".onnx") continue;
    ++models;
    const std::string name = to_utf8(entry.path().stem());
    const model::Model m = model::load_model(entry.path());
    const auto a = test::run_in_ort(entry.path(), random_inputs(m, 1));
    const auto b = test::run_in_ort(entry.path(), random_inputs(m, 2));
    ASSERT_TRUE(a.ok && b.ok) << name << ": " << a.error << b.error;
    const auto constant = test::outputs_that_do_not_vary(a.outputs, b.outputs);
    std::string list;
    for (const auto& c : constant) list += " " + c;
    EXPECT_TRUE(constant.empty()) << name << ": the same for two inputs:" << list;
  }
  EXPECT_GE(models, 12) << "the exported models are missing: run ctest -R fixture.exported_models";
}
