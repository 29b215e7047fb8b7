// [export] weights naming torchvision's pretrained weights, exported for
// real with Debian's PyTorch. There is no network here: the checkpoint is
// made by the test (a state_dict of squeezenet1_1, the smallest model the
// recipe exports, seeded) and put where torch keeps what it downloads,
// $TORCH_HOME/hub/checkpoints/<the file rules/export/torchvision_weights.toml
// names>. And the shipped data is what its generator prints.
#include <gtest/gtest.h>

#include "base/path_text.h"
#include "config/torchvision_weights.h"
#include "model/model_io.h"
#include "model/tensor_file.h"
#include "support/cli_runner.h"
#include "support/project.h"

using namespace winml;
using test::Project;
namespace fs = std::filesystem;

namespace {

constexpr const char* kPython = "/usr/bin/python3";

// Two state_dicts of squeezenet1_1 (seeds 1 and 2) as a.pth and b.pth in
// `dir`, the first Conv's weight of each as a.npy and b.npy.
constexpr const char* kMakeCheckpoints = R"(import sys, numpy, torch, torchvision
for name, seed in (("a", 1), ("b", 2)):
    torch.manual_seed(seed)
    state = torchvision.models.squeezenet1_1().state_dict()
    torch.save(state, f"{sys.argv[1]}/{name}.pth")
    numpy.save(f"{sys.argv[1]}/{name}.npy", state["features.0.weight"].numpy())
)";

bool has_torchvision(std::string& why) {
  auto r = test::run_program({kPython, "-c", "import torchvision"});
  why = "no python3-torchvision here: " + r.err;
  return r.exit_code == 0;
}

// The exported model's first Conv weight equals the tensor saved in `npy`.
void expect_first_conv_weight(const fs::path& model_file, const fs::path& npy) {
  const model::Model m = model::load_model(model_file);
  const model::TensorFile expected = model::read_npy(npy);
  for (const auto& init : m.proto.graph().initializer()) {
    if (init.name() != "features.0.weight") continue;
    const model::TensorFile actual = model::from_proto(init);
    EXPECT_EQ(actual.shape, expected.shape);
    EXPECT_TRUE(actual.data == expected.data) << "the exported weights are not the checkpoint's";
    return;
  }
  ADD_FAILURE() << "no initializer features.0.weight in " << model_file;
}

std::string stage_field(const nlohmann::json& report, const std::string& stage, const std::string& field) {
  for (const auto& s : report["models"][0]["stages"])
    if (s["name"] == stage) return s.value(field, "");
  return "";
}

}  // namespace

TEST(PretrainedWeights, LoadedFromTorchsCacheTheirCheckpointInTheKey) {
  std::string why;
  if (!has_torchvision(why)) GTEST_SKIP() << why;
  Project p;
  test::TempDir made, torch_home;
  auto r = test::run_program({kPython, "-c", kMakeCheckpoints, made.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto weights = config::find_pretrained_weights("squeezenet1_1", "DEFAULT");
  ASSERT_TRUE(weights);
  const fs::path checkpoint = torch_home / "hub" / "checkpoints" / weights->file;
  fs::create_directories(checkpoint.parent_path());
  fs::copy_file(made / "a.pth", checkpoint);
  const std::map<std::string, std::string> env = {{"TORCH_HOME", torch_home.path().string()}};
  auto config = [&](const std::string& value) {
    p.write_config("[export]\ntorchvision = \"squeezenet1_1\"\nweights = \"" + value +
                   "\"\nopset = 13\n\n[optimize]\nenabled = false\n\n[quantize]\nenabled = false\n\n"
                   "[compile]\nenabled = false\n");
  };
  const fs::path exported = p.out("squeezenet1_1", "export.onnx");

  // "DEFAULT": torchvision's default weights for the model, from the checkpoint.
  config("DEFAULT");
  auto report = p.build({}, 0, env);
  ASSERT_EQ(test::statuses(report)["squeezenet1_1/export"], "completed") << report.dump();
  expect_first_conv_weight(exported, made / "a.npy");
  const auto manifest = nlohmann::json::parse(test::read_text(p.out("squeezenet1_1", "build_manifest.json")));
  EXPECT_NE(manifest.dump().find("\"pretrained_weights\":\"" + weights->name + "\""), std::string::npos)
      << manifest.dump();
  EXPECT_EQ(test::statuses(p.build({}, 0, env))["squeezenet1_1/export"], "up-to-date");

  // Other bytes in the checkpoint: export runs again, and loads them.
  fs::copy_file(made / "b.pth", checkpoint, fs::copy_options::overwrite_existing);
  report = p.build({"--explain"}, 0, env);
  EXPECT_EQ(test::statuses(report)["squeezenet1_1/export"], "completed") << report.dump();
  EXPECT_NE(stage_field(report, "export", "reason").find(weights->file), std::string::npos) << report.dump();
  expect_first_conv_weight(exported, made / "b.npy");

  // The enum member DEFAULT stands for: the same weights, so the same model (package stays up to date).
  const std::string before = test::read_text(exported);
  config(weights->name);
  report = p.build({}, 0, env);
  EXPECT_EQ(test::statuses(report)["squeezenet1_1/export"], "completed") << report.dump();
  EXPECT_EQ(test::statuses(report)["squeezenet1_1/package"], "up-to-date") << report.dump();
  EXPECT_TRUE(test::read_text(exported) == before);
}

TEST(PretrainedWeights, TheShippedDataIsWhatItsGeneratorPrints) {
  std::string why;
  if (!has_torchvision(why)) GTEST_SKIP() << why;
  const fs::path script = test::source_dir() / "scripts" / "list-torchvision-weights.py";
  auto r = test::run_program({kPython, to_utf8(script)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out == test::read_text(test::source_dir() / "rules" / "export" / "torchvision_weights.toml"))
      << "rules/export/torchvision_weights.toml is stale: /usr/bin/python3 scripts/list-torchvision-weights.py > "
         "rules/export/torchvision_weights.toml";
}
