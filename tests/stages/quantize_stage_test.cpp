// The quantize stage inside real builds: calibration data files are inputs
// of its key, and the report lands in the manifest.
#include <gtest/gtest.h>

#include "support/project.h"
#include "model/tensor_file.h"
#include "support/ort_oracle.h"

using namespace winml;
using test::Project;
namespace fs = std::filesystem;

namespace {

// Two calibration samples for linear_model's input x [batch, 8] (batch = 2).
void write_samples(Project& p, std::uint32_t seed) {
  for (int i = 0; i < 2; ++i) {
    fs::create_directories(p.root() / "calib" / ("s" + std::to_string(i)));
    model::write_npy(p.root() / "calib" / ("s" + std::to_string(i)) / "x.npy",
                     test::random_tensor({2, 8}, seed + static_cast<std::uint32_t>(i)));
  }
}

nlohmann::json stage_of(const Project& p, const std::string& name) {
  auto manifest = nlohmann::json::parse(test::read_text(p.out("net", "build_manifest.json")));
  for (const auto& s : manifest["stages"])
    if (s["name"] == name) return s;
  return nullptr;
}

}  // namespace

TEST(QuantizeStage, CalibrationFilesAreInputsOfItsKey) {
  Project p;
  p.write_model("net.onnx", 1);
  write_samples(p, 10);
  p.write_config(
      "[model]\nsource = \"net.onnx\"\ndims = { batch = 2 }\n[quantize]\ncalibration_data = \"calib\"\n"
      "samples = 2\n");
  p.build();
  auto q = stage_of(p, "quantize");
  EXPECT_EQ(q["samples"], 2);
  EXPECT_GT(q["nodes_quantized"].get<int>(), 0);
  EXPECT_NE(q["inputs"].dump().find("calib/s0/x.npy"), std::string::npos) << q["inputs"].dump();

  // Touching the samples changes nothing; new values rerun quantize, naming the file.
  fs::last_write_time(p.root() / "calib" / "s1" / "x.npy", fs::file_time_type::clock::now());
  EXPECT_TRUE(test::stages_with(p.build(), "net", "completed").empty());
  model::write_npy(p.root() / "calib" / "s1" / "x.npy", test::random_tensor({2, 8}, 99));
  auto r = p.build({"--explain"});
  auto s = test::statuses(r);
  EXPECT_EQ(s["net/optimize"], "up-to-date");
  EXPECT_EQ(s["net/quantize"], "completed");
  EXPECT_NE(r["models"][0]["stages"][3]["reason"].get<std::string>().find("calib/s1/x.npy"), std::string::npos)
      << r["models"][0]["stages"][3].dump();
}

// The manifest without what differs between runs: timings, and whether a
// stage ran or was restored.
nlohmann::json without_run_details(nlohmann::json m) {
  m.erase("timestamp");
  m.erase("elapsed_seconds");
  for (auto& s : m["stages"]) {
    s.erase("elapsed_seconds");
    s.erase("status");
  }
  return m;
}

TEST(QuantizeStage, TwoClonesSharingOneCacheGetTheSameArtifactsAndManifests) {
  Project a;
  a.write_model("net.onnx", 1);
  write_samples(a, 10);
  a.write_config(
      "[model]\nsource = \"net.onnx\"\ndims = { batch = 2 }\n[quantize]\ncalibration_data = \"calib\"\n"
      "samples = 2\n[compile]\nep = \"ref\"\n");
  a.build();
  test::TempDir elsewhere;
  a.clone_to(elsewhere / "deeper" / "clone");
  auto b =
      test::run_cli({"--json"}, elsewhere / "deeper" / "clone", {{"WINML_MAKE_CACHE_DIR", a.cache_dir().string()}});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  auto report = nlohmann::json::parse(b.out);
  EXPECT_EQ(test::stages_with(report, "net", "cached").size(), 6u) << b.out;
  const fs::path b_out = elsewhere / "deeper" / "clone" / "build" / "net";
  EXPECT_EQ(test::artifacts(a.root() / "build"), test::artifacts(elsewhere / "deeper" / "clone" / "build"));
  const std::string ma = test::read_text(a.out("net", "build_manifest.json"));
  const std::string mb = test::read_text(b_out / "build_manifest.json");
  EXPECT_EQ(without_run_details(nlohmann::json::parse(ma)), without_run_details(nlohmann::json::parse(mb)));
  // Nothing a key or the cache carries names a machine path.
  for (const auto& text : {ma, mb, test::read_text(b_out / "winml_build_config.json")}) {
    EXPECT_EQ(text.find(a.root().string()), std::string::npos) << text;
    EXPECT_EQ(text.find(elsewhere.path().string()), std::string::npos) << text;
  }
  EXPECT_EQ(stage_of(a, "quantize")["calibration_data"], "calib");
}
