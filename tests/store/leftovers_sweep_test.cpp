// What killed writers leave in the cache, found and removed through the
// DiskInterface: on the fake disk, whose paths exist nowhere on the real
// file system, a sweep that walked the real one would find nothing.
#include <gtest/gtest.h>

#include <algorithm>

#include "base/atomic_file.h"
#include "base/this_process.h"
#include "store/cache.h"
#include "support/fake_disk.h"

using namespace winml;

namespace {

// No process has this pid (above any pid_max), so its temporaries are abandoned.
const std::string kDeadWriter = std::string(kTempMarker) + "99999999";
const std::string kLiveWriter = std::string(kTempMarker) + std::to_string(current_process_id());

const std::string kRoot = "/fake/cache";
const std::string kBlob = kRoot + "/cas/ab/ab" + std::string(62, '0');
const std::string kEntry = kRoot + "/ac/cd/cd" + std::string(62, '1');

bool mentions(const std::vector<std::string>& lines, const std::string& path, const std::string& why) {
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) {
    return l.find(path) != std::string::npos && l.find(why) != std::string::npos;
  });
}

}  // namespace

TEST(LeftoversSweep, RemovesDeadWritersTemporariesAndWhatIsNotAFileKeepingTheRest) {
  test::FakeDisk disk;
  disk.put(kBlob, "blob");
  disk.put(kEntry, "entry");
  disk.put(kBlob + kDeadWriter, "torn blob");
  disk.put(kEntry + kLiveWriter, "an entry being written now");
  disk.others.insert(kRoot + "/ac/cd/cd" + std::string(62, '2'));  // a symlink or FIFO where an entry belongs
  disk.put(kRoot + "/cas/ab/ab" + std::string(62, '3') + "/inside", "a folder where a blob belongs");
  disk.put(kRoot + "/incoming/download" + kDeadWriter + "/part", "a dead download");
  disk.put(kRoot + "/incoming/download" + kLiveWriter, "a live download");

  store::LocalCache cache(kRoot, disk);
  const auto problems = cache.sweep_leftovers();

  EXPECT_EQ(problems.size(), 4u);
  EXPECT_TRUE(mentions(problems, kBlob + kDeadWriter, "its writer is gone"));
  EXPECT_TRUE(mentions(problems, kRoot + "/ac/cd/cd" + std::string(62, '2'), "not a regular file"));
  EXPECT_TRUE(mentions(problems, kRoot + "/cas/ab/ab" + std::string(62, '3'), "not a regular file"));
  EXPECT_TRUE(mentions(problems, kRoot + "/incoming/download" + kDeadWriter, "its writer is gone"));

  EXPECT_TRUE(disk.stat(kBlob).exists);
  EXPECT_TRUE(disk.stat(kEntry).exists);
  EXPECT_TRUE(disk.stat(kEntry + kLiveWriter).exists) << "its writer is alive";
  EXPECT_TRUE(disk.stat(kRoot + "/incoming/download" + kLiveWriter).exists);
  EXPECT_FALSE(disk.stat(kBlob + kDeadWriter).exists);
  EXPECT_TRUE(disk.others.empty());
  EXPECT_TRUE(disk.list_dir(kRoot + "/incoming").size() == 1);
  EXPECT_EQ(disk.list_dir(kRoot + "/cas/ab").size(), 1u);

  EXPECT_TRUE(cache.sweep_leftovers().empty()) << "a second sweep finds nothing";
}

TEST(LeftoversSweep, TheIncomingFolderAloneIsSweptBeforeADownload) {
  test::FakeDisk disk;
  disk.put(kBlob + kDeadWriter, "not the download folder's");
  disk.put(kRoot + "/incoming/blob" + kDeadWriter, "a dead download");
  store::LocalCache cache(kRoot, disk);
  const auto problems = cache.sweep_incoming();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_TRUE(mentions(problems, kRoot + "/incoming/blob" + kDeadWriter, "its writer is gone"));
  EXPECT_TRUE(disk.stat(kBlob + kDeadWriter).exists) << "the store is swept after a crash only";
}
