// [export] weights naming torchvision's pretrained weights, through the real
// CLI, where no PyTorch runs: the errors before any stage runs (an unknown
// name, a checkpoint that is not in torch's cache) and where the checkpoint
// is looked for. tests/export/pretrained_weights_test.cpp exports with them.
#include <gtest/gtest.h>

#include "support/project.h"

using namespace winml;
using test::Project;
namespace fs = std::filesystem;

namespace {

constexpr const char* kFile = "squeezenet1_1-b8a52dc0.pth";
constexpr const char* kUrl = "https://download.pytorch.org/models/squeezenet1_1-b8a52dc0.pth";

void write_config(Project& p, const std::string& weights) {
  p.write_config("[export]\ntorchvision = \"squeezenet1_1\"\nweights = \"" + weights +
                 "\"\n\n[optimize]\nenabled = false\n\n[quantize]\nenabled = false\n\n[compile]\nenabled = false\n");
}

}  // namespace

TEST(PretrainedWeightsCli, AMissingCheckpointStopsTheBuildNamingTheFileItsUrlAndWhereToPutIt) {
  Project p;
  test::TempDir torch_home;
  write_config(p, "DEFAULT");
  const std::map<std::string, std::string> env = {{"TORCH_HOME", torch_home.path().string()}};
  const fs::path checkpoint = torch_home / "hub" / "checkpoints" / kFile;
  auto r = p.run({}, env);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find(checkpoint.string() + ": no such file: the checkpoint of torchvision's pretrained weights "
                                             "IMAGENET1K_V1 for squeezenet1_1 ([export] weights = \"DEFAULT\" at "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("winml.toml:3:1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(std::string("download ") + kUrl + " into " + checkpoint.parent_path().string() +
                       "/, or set TORCH_HOME to a folder whose hub/checkpoints/ holds it"),
            std::string::npos)
      << r.err;
  // Before any stage: nothing of the model written.
  EXPECT_FALSE(fs::exists(p.out("squeezenet1_1")));
  // Once the file is there, the plan is made again and export would run.
  fs::create_directories(checkpoint.parent_path());
  test::write_text(checkpoint, "stands for a checkpoint");
  auto dry = p.run({"-n"}, env);
  EXPECT_EQ(dry.exit_code, 0) << dry.out << dry.err;
  EXPECT_NE(dry.out.find("squeezenet1_1/export"), std::string::npos) << dry.out;
  EXPECT_EQ(dry.err.find("no such file"), std::string::npos) << dry.err;
  // And when it goes, the plan is made again too.
  fs::remove(checkpoint);
  EXPECT_EQ(p.run({"-n"}, env).exit_code, 2);
}

// As torch.hub: $TORCH_HOME, else $XDG_CACHE_HOME/torch, else ~/.cache/torch.
TEST(PretrainedWeightsCli, TheCheckpointIsLookedForWhereTorchLooks) {
  Project p;
  test::TempDir home;
  write_config(p, "IMAGENET1K_V1");
  auto where = [&](const std::map<std::string, std::string>& env) {
    auto r = p.run({"-n"}, env);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    return r.err.substr(0, r.err.find(": no such file"));
  };
  const std::string suffix = std::string("/hub/checkpoints/") + kFile;
  EXPECT_EQ(where({{"TORCH_HOME", (home / "th").string()}, {"XDG_CACHE_HOME", (home / "xdg").string()}}),
            "winml-make: error: " + (home / "th").string() + suffix);
  EXPECT_EQ(where({{"TORCH_HOME", ""}, {"XDG_CACHE_HOME", (home / "xdg").string()}}),
            "winml-make: error: " + (home / "xdg").string() + "/torch" + suffix);
  EXPECT_EQ(where({{"TORCH_HOME", ""}, {"XDG_CACHE_HOME", ""}, {"HOME", home.path().string()}}),
            "winml-make: error: " + home.path().string() + "/.cache/torch" + suffix);
  EXPECT_EQ(where({{"TORCH_HOME", "~/th"}, {"HOME", home.path().string()}}),
            "winml-make: error: " + (home / "th").string() + suffix);
}

TEST(PretrainedWeightsCli, AnUnknownNameIsAConfigErrorNamingTheLineTheModelAndTheValidNames) {
  Project p;
  write_config(p, "IMAGENET1K_V2");
  auto r = p.run({});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("winml.toml:3:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'export.weights' is 'IMAGENET1K_V2': torchvision's squeezenet1_1 has no such pretrained "
                       "weights (rules/export/torchvision_weights.toml); expected one of: DEFAULT, IMAGENET1K_V1, "
                       "or a state_dict file's path (did you mean 'IMAGENET1K_V1'?)"),
            std::string::npos)
      << r.err;
  // A model the data has no weights for.
  p.write_config("[export]\ntorchvision = \"squeeznet1_1\"\nweights = \"DEFAULT\"\n");
  r = p.run({"status"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("winml.toml:3:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("knows no pretrained weights for torchvision model 'squeeznet1_1' (did you mean "
                       "'squeezenet1_1'?)"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(p.out("squeeznet1_1")));
}
