// The torchvision recipe, run for real with Debian's PyTorch.
#include <gtest/gtest.h>

#include <unistd.h>

#include <map>

#include "base/error.h"
#include "export/export_plan.h"
#include "model/model_io.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {
// The variables a stage would be given: here, the whole process environment.
std::map<std::string, std::string> process_env() {
  std::map<std::string, std::string> out;
  for (char** e = environ; *e; ++e) {
    std::string kv(*e);
    auto eq = kv.find('=');
    if (eq != std::string::npos) out[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return out;
}
}  // namespace

TEST(TorchvisionRecipe, ExportsARealModel) {
  test::TempDir dir;
  config::ExportConfig cfg;
  cfg.torchvision = "mobilenet_v3_small";
  cfg.opset = 13;
  auto plan = exporting::plan_export(cfg, dir.path(), "winml.toml", process_env());
  EXPECT_FALSE(plan.recipe_text.empty());
  exporting::run_export(plan, dir.path(), dir / "build" / "export.onnx", dir / "build" / "export.log");
  model::Model m = model::load_model(dir / "build" / "export.onnx");
  EXPECT_EQ(m.opset(), 13);
  EXPECT_EQ(m.proto.graph().input(0).name(), "input");
  EXPECT_GT(m.proto.graph().node_size(), 50);
}

TEST(TorchvisionRecipe, UnknownModelNamesTheChoices) {
  test::TempDir dir;
  config::ExportConfig cfg;
  cfg.torchvision = "resnet_fifty";
  auto plan = exporting::plan_export(cfg, dir.path(), "winml.toml", process_env());
  try {
    exporting::run_export(plan, dir.path(), dir / "build" / "export.onnx", dir / "build" / "export.log");
    FAIL();
  } catch (const BuildError& e) {
    EXPECT_NE(std::string(e.what()).find("torchvision has no model 'resnet_fifty'"), std::string::npos) << e.what();
  }
}
