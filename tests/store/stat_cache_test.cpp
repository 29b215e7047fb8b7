// The stat cache: re-hash only when metadata changed, and never trust an
// entry recorded within the timestamp granularity of the file's last change.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/fake_disk.h"
#include "store/stat_cache.h"

using namespace winml;

TEST(StatCache, HashesOnceWhileMetadataIsUnchanged) {
  test::FakeDisk disk;
  disk.put("/p/a.onnx", "alpha");
  disk.advance_ms(1000);
  store::StatCache cache(disk, "/p");
  EXPECT_EQ(cache.digest("/p/a.onnx"), store::digest_of("alpha"));
  EXPECT_EQ(cache.digest("/p/a.onnx"), store::digest_of("alpha"));
  EXPECT_EQ(disk.hash_calls, 1);
  EXPECT_EQ(cache.key_of("/p/a.onnx"), "a.onnx");
  EXPECT_EQ(cache.key_of("/elsewhere/b"), "/elsewhere/b");
}

TEST(StatCache, TouchRehashesButKeepsTheDigest) {
  test::FakeDisk disk;
  disk.put("/p/a", "alpha");
  disk.advance_ms(1000);
  store::StatCache cache(disk, "/p");
  auto before = cache.digest("/p/a");
  disk.advance_ms(1000);
  disk.touch("/p/a");
  disk.advance_ms(1000);
  EXPECT_EQ(cache.digest("/p/a"), before);
  EXPECT_EQ(disk.hash_calls, 2);
  EXPECT_EQ(cache.digest("/p/a"), before);
  EXPECT_EQ(disk.hash_calls, 2);
}

TEST(StatCache, RacilyCleanEntryIsRehashedUntilItIsOldEnough) {
  test::FakeDisk disk;
  disk.put("/p/a", "one");
  store::StatCache cache(disk, "/p");
  // Hashed in the same instant it was written: racy.
  EXPECT_EQ(cache.digest("/p/a"), store::digest_of("one"));
  // Rewritten with the same size and the same timestamp (a coarse clock did
  // not move): metadata identical, content different.
  auto st = disk.files["/p/a"].stat;
  disk.files["/p/a"].data = "two";
  disk.files["/p/a"].stat = st;
  EXPECT_EQ(cache.digest("/p/a"), store::digest_of("two"));
  EXPECT_EQ(disk.hash_calls, 2);
  // Once the clock is well past the mtime, the re-stamped entry is trusted.
  disk.advance_ms(500);
  EXPECT_EQ(cache.digest("/p/a"), store::digest_of("two"));
  EXPECT_EQ(disk.hash_calls, 3);
  EXPECT_EQ(cache.digest("/p/a"), store::digest_of("two"));
  EXPECT_EQ(disk.hash_calls, 3);
}

TEST(StatCache, WholeSecondTimestampsGetAWiderWindow) {
  store::StatEntry e;
  e.stat.mtime_ns = e.stat.ctime_ns = 5'000'000'000;  // a file system without sub-second times
  e.stamp_ns = e.stat.mtime_ns + 1'500'000'000;
  EXPECT_TRUE(store::is_racily_clean(e));
  e.stamp_ns = e.stat.mtime_ns + 2'500'000'000;
  EXPECT_FALSE(store::is_racily_clean(e));
  e.stat.mtime_ns = e.stat.ctime_ns = 5'000'000'123;
  e.stamp_ns = e.stat.mtime_ns + 100'000'000;
  EXPECT_FALSE(store::is_racily_clean(e));
}

TEST(StatCache, MissingFileHasNoDigestAndForgetsItsEntry) {
  test::FakeDisk disk;
  disk.put("/p/a", "x");
  disk.advance_ms(1000);
  store::StatCache cache(disk, "/p");
  ASSERT_TRUE(cache.digest("/p/a"));
  disk.remove("/p/a");
  EXPECT_FALSE(cache.digest("/p/a"));
  EXPECT_TRUE(cache.entries().empty());
}

