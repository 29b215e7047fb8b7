#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "base/native_file.h"
#include "store/disk.h"
#include "support/platform.h"
#include "support/temp_dir.h"

namespace winml {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

using test::mapped_in_this_process;

// A state of a thousand models (5 MB) is mapped rather than read into a
// buffer of its own, where a mapped file can still be replaced (not on
// Windows); a small file is read. Either way the view is the file's bytes
// and outlives the file being replaced by rename, as builds replace the state.
TEST(DiskView, LargeFilesAreMappedSmallOnesRead) {
  test::TempDir dir;
  store::RealDisk disk;
  const std::string large(store::DiskInterface::kMapFromBytes + 1, 'x');
  const std::string small = "records";
  write(dir.path() / "large", large);
  write(dir.path() / "small", small);
  std::string_view large_view, small_view;
  auto large_handle = disk.view(dir.path() / "large", large_view);
  auto small_handle = disk.view(dir.path() / "small", small_view);
  EXPECT_EQ(mapped_in_this_process(dir.path() / "large"), native::can_replace_mapped_files());
  EXPECT_FALSE(mapped_in_this_process(dir.path() / "small"));
  write(dir.path() / "next", "replaced");
  fs::rename(dir.path() / "next", dir.path() / "large");
  EXPECT_EQ(large_view, large);
  EXPECT_EQ(small_view, small);
  large_handle.reset();
  EXPECT_FALSE(mapped_in_this_process(dir.path() / "large"));
}

}  // namespace
}  // namespace winml
