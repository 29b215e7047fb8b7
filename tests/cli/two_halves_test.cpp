// The binary and the model tools' module define one command line
// (cli/command_line.h): the full --help lists exactly the subcommands the
// binary knows by name, every one runs from the binary (the model tools
// through their stand-ins), and a model tool runs after global options too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "base/path_text.h"
#include "base/system_names.h"
#include "cli/command_line.h"
#include "support/help_text.h"
#include "support/platform.h"
#include "support/cli_runner.h"
#include "support/temp_dir.h"

using namespace winml;

TEST(TwoHalves, EverySubcommandOfTheHelpRunsFromTheBinary) {
  const auto top = test::run_cli({"--help"});
  ASSERT_EQ(top.exit_code, 0) << top.err;
  const auto subs = test::subcommands_in_help(top.out);
  std::vector<std::string> named = cli::kEngineCommands;
  named.insert(named.end(), cli::kToolCommands.begin(), cli::kToolCommands.end());
  // The names the binary looks for before it defines any subcommand.
  std::sort(named.begin(), named.end());
  auto listed = subs;
  std::sort(listed.begin(), listed.end());
  EXPECT_EQ(listed, named);
  for (const auto& sub : subs) {
    const auto help = test::run_cli({sub, "--help"});
    EXPECT_EQ(help.exit_code, 0) << sub << ": " << help.err;
    EXPECT_NE(help.out.find(sub), std::string::npos) << sub << ":\n" << help.out;
  }
}

TEST(TwoHalves, AModelToolAfterGlobalOptionsRunsInTheModule) {
  test::TempDir dir;
  // inspect of a file that is not a model: the module's error, through the stand-in.
  test::write_text(dir / "not-a-model.onnx", "garbage");
  const auto r = test::run_cli({"-C", dir.path().string(), "inspect", "-m", (dir / "not-a-model.onnx").string()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("not-a-model.onnx"), std::string::npos) << r.err;
}

TEST(TwoHalves, AMissingModuleIsAnErrorNamingEveryPlaceTriedAndWhatToCopy) {
  test::TempDir dir;
  const std::string module = system_names::kToolsModule;
  // The binary alone, without its module beside it or in ../lib/winml-make.
  std::filesystem::create_directories(dir / "bin");
  const std::filesystem::path exe = dir / "bin" / std::filesystem::path(WINML_MAKE_BIN).filename();
  std::filesystem::copy_file(WINML_MAKE_BIN, exe);
  const auto r = test::run_program({exe.string(), "inspect", "-m", "x.onnx"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  // Each place the module may be, and the fix: which file, from where, to where.
  for (const auto& place : {dir / "bin" / module, dir / "lib" / "winml-make" / module})
    EXPECT_NE(r.err.find(to_utf8(place)), std::string::npos) << place << "\n" << r.err;
  if (*system_names::kPackageLibraryDir) {
    EXPECT_NE(r.err.find(std::string(system_names::kPackageLibraryDir) + "/" + module), std::string::npos) << r.err;
  }
  EXPECT_NE(r.err.find("copy " + module), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(to_utf8(std::filesystem::path(WINML_MAKE_BIN).parent_path())), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(to_utf8(exe)), std::string::npos) << r.err;
  // What needs no model still works.
  const auto v = test::run_program({exe.string(), "--version"});
  EXPECT_EQ(v.exit_code, 0) << v.err;
}

// What getting-started.md says to copy is enough, in either layout: a project
// builds from scratch (every stage through the module), then status and
// inspect work.
TEST(TwoHalves, TheBinaryWorksWhereverItIsCopiedWithItsModule) {
  const std::filesystem::path build = std::filesystem::path(WINML_MAKE_BIN).parent_path();
  const std::string module = system_names::kToolsModule;
  test::TempDir dir;
  for (const auto& [bin, lib] : {std::pair{dir / "flat", dir / "flat"}, {dir / "usr" / "bin", dir / "usr" / "lib" / "winml-make"}}) {
    std::filesystem::create_directories(bin);
    std::filesystem::create_directories(lib);
    const std::filesystem::path exe = bin / std::filesystem::path(WINML_MAKE_BIN).filename();
    std::filesystem::copy_file(WINML_MAKE_BIN, exe);
    std::filesystem::copy_file(build / module, lib / module);
    const auto project = dir / ("project-" + bin.filename().string());
    std::filesystem::create_directories(project);
    std::filesystem::copy_file(std::filesystem::path(WINML_SOURCE_DIR) / "examples" / "quickstart" / "model.onnx",
                               project / "classifier.onnx");
    test::write_text(project / "winml.toml", "[model]\nsource = \"classifier.onnx\"\n");
    const std::map<std::string, std::string> env = {{"WINML_MAKE_CACHE_DIR", (dir / "cache").string()}};
    const auto built = test::run_program({exe.string()}, project, env);
    EXPECT_EQ(built.exit_code, 0) << bin << "\n" << built.out << built.err;
    const auto status = test::run_program({exe.string(), "status"}, project, env);
    EXPECT_EQ(status.exit_code, 0) << bin << "\n" << status.err;
    EXPECT_NE(status.out.find("everything is up to date"), std::string::npos) << status.out;
    const auto inspect = test::run_program({exe.string(), "inspect", "-m", "build/classifier/model.onnx"}, project, env);
    EXPECT_EQ(inspect.exit_code, 0) << bin << "\n" << inspect.err;
  }
}

// The no-op build pays for every library loaded at start-up: the shared
// cache's libraries are loaded only when a server is named, and the model
// tools with libonnx and libprotobuf only when a stage or model command runs.
// The loader lists the binary's libraries without running its main.
TEST(TwoHalves, TheBinaryLoadsNeitherTheCacheLibrariesNorOnnxAtStartUp) {
  if (!test::on_posix()) GTEST_SKIP() << "the listing is glibc's dynamic loader's (LD_TRACE_LOADED_OBJECTS)";
  const std::string command = "LD_TRACE_LOADED_OBJECTS=1 " + test::winml_make_binary().string();
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string listing;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) listing.append(buf, n);
  ASSERT_EQ(::pclose(pipe), 0) << listing;
  ASSERT_NE(listing.find("libc.so"), std::string::npos) << "the listing is not the loader's:\n" << listing;
  // libstdc++ is linked in (src/cli/CMakeLists.txt) where the compiler allows it.
  for (const char* absent : {"libcurl", "libcrypto", "libprotobuf", "libonnx", "winml-make-tools"})
    EXPECT_EQ(listing.find(absent), std::string::npos) << absent << " in:\n" << listing;
}
