// The output directory's lock: a holder says in the lock file that it is
// working and, when it lets go, that it is done; one killed while holding it
// leaves "working" for the next holder to find.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "store/lock.h"
#include "support/temp_dir.h"

using namespace winml;

namespace {

std::string text_of(const std::filesystem::path& f) {
  std::ifstream in(f);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST(DirectoryLock, AHolderThatLetsGoSaysItIsDone) {
  test::TempDir dir;
  const auto file = dir / "lock";
  {
    auto first = store::DirectoryLock::acquire(file, nullptr);
    ASSERT_TRUE(first);
    EXPECT_FALSE(first->last_holder_was_killed());  // a new file
    EXPECT_EQ(text_of(file).find("pid " + std::to_string(::getpid())), 0u);
    EXPECT_NE(text_of(file).find("working"), std::string::npos);
  }
  EXPECT_NE(text_of(file).find("done"), std::string::npos);
  auto second = store::DirectoryLock::acquire(file, nullptr);
  EXPECT_FALSE(second->last_holder_was_killed());
}

TEST(DirectoryLock, AHolderKilledWhileWorkingIsNoticedByTheNext) {
  test::TempDir dir;
  const auto file = dir / "lock";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto held = store::DirectoryLock::acquire(file, nullptr);
    ::kill(::getpid(), SIGKILL);  // no destructor runs, as when a build is killed
    ::_exit(1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  auto next = store::DirectoryLock::acquire(file, nullptr);
  EXPECT_TRUE(next->last_holder_was_killed());
  next.reset();
  // Its own release was clean: the one after it has nothing to sweep.
  EXPECT_FALSE(store::DirectoryLock::acquire(file, nullptr)->last_holder_was_killed());
}

TEST(DirectoryLock, SharedHoldersWriteNothing) {
  test::TempDir dir;
  const auto file = dir / "lock";
  { auto exclusive = store::DirectoryLock::acquire(file, nullptr); }
  const std::string before = text_of(file);
  { auto shared = store::DirectoryLock::acquire(file, nullptr, -1, nullptr, store::LockMode::kShared); }
  EXPECT_EQ(text_of(file), before);
}
