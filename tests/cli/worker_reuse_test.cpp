// A build's stages run in one worker process per build slot, not in a new
// one each (base/worker_process.h): the commands the stages run write the
// id of the process that started them, their worker.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "base/path_text.h"
#include "support/project.h"

using namespace winml;
using test::Project;

namespace {

// Builds two models with one job, each exported by a command that notes
// its parent; the parents it noted, in order.
std::vector<std::string> export_parents(const std::map<std::string, std::string>& env) {
  Project p;
  p.write_model("a.onnx", 1);
  p.write_model("b.onnx", 2);
  p.write("a.steps", "parent parents.txt\ncopy a.onnx $1\n");
  p.write("b.steps", "parent parents.txt\ncopy b.onnx $1\n");
  const std::string command = "'" + to_utf8(test::test_command()) + "', 'script', ";
  p.write_config(
      "[build]\njobs = 1\n"
      "[[model]]\nname = \"a\"\n[model.export]\ncommand = [" +
      command +
      "'a.steps', '{output}']\n"
      "[[model]]\nname = \"b\"\n[model.export]\ncommand = [" +
      command + "'b.steps', '{output}']\n");
  p.build({}, 0, env);
  std::istringstream lines(test::read_text(p.root() / "parents.txt"));
  std::vector<std::string> parents;
  for (std::string line; std::getline(lines, line);) parents.push_back(line);
  return parents;
}

}  // namespace

TEST(WorkerReuse, OneJobsStagesRunInOneWorkerAndEachInItsOwnWithoutReuse) {
  const auto reused = export_parents({});
  ASSERT_EQ(reused.size(), 2u);
  EXPECT_NE(reused[0], "0");
  EXPECT_EQ(reused[0], reused[1]) << "the second model's export ran in another worker";
  const auto fresh = export_parents({{"WINML_MAKE_WORKER_REUSE", "0"}});
  ASSERT_EQ(fresh.size(), 2u);
  EXPECT_NE(fresh[0], fresh[1]);
}