TEST(StatCache, ReplacedFileWithSameTimesIsDetectedByInode) {
  test::FakeDisk disk;
  disk.put("/p/a", "one");
  disk.advance_ms(1000);
  store::StatCache cache(disk, "/p");
  ASSERT_EQ(cache.digest("/p/a"), store::digest_of("one"));
  auto st = disk.files["/p/a"].stat;
  disk.files["/p/a"].data = "two";
  disk.files["/p/a"].stat.inode = st.inode + 1000;  // renamed over by another file
  EXPECT_EQ(cache.digest("/p/a"), store::digest_of("two"));
}

namespace {

// A cache loaded with `n` files' entries, as the build state loads them.
std::vector<std::string> loaded_files(test::FakeDisk& disk, store::StatCache& cache, int n) {
  std::vector<std::string> paths;
  for (int i = 0; i < n; ++i) {
    paths.push_back("/p/m" + std::to_string(i) + "/model.onnx");
    disk.put(paths.back(), "v" + std::to_string(i));
  }
  disk.advance_ms(1000);
  store::StatCache before(disk, "/p");
  for (const auto& p : paths) before.digest(p);
  for (const auto& [key, entry] : before.entries()) cache.load(key, entry);
  return paths;
}

}  // namespace

TEST(StatCache, StatsTakenAheadServeOneLookupEach) {
  test::FakeDisk disk;
  store::StatCache cache(disk, "/p");
  constexpr int kFiles = store::StatCache::kFilesWorthThreads + 100;
  const auto paths = loaded_files(disk, cache, kFiles);
  const int hashes = disk.hash_calls;
  disk.stat_calls = 0;
  cache.start_prefetch(3);
  EXPECT_EQ(cache.digest(paths[0]), store::digest_of("v0"));
  EXPECT_EQ(disk.stat_calls, kFiles);  // every file, ahead of its lookup
  for (std::size_t i = 1; i < paths.size(); ++i)
    EXPECT_EQ(cache.digest(paths[i]), store::digest_of("v" + std::to_string(i)));
  EXPECT_EQ(disk.stat_calls, kFiles);  // and no lookup stats again
  EXPECT_EQ(disk.hash_calls, hashes);
  // A second lookup of a file stats it again.
  EXPECT_EQ(cache.digest(paths[0]), store::digest_of("v0"));
  EXPECT_EQ(disk.stat_calls, kFiles + 1);
}

TEST(StatCache, StatsTakenAheadAreDroppedOnceThisProcessWritesAFile) {
  test::FakeDisk disk;
  store::StatCache cache(disk, "/p");
  const auto paths = loaded_files(disk, cache, store::StatCache::kFilesWorthThreads);
  cache.start_prefetch(2);
  EXPECT_EQ(cache.digest(paths[0]), store::digest_of("v0"));
  // The build writes a file; another changes after the stat taken ahead.
  disk.put("/p/m0/model.onnx", "rewritten");
  cache.record("/p/m0/model.onnx", store::digest_of("rewritten"), disk.clock_ns);
  disk.put(paths[1], "changed");
  disk.advance_ms(1000);
  EXPECT_EQ(cache.digest(paths[1]), store::digest_of("changed"));
  EXPECT_EQ(cache.digest(paths[2]), store::digest_of("v2"));
}

// A project of a few hundred models is stat'ed on this thread alone: the
// threads would cost more CPU than they save time.
TEST(StatCache, FewFilesAreNotStatedAhead) {
  test::FakeDisk disk;
  store::StatCache cache(disk, "/p");
  const auto paths = loaded_files(disk, cache, store::StatCache::kFilesWorthThreads - 1);
  disk.stat_calls = 0;
  cache.start_prefetch(2);
  EXPECT_EQ(cache.digest(paths[3]), store::digest_of("v3"));
  EXPECT_EQ(disk.stat_calls, 1);
}
