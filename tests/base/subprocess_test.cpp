// base/subprocess.h: finding a program and running it with its output
// captured, the same on every system.
#include <gtest/gtest.h>

#include "base/subprocess.h"
#include "base/this_executable.h"
#include "base/this_process.h"
#include "support/platform.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

TEST(FindProgram, ANameWithAFolderIsUsedAsItIsAndMustExist) {
  const fs::path self = this_executable();
  ASSERT_FALSE(self.empty());
  EXPECT_EQ(fs::weakly_canonical(find_program(self.string())), fs::weakly_canonical(self));
  EXPECT_TRUE(find_program((self.parent_path() / "no-such-program").string()).empty());
}

TEST(FindProgram, ABareNameIsLookedUpInPath) {
  const fs::path command = test::test_command();
  test::ScopedEnvironment env;
  env.set("PATH", command.parent_path().string());
  const fs::path found = find_program(command.stem().string());
  EXPECT_EQ(fs::weakly_canonical(found), fs::weakly_canonical(command));
  env.set("PATH", test::TempDir().path().string());
  EXPECT_TRUE(find_program(command.stem().string()).empty());
}

TEST(RunProcess, CapturesOutputFeedsInputAndReportsTheExitCode) {
  std::string out, err;
  const std::string in;
  ProcessSpec spec;
  spec.argv = {test::test_command().string(), "print", "to stdout", "eprint", "to stderr", "exit", "3"};
  spec.env = environment_variables();
  spec.output = &out;
  spec.errors = &err;
  spec.input = &in;
  const ProcessResult r = run_process(spec);
  ASSERT_TRUE(r.started) << r.error;
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(r.end.exited);
  EXPECT_EQ(out, "to stdout\n");
  EXPECT_EQ(err, "to stderr\n");
}

TEST(RunProcess, AProgramThatCannotStartSaysWhy) {
  ProcessSpec spec;
  spec.argv = {"winml-no-such-program-anywhere"};
  const ProcessResult r = run_process(spec);
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.error.find("winml-no-such-program-anywhere"), std::string::npos) << r.error;
}

TEST(RunProcess, ACrashIsReportedAsOne) {
  std::string out;
  ProcessSpec spec;
  spec.argv = {test::test_command().string(), "crash"};
  spec.env = environment_variables();
  spec.errors = &out;
  const ProcessResult r = run_process(spec);
  ASSERT_TRUE(r.started) << r.error;
  EXPECT_TRUE(r.end.crashed()) << r.end.describe();
  const std::string how = r.end.describe();
  EXPECT_TRUE(how == "SIGSEGV (Segmentation fault)" || how == "0xC0000005 (access violation)") << how;
}
