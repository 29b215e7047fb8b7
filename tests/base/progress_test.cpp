#include <gtest/gtest.h>

#include <thread>

#include "base/progress.h"
#include "support/temp_dir.h"

using namespace winml;

TEST(Progress, ARecordComesBackWhateverItsNamesHold) {
  const progress::Snapshot s{"calibration", 12, 24, "samples"};
  const std::string record = progress::encode(s, 7);
  EXPECT_EQ(record.size(), 256u);  // fixed: a rewrite covers the last record whole
  EXPECT_EQ(progress::decode(record), s);
  // Tabs and line ends in a name would break the fields: they become spaces.
  const auto odd = progress::decode(progress::encode({"a\tb\nc", 1, 2, "x\ry"}, 1));
  ASSERT_TRUE(odd.has_value());
  EXPECT_EQ(odd->what, "a b c");
  EXPECT_EQ(odd->unit, "x y");
}

TEST(Progress, ARecordCaughtHalfWrittenIsNotTakenForAWholeOne) {
  const std::string old_record = progress::encode({"calibration", 3, 24, "samples"}, 9);
  const std::string new_record = progress::encode({"calibration", 4, 24, "samples"}, 10);
  // The reader saw the new record's start over the old one's end.
  std::string torn = new_record.substr(0, 40) + old_record.substr(40);
  EXPECT_FALSE(progress::decode(torn).has_value());
  EXPECT_FALSE(progress::decode(new_record.substr(0, 100)).has_value());
  EXPECT_FALSE(progress::decode(std::string(256, ' ')).has_value());
  EXPECT_FALSE(progress::decode("").has_value());
}

TEST(Progress, AWorkerReportsIntoItsFileAndTheLastReportAlwaysLands) {
  test::TempDir dir;
  const auto file = dir / "net.quantize.progress";
  EXPECT_FALSE(progress::read(file).has_value());  // no file yet
  progress::report("calibration", 1, 3, "samples");  // reports nowhere: not a worker yet
  EXPECT_FALSE(progress::read(file).has_value());
  progress::report_to(file);
  progress::report("calibration", 1, 3, "samples");
  EXPECT_EQ(progress::read(file), (progress::Snapshot{"calibration", 1, 3, "samples"}));
  // Within 100 ms of the last record: skipped, unless the work is done.
  progress::report("calibration", 2, 3, "samples");
  EXPECT_EQ(progress::read(file)->done, 1u);
  progress::report("calibration", 3, 3, "samples");
  EXPECT_EQ(progress::read(file)->done, 3u);
  std::this_thread::sleep_for(std::chrono::milliseconds(120));
  progress::report("accuracy", 1, 3, "samples");
  EXPECT_EQ(progress::read(file)->what, "accuracy");
  progress::report_to({});
  progress::report("accuracy", 2, 3, "samples");  // reports nowhere again
  EXPECT_EQ(progress::read(file)->done, 1u);
}
