// clean says, per model folder, what it removed and, when the folder stays,
// which entries keep it; a folder emptied by the user goes on the next clean.
#include <gtest/gtest.h>

#include "base/path_text.h"
#include "support/project.h"

using namespace winml;
using test::Project;

TEST(CleanMessages, AFolderKeptForAUsersFileIsOneLineNamingTheFile) {
  Project p;
  p.write_small_project();
  p.build();
  p.write("build/net/notes.txt", "mine");
  const std::string dir = to_utf8(p.out("net"));
  auto r = p.run({"clean"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // Not "removed <dir> (...)" and "kept <dir>" for the one folder.
  EXPECT_EQ(r.out.find("removed " + dir + " ("), std::string::npos) << r.out;
  std::size_t lines_naming_it = 0;
  for (std::size_t at = r.out.find(dir); at != std::string::npos; at = r.out.find(dir, at + 1)) ++lines_naming_it;
  EXPECT_EQ(lines_naming_it, 1u) << r.out;
  EXPECT_NE(r.out.find(" from " + dir + "; kept the folder"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("notes.txt"), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::exists(p.out("net", "notes.txt")));
  EXPECT_FALSE(std::filesystem::exists(p.out("net", "model.onnx")));
  // The user takes their file out: the next clean removes the empty folder, and says so.
  std::filesystem::remove(p.out("net", "notes.txt"));
  auto second = p.run({"clean"});
  EXPECT_EQ(second.exit_code, 0) << second.err;
  EXPECT_FALSE(std::filesystem::exists(p.out("net"))) << second.out;
  EXPECT_NE(second.out.find("removed " + dir + " (it was empty)"), std::string::npos) << second.out;
  // Nothing left: nothing said about the folder.
  auto third = p.run({"clean", "net"});
  EXPECT_EQ(third.exit_code, 0) << third.err;
  EXPECT_EQ(third.out.find(dir), std::string::npos) << third.out;
}
