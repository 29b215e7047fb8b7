// Every exported test model (tests/fixtures/export_models.py) computes
// outputs that depend on its input, in ONNX Runtime: a model that gives every
// input the same answer (a zero classification head, or BatchNorm's default
// statistics collapsing a random network) would let every comparison made on
// it pass whatever the code under test computes.
#include <gtest/gtest.h>

#include "base/path_text.h"
#include "model/model_io.h"
#include "quant/calibration/samples.h"
#include "support/ort_oracle.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

TEST(ExportedModels, EveryOutputVariesWithTheInput) {
  int models = 0;
  for (const auto& entry : fs::directory_iterator(test::test_models_dir())) {
    if (entry.path().extension() != ".onnx") continue;
    ++models;
    // Two uniform [-1, 1) samples, as calibration generates them.
    const model::Model m = model::load_model(entry.path());
    const auto samples = quant::generated_samples(2, quant::model_inputs(m.proto, {}, true), {"uniform", -1.0, 1.0, 1});
    const auto a = test::run_in_ort(entry.path(), samples->sample(0));
    const auto b = test::run_in_ort(entry.path(), samples->sample(1));
    const std::string name = to_utf8(entry.path().stem());
    ASSERT_TRUE(a.ok && b.ok) << name << ": " << a.error << b.error;
    EXPECT_EQ(test::outputs_that_do_not_vary(a.outputs, b.outputs), "") << name << ": the same for two inputs";
  }
  EXPECT_GE(models, 12) << "the exported models are missing: run ctest -R fixture.exported_models";
}
