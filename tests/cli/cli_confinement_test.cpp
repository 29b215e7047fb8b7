// Nothing outside the output directory is written or deleted, and inside it
// only what the build records say winml-make wrote: model names however
// derived, output directories holding the project, symlinks in and out,
// clean, --rebuild, failed and killed builds.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <iostream>
#include <map>

#include "base/path_text.h"
#include "base/native_file.h"
#include "support/platform.h"
#include "support/project.h"
#include "store/digest.h"

using namespace winml;
using test::Project;
namespace fs = std::filesystem;

namespace {

// Everything below `root` that is not winml-make's own, as path -> what it is
// (type, permissions, content digest or link target). Symlinks are not
// followed. `skip` names paths (relative) whose subtrees are the tool's.
std::map<std::string, std::string> snapshot(const fs::path& root, const std::vector<std::string>& skip = {}) {
  std::map<std::string, std::string> out;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const std::string rel = it->path().lexically_relative(root).generic_string();
    if (std::find(skip.begin(), skip.end(), rel) != skip.end()) {
      it.disable_recursion_pending();
      continue;
    }
    auto st = it->symlink_status();
    std::string what = std::to_string(static_cast<int>(st.permissions())) + " ";
    if (fs::is_symlink(st)) what += "link " + fs::read_symlink(it->path()).string();
    else if (fs::is_directory(st)) what += "dir";
    else what += "file " + store::hash_file(it->path()).hex();
    out[rel] = what;
  }
  return out;
}

// A folder of someone else's files: one read-only, one writable, a subfolder.
void fill_user_folder(const fs::path& dir) {
  fs::create_directories(dir / "sub");
  test::write_text(dir / "model.onnx", "the user's own model.onnx");
  test::write_text(dir / "export.onnx", "the user's own export.onnx");
  test::write_text(dir / "thesis.txt", "years of work");
  test::write_text(dir / "sub" / "notes.txt", "more work");
  fs::permissions(dir / "thesis.txt", fs::perms::owner_read | fs::perms::group_read);
}

}  // namespace

TEST(Confinement, TorchvisionNameThatIsAPathIsRefusedAndTheFolderItNamesIsUntouched) {
  Project p;
  test::TempDir outside;
  fill_user_folder(outside / "victim");
  const auto before = snapshot(outside.path());
  for (const std::string& tv : {(outside / "victim").string(), std::string("x/../../../victim")}) {
    fs::create_directories(p.root() / "build" / "x");  // what a failed build once left behind
    p.write_config("[export]\ntorchvision = \"" + tv + "\"\n");
    for (std::vector<std::string> args : {std::vector<std::string>{"--rebuild"}, {}, {"clean"}, {"status"}}) {
      auto r = p.run(args);
      EXPECT_EQ(r.exit_code, 2) << tv << " " << testing::PrintToString(args) << r.out << r.err;
      EXPECT_NE(r.err.find("winml.toml:2:"), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("torchvision"), std::string::npos) << r.err;
      EXPECT_EQ(snapshot(outside.path()), before) << testing::PrintToString(args);
    }
  }
}

TEST(Confinement, EveryDerivedModelNamePassesTheNameCheck) {
  Project p;
  // A source stem with characters a folder name should not hold becomes a plain name.
  p.write_model("my model (v2).onnx", 1);
  p.write_config("[model]\nsource = \"my model (v2).onnx\"\n");
  auto r = p.build();
  EXPECT_TRUE(fs::exists(p.out("my_model__v2_", "model.onnx"))) << r.dump();
  // Too long, from the stem or given: a clear error, never an abort.
  const std::string long_name(300, 'a');
  p.write_model(long_name.substr(0, 200) + ".onnx", 1);
  p.write_config("[model]\nsource = \"" + long_name.substr(0, 200) + ".onnx\"\n");
  auto stem = p.run({});
  EXPECT_EQ(stem.exit_code, 2) << stem.err;
  EXPECT_NE(stem.err.find("winml.toml:2:"), std::string::npos) << stem.err;
  EXPECT_NE(stem.err.find("set [model] name"), std::string::npos) << stem.err;
  p.write_config("[model]\nname = \"" + long_name + "\"\nsource = \"my model (v2).onnx\"\n");
  auto given = p.run({});
  EXPECT_EQ(given.exit_code, 2) << given.err;
  EXPECT_NE(given.err.find("at most 100"), std::string::npos) << given.err;
  // A hidden name could collide with the engine's own folder.
  p.write_model(".winml-make.onnx", 1);
  p.write_config("[model]\nsource = \".winml-make.onnx\"\n");
  auto hidden = p.run({});
  EXPECT_EQ(hidden.exit_code, 2) << hidden.err;
  EXPECT_NE(hidden.err.find("may not start with '.'"), std::string::npos) << hidden.err;
  // A name Windows opens as a device, on every system (a project builds anywhere).
  for (const char* device : {"nul", "Con.v2", "COM3"}) {
    p.write_config(std::string("[model]\nname = \"") + device + "\"\nsource = \"my model (v2).onnx\"\n");
    auto reserved = p.run({});
    EXPECT_EQ(reserved.exit_code, 2) << device << ": " << reserved.err;
    EXPECT_NE(reserved.err.find("a name Windows keeps for a device"), std::string::npos) << reserved.err;
  }
}

