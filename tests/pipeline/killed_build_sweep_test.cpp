// What a killed build leaves in its output directory, removed by the next
// build through the DiskInterface (fake disk: none of these paths exist on
// the real file system).
#include "pipeline/killed_build_sweep.h"

#include <gtest/gtest.h>

#include "base/atomic_file.h"
#include "pipeline/layout.h"
#include "support/fake_disk.h"

using namespace winml;

namespace {
const std::string kTemp = std::string(kTempMarker) + "1";  // any pid: under the lock, every one is dead
const std::string kOut = "/fake/project/build";
const std::string kState = kOut + "/" + pipeline::kStateDir;
}  // namespace

TEST(KilledBuildSweep, RemovesTemporariesAndStagingInsideTheOutputDirectoryOnly) {
  const std::vector<std::string> kept = {kOut + "/m/optimized.onnx", kState + "/state",
                                         kState + "/logs/m.optimize.log",
                                         "/fake/project/model.onnx" + kTemp,  // outside the output directory
                                         kOut + "/m/deeper/x.onnx" + kTemp};  // deeper than any output
  const std::vector<std::string> gone = {kOut + "/m/optimized.onnx" + kTemp, kOut + "/top.json" + kTemp,
                                         kState + "/state" + kTemp, kState + "/logs/m.optimize.log" + kTemp,
                                         kState + "/staging/m/optimize/optimized.onnx",
                                         kOut + "/m/quantized.onnx.data" + kTemp + "/part"};  // a temporary folder
  test::FakeDisk disk;
  for (const auto& f : kept) disk.put(f, "kept");
  for (const auto& f : gone) disk.put(f, "left by the killed build");

  pipeline::sweep_killed_build(disk, kOut);

  for (const auto& f : kept) EXPECT_TRUE(disk.stat(f).exists) << f;
  for (const auto& f : gone) EXPECT_FALSE(disk.stat(f).exists) << f;
  EXPECT_FALSE(disk.stat(kState + "/staging").exists);
  EXPECT_FALSE(disk.stat(kOut + "/m/quantized.onnx.data" + kTemp).exists);
}
