#include <gtest/gtest.h>

#include "base/atomic_file.h"
#include "base/native_file.h"
#include "support/fifo.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

TEST(AtomicFile, UncommittedWriteLeavesNothingBehind) {
  test::TempDir dir;
  test::write_text(dir / "out.txt", "old");
  {
    AtomicFileWriter w(dir / "out.txt");
    w.write("new content");
    EXPECT_TRUE(fs::exists(w.temp_path()));
    EXPECT_TRUE(is_temp_name(w.temp_path()));
  }
  EXPECT_EQ(test::read_text(dir / "out.txt"), "old");
  int files = 0;
  for (auto& e : fs::directory_iterator(dir.path())) files += e.is_regular_file();
  EXPECT_EQ(files, 1);
}

TEST(AtomicFile, CommitReplacesDestination) {
  test::TempDir dir;
  test::write_text(dir / "out.txt", "old");
  write_file_atomic(dir / "out.txt", "new");
  EXPECT_EQ(test::read_text(dir / "out.txt"), "new");
}

TEST(AtomicFile, PadToAndCopyFromFd) {
  test::TempDir dir;
  test::write_text(dir / "src", "0123456789");
  AtomicFileWriter w(dir / "dst");
  w.write("ab");
  w.pad_to(8);
  const int fd = native::open_read(dir / "src");
  w.copy_from_fd(fd, 3, 4);
  native::close(fd);
  w.commit();
  EXPECT_EQ(test::read_text(dir / "dst"), std::string("ab\0\0\0\0\0\0"
                                                      "3456",
                                                      12));
}

// `-o /dev/null` and pipes: a device or a FIFO is written into, never
// replaced by a renamed file (which would remove the device node itself).
// A FIFO stands for /dev/null here, so that a failure harms nothing.
TEST(AtomicFile, AFifoDestinationIsWrittenIntoAndStaysAFifo) {
  test::TempDir dir;
  test::Fifo fifo(dir / "pipe");
  {
    AtomicFileWriter w(fifo.path());
    w.write("through the pipe");
    w.commit();
  }
  EXPECT_EQ(native::status(fifo.path()).kind, native::FileKind::kFifo) << "the FIFO was replaced by a file";
  EXPECT_EQ(fifo.drain(), "through the pipe");
  // (On Windows the pipe lives in \\.\pipe\, not in the folder: nothing at all here.)
  EXPECT_LE(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1) << "no temporary left";
}