TEST(Confinement, OutputDirThatHoldsTheProjectIsRefused) {
  Project p;
  p.write_model("src.onnx", 1);
  test::write_text(p.root() / "src" / "main.py", "print('mine')\n");
  const auto before = snapshot(p.root());
  for (const std::string dir : {".", "./", "..", "sub/.."}) {
    p.write_config("[build]\noutput_dir = \"" + dir + "\"\n[model]\nsource = \"src.onnx\"\n");
    for (std::vector<std::string> args : {std::vector<std::string>{}, {"--rebuild"}, {"clean"}}) {
      auto r = p.run(args);
      EXPECT_EQ(r.exit_code, 2) << dir << r.out << r.err;
      EXPECT_NE(r.err.find("is the project directory or contains it"), std::string::npos) << r.err;
    }
  }
  p.write_config("[model]\nsource = \"src.onnx\"\n");
  auto minus_o = p.run({"clean", "-o", p.root().parent_path().string()});
  EXPECT_EQ(minus_o.exit_code, 2) << minus_o.err;
  auto snap = snapshot(p.root());
  snap.erase("winml.toml");
  auto expected = before;
  expected.erase("winml.toml");
  EXPECT_EQ(snap, expected);
}

TEST(Confinement, OutputDirThatIsAFileIsAnInputErrorNamingIt) {
  Project p;
  p.write_model("net.onnx", 1);
  p.write("out", "a file");
  p.write_config("[build]\noutput_dir = \"out\"\n[model]\nsource = \"net.onnx\"\n");
  auto r = p.run({});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(to_utf8(p.root() / "out") + ": [build] output_dir names a file that is not a directory"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(test::read_text(p.root() / "out"), "a file");
}

TEST(Confinement, CleanRemovesOnlyWhatTheRecordsSayWinmlMakeWrote) {
  Project p;
  p.write_model("net.onnx", 1);
  p.write_config("[model]\nsource = \"net.onnx\"\n");
  test::TempDir user;
  fill_user_folder(user / "net");  // -o userdir where userdir/net/ already holds the user's files
  test::write_text(user / "readme.txt", "mine");
  const std::string out = (user / "").string();
  p.build({"-o", out});
  EXPECT_TRUE(fs::exists(user / "net" / "quantized.onnx"));
  EXPECT_NE(test::read_text(user / "net" / "model.onnx"), "the user's own model.onnx");  // a build output now
  auto r = p.run({"clean", "-o", out});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // One line for the folder: what went, and the entries that keep it.
  EXPECT_NE(r.out.find(" from " + to_utf8(user / "net") + "; kept the folder: it holds 2 entries winml-make did not "
                       "write (sub, thesis.txt)"),
            std::string::npos)
      << r.out;
  std::set<std::string> left;
  for (const auto& e : fs::recursive_directory_iterator(user / "net"))
    left.insert(e.path().lexically_relative(user / "net").generic_string());
  // model.onnx and export.onnx were replaced by the build, so they were its outputs and clean took them.
  EXPECT_EQ(left, (std::set<std::string>{"thesis.txt", "sub", "sub/notes.txt"}));
  EXPECT_EQ(test::read_text(user / "net" / "thesis.txt"), "years of work");
  EXPECT_EQ(test::read_text(user / "readme.txt"), "mine");
}

TEST(Confinement, CleanOfOneModelAndOfAModelNoLongerConfigured) {
  Project p;
  p.write_model("a.onnx", 1);
  p.write_model("b.onnx", 2);
  p.write_config("[[model]]\nsource = \"a.onnx\"\n[[model]]\nsource = \"b.onnx\"\n");
  p.build();
  auto one = p.run({"clean", "a"});
  EXPECT_EQ(one.exit_code, 0) << one.err;
  EXPECT_FALSE(fs::exists(p.out("a")));
  EXPECT_TRUE(fs::exists(p.out("b", "model.onnx")));
  // b leaves the configuration: its files are still known from the records.
  p.write_config("[[model]]\nsource = \"a.onnx\"\n");
  p.build();
  auto all = p.run({"clean"});
  EXPECT_EQ(all.exit_code, 0) << all.err;
  EXPECT_FALSE(fs::exists(p.out("a"))) << all.out;
  EXPECT_FALSE(fs::exists(p.out("b"))) << all.out;
}

TEST(Confinement, SymlinksInAndOutOfTheOutputDirAreNeverFollowedOut) {
  Project p;
  p.write_model("net.onnx", 1);
  p.write_model("two.onnx", 2);
  p.write_config("[[model]]\nsource = \"net.onnx\"\n[[model]]\nsource = \"two.onnx\"\n");
  p.build();
  test::TempDir outside;
  fill_user_folder(outside / "elsewhere");
  // User files inside the output directory, links pointing out of it, and a
  // model folder that is a link to somewhere else.
  test::write_text(p.out("net", "user-notes.txt"), "mine");
  WINML_MAKE_SYMLINK_OR_SKIP(outside / "elsewhere", p.out("net", "link-out"));
  WINML_MAKE_SYMLINK_OR_SKIP(outside / "elsewhere", p.root() / "build" / "shortcut");
  native::remove_tree(p.out("two"));  // (its files: links to read-only cache blobs)
  WINML_MAKE_SYMLINK_OR_SKIP(outside / "elsewhere", p.out("two"));
  const auto outside_before = snapshot(outside.path());
  auto user_files = [&] {
    auto s = snapshot(p.root() / "build", {".winml-make"});
    std::map<std::string, std::string> mine;
    for (const auto& k : {"net/user-notes.txt", "net/link-out", "shortcut", "two"}) mine[k] = s[k];
    return mine;
  };
  const auto inside_before = user_files();

  auto rebuild = p.run({"--rebuild", "-k"});
  EXPECT_EQ(rebuild.exit_code, 1) << rebuild.out << rebuild.err;  // "two" cannot be written through the link
  EXPECT_NE(rebuild.err.find("refusing to"), std::string::npos) << rebuild.err;
  EXPECT_NE(rebuild.err.find("lies outside"), std::string::npos) << rebuild.err;
  EXPECT_TRUE(fs::exists(p.out("net", "model.onnx")));
  auto clean = p.run({"clean"});
  EXPECT_EQ(clean.exit_code, 1) << clean.err;  // net is cleaned; two cannot be, and says why
  EXPECT_NE(clean.err.find("refusing to delete in " + to_utf8(p.out("two"))), std::string::npos) << clean.err;
  EXPECT_EQ(snapshot(outside.path()), outside_before);
  EXPECT_EQ(user_files(), inside_before);
  EXPECT_FALSE(fs::exists(p.out("net", "model.onnx")));
}

TEST(Confinement, FailedAndKilledBuildsLeaveUserFilesAlone) {
  Project p;
  p.write_model("net.onnx", 1);
  // An export that is slow while "slow" exists and fails while "fail" exists.
  p.write_config("[model]\nname = \"net\"\n[export]\ncommand = ['" + to_utf8(test::test_command()) +
                 "', 'when', 'fail', 'exit', '3', 'end', 'when', 'slow', 'sleep', '30', 'end', "
                 "'copy', 'net.onnx', '{output}']\ninputs = [\"net.onnx\"]\n");
  fill_user_folder(p.root() / "build" / "net");
  test::TempDir outside;
  fill_user_folder(outside / "elsewhere");
  // A link out of the output directory, where the system can make one.
  std::string why;
  if (!test::make_symlink(outside / "elsewhere", p.root() / "build" / "net" / "link-out", why))
    std::cout << "no link out of the output directory: " << why << "\n";
  const auto outside_before = snapshot(outside.path());
  auto user = [&] {
    auto s = snapshot(p.out("net"));
    for (const auto* tool :
         {"model.onnx", "export.onnx", "optimized.onnx", "quantized.onnx", "compiled.onnx", "model_ref.bin",
          "compiled_ref.bin", "analyze_result.json", "build_manifest.json", "winml_build_config.json"})
      s.erase(tool);
    return s;
  };
  const auto user_before = user();

  p.write("fail", "");
  auto failed = p.run({"--rebuild"});
  EXPECT_EQ(failed.exit_code, 1) << failed.err;
  EXPECT_EQ(user(), user_before);
  fs::remove(p.root() / "fail");
  p.write("slow", "");
  {
    test::Background run({"--rebuild"}, p.root(), p.cache_env());
    ASSERT_TRUE(test::wait_until([&] { return fs::exists(p.root() / "build" / ".winml-make" / "staging"); }));
    run.kill_group();
    run.wait();
  }
  EXPECT_EQ(user(), user_before);
  fs::remove(p.root() / "slow");
  p.build();
  EXPECT_EQ(user(), user_before);
  EXPECT_EQ(p.run({"clean"}).exit_code, 0);
  EXPECT_EQ(snapshot(p.out("net")), user_before);
  EXPECT_EQ(snapshot(outside.path()), outside_before);
}
