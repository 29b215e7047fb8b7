// The Debian package: cpack builds it from the install rules, dpkg installs
// it into a scratch root (its own database, a copy of this machine's, so that
// the dependencies dpkg-shlibdeps found are checked for real), and the
// installed binary builds the quickstart example, whose model.onnx stock ONNX
// Runtime runs with the installed plugin EP; then dpkg removes it.
#include <gtest/gtest.h>

#include "ort_ep/harness.h"
#include "support/cli_runner.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

std::string run_ok(const std::vector<std::string>& argv, const fs::path& cwd = {}) {
  auto r = test::run_program(argv, cwd);
  EXPECT_EQ(r.exit_code, 0) << argv[0] << " " << (argv.size() > 1 ? argv[1] : "") << ":\n" << r.out << r.err;
  return r.out;
}

}  // namespace

TEST(DebPackage, InstallsWithDpkgAndTheInstalledBinaryBuildsTheQuickstart) {
  test::TempDir dir;
  const fs::path pkg = dir / "pkg", root = dir / "root", admin = dir / "dpkg";
  run_ok({WINML_CPACK_COMMAND, "-G", "DEB", "-B", pkg.string(), "--config",
          std::string(WINML_BUILD_DIR) + "/CPackConfig.cmake"});
  fs::path deb;
  for (const auto& e : fs::directory_iterator(pkg))
    if (e.path().extension() == ".deb") deb = e.path();
  ASSERT_FALSE(deb.empty()) << "cpack wrote no .deb in " << pkg;

  const std::string info = run_ok({"dpkg-deb", "--field", deb.string(), "Package", "Depends"});
  EXPECT_NE(info.find("Package: winml-make"), std::string::npos) << info;
  EXPECT_NE(info.find("libprotobuf"), std::string::npos) << info;  // from dpkg-shlibdeps

  fs::create_directories(root);
  fs::create_directories(admin / "updates");
  fs::create_directories(admin / "info");
  fs::copy_file("/var/lib/dpkg/status", admin / "status");
  const std::vector<std::string> dpkg = {"dpkg",
                                         "--force-not-root",
                                         "--force-script-chrootless",
                                         "--admindir=" + admin.string(),
                                         "--instdir=" + root.string(),
                                         "--log=/dev/null"};
  auto with = [&](std::vector<std::string> args) {
    std::vector<std::string> argv = dpkg;
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  };
  run_ok(with({"--install", deb.string()}));
  const std::string listed = run_ok(with({"--listfiles", "winml-make"}));
  for (const char* f :
       {"/usr/bin/winml-make", "/usr/share/man/man1/winml-make.1.gz", "/usr/share/doc/winml-make/cli.md",
        "/usr/share/winml-make/rules", "/usr/share/bash-completion/completions/winml-make",
        "/usr/lib/winml-make/winml-make-tools.so", "/usr/lib/winml-make/libwinml_ref_ep.so"})
    EXPECT_NE(listed.find(f), std::string::npos) << f << " not in:\n" << listed;

  const fs::path installed = root / "usr/bin/winml-make";
  ASSERT_TRUE(fs::exists(installed));
  EXPECT_NE(run_ok({installed.string(), "--version"}).find("winml-make"), std::string::npos);
  // The installed manual page is the one the binary prints.
  const std::string page =
      run_ok({"sh", "-c", "gzip -dc '" + (root / "usr/share/man/man1/winml-make.1.gz").string() + "'"});
  EXPECT_EQ(page, run_ok({installed.string(), "man"}));

  fs::copy(test::source_dir() / "examples/quickstart", dir / "quickstart", fs::copy_options::recursive);
  fs::remove_all(dir / "quickstart/build");
  auto build = test::run_program(
      {installed.string(), "-C", (dir / "quickstart").string(), "--cache-dir", (dir / "cache").string()});
  ASSERT_EQ(build.exit_code, 0) << build.out << build.err;
  EXPECT_TRUE(fs::exists(dir / "quickstart/build"));
  bool artifact = false;
  for (const auto& e : fs::recursive_directory_iterator(dir / "quickstart/build"))
    artifact |= e.path().filename() == "model.onnx";
  EXPECT_TRUE(artifact) << build.out;
  // The installed plugin EP runs it in ONNX Runtime (its blob came from the installed binary).
  auto ort = test::run_program({WINML_ORT_HARNESS, "--ort", test::ort_library(test::OrtVersion::k1_29).string(),
                                "--plugin", (root / "usr/lib/winml-make/libwinml_ref_ep.so").string(), "--run",
                                (dir / "quickstart/build/quickstart/model.onnx").string(), (dir / "outputs").string()});
  EXPECT_EQ(ort.exit_code, 0) << ort.out << ort.err;

  run_ok(with({"--remove", "winml-make"}));
  EXPECT_FALSE(fs::exists(installed));
}
