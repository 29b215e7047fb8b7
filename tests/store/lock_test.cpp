// The output directory's lock: a holder says in the lock file that it is
// working and, when it lets go, that it is done; one killed while holding it
// leaves "working" for the next holder to find.
#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <sstream>

#include "base/path_text.h"
#include "base/this_process.h"
#include "store/lock.h"
#include "support/platform.h"
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
    EXPECT_EQ(text_of(file).find("pid " + std::to_string(current_process_id())), 0u);
    EXPECT_NE(text_of(file).find("working"), std::string::npos);
  }
  EXPECT_NE(text_of(file).find("done"), std::string::npos);
  auto second = store::DirectoryLock::acquire(file, nullptr);
  EXPECT_FALSE(second->last_holder_was_killed());
}

TEST(DirectoryLock, AHolderKilledWhileWorkingIsNoticedByTheNext) {
  // The holder is a death test's child. On Windows that child is this test
  // run again in a new process: it finds the lock file in the environment
  // rather than making a folder of its own.
  constexpr const char* kLockFile = "WINML_TEST_KILLED_HOLDERS_LOCK";
  const std::optional<std::string> given = environment_variable(kLockFile);
  std::optional<test::TempDir> dir;
  if (!given) dir.emplace();
  const auto file = given ? from_utf8(*given) : *dir / "lock";
  test::ScopedEnvironment env;
  env.set(kLockFile, to_utf8(file));
  EXPECT_EXIT(
      {
        auto held = store::DirectoryLock::acquire(file, nullptr);
        test::kill_this_process();  // no destructor runs, as when a build is killed
      },
      test::killed, "");
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
