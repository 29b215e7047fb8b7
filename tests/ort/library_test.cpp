// ONNX Runtime opened at run time (src/ort/): the two libraries
// scripts/fetch-ort.sh provides, side by side in one process; clear input
// errors for paths that are not ORT; OrtStatus to InputError/BuildError.
#include <gtest/gtest.h>

#include <optional>

#include "base/error.h"
#include "base/path_text.h"
#include "base/system_names.h"
#include "ort/handle.h"
#include "ort/library.h"
#include "ort/status.h"
#include "support/platform.h"
#include "support/temp_dir.h"

namespace winml {
namespace {

namespace fs = std::filesystem;

const fs::path kOrt129 = WINML_ORT_LIBRARY_1_29;
const fs::path kOrt130 = WINML_ORT_LIBRARY_1_30;

template <class F>
std::string input_error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InputError";
  return "";
}

TEST(OrtLibrary, LoadsBothFetchedVersionsSideBySide) {
  const ort::Library& a = ort::load(kOrt129);
  const ort::Library& b = ort::load(kOrt130);
  EXPECT_EQ(a.version(), "1.29.0");
  EXPECT_EQ(b.version(), "1.30.0");
  EXPECT_EQ(a.api_version(), ORT_API_VERSION);
  EXPECT_EQ(b.api_version(), ORT_API_VERSION);  // a newer library serves older headers
  EXPECT_NE(&a.api(), &b.api());
  // Each works on its own: an environment, session options, the compile API.
  for (const ort::Library* lib : {&a, &b}) {
    ASSERT_NE(lib->env(), nullptr);
    ort::Handle<OrtSessionOptions> options(lib->api().ReleaseSessionOptions);
    ort::check(lib->api(), lib->api().CreateSessionOptions(options.out()), "session options");
    EXPECT_TRUE(options);
    ort::Handle<OrtModelCompilationOptions> compile(lib->compile_api().ReleaseModelCompilationOptions);
    ort::check(lib->api(),
               lib->compile_api().CreateModelCompilationOptionsFromSessionOptions(lib->env(), options.get(),
                                                                                  compile.out()),
               "compilation options");
    EXPECT_TRUE(compile);
  }
}

TEST(OrtLibrary, OpensEachFileOnce) {
  const ort::Library& a = ort::load(kOrt129);
  EXPECT_EQ(&a, &ort::load(kOrt129));
  // Another path to the same file is the same library.
  EXPECT_EQ(&a, &ort::load(kOrt129.parent_path() / ".." / kOrt129.parent_path().filename() / kOrt129.filename()));
  // So is the soname link beside it (Linux's layout).
  if (test::on_posix()) EXPECT_EQ(&a, &ort::load(kOrt129.parent_path() / "libonnxruntime.so"));
  EXPECT_EQ(a.env(), ort::load(kOrt129).env());
}

TEST(OrtLibrary, MissingFileIsAnInputErrorNamingIt) {
  test::TempDir dir;
  const std::string m = input_error_of([&] { ort::load(dir / "libonnxruntime.so.1"); });
  EXPECT_EQ(m.rfind(to_utf8((dir / "libonnxruntime.so.1")) + ": no such file", 0), 0u) << m;
}

TEST(OrtLibrary, ADanglingSymbolicLinkIsAnInputErrorSayingSo) {
  test::TempDir dir;
  WINML_MAKE_SYMLINK_OR_SKIP(dir / "gone.so", dir / "dangling.so");
  EXPECT_NE(input_error_of([&] { ort::load(dir / "dangling.so"); }).find("symbolic link"), std::string::npos);
}

TEST(OrtLibrary, AFileThatIsNotALibraryIsAnInputError) {
  test::TempDir dir;
  test::write_text(dir / "libonnxruntime.so.1", "not an ELF file\n");
  const std::string m = input_error_of([&] { ort::load(dir / "libonnxruntime.so.1"); });
  EXPECT_NE(m.find("cannot be loaded as ONNX Runtime"), std::string::npos) << m;
  EXPECT_EQ(m.rfind(to_utf8(dir.path()), 0), 0u) << m;
}

TEST(OrtLibrary, ALibraryThatIsNotOrtIsAnInputError) {
  // A real shared library without OrtGetApiBase: the C runtime's libm, or Windows' kernel32.dll.
  const fs::path library = test::a_system_library();
  ASSERT_TRUE(fs::exists(library)) << library;
  const std::string m = input_error_of([&] { ort::load(library); });
  EXPECT_NE(m.find("is not ONNX Runtime"), std::string::npos) << m;
}

TEST(OrtStatus, BadInputIsAnInputErrorAndFailuresBuildErrors) {
  const ort::Library& lib = ort::load(kOrt129);
  const OrtApi& api = lib.api();
  ort::Handle<OrtSessionOptions> options(api.ReleaseSessionOptions);
  ort::check(api, api.CreateSessionOptions(options.out()), "options");
  test::TempDir dir;
  ort::Handle<OrtSession> session(api.ReleaseSession);
  // A model file that is not there: ORT_NO_SUCHFILE.
  // (The path as ORT takes it: ORTCHAR_T, UTF-16 on Windows.)
  const fs::path missing = dir / "missing.onnx";
  std::string m = input_error_of([&] {
    ort::check(api, api.CreateSession(lib.env(), missing.c_str(), options.get(), session.out()), "missing.onnx");
  });
  EXPECT_EQ(m.rfind("missing.onnx: ", 0), 0u) << m;
  EXPECT_GT(m.size(), std::string("missing.onnx: ").size());
  // Bytes that are not a model: ORT_INVALID_PROTOBUF.
  test::write_text(dir / "bad.onnx", "\xff\xff\xff garbage");
  const fs::path bad = dir / "bad.onnx";
  m = input_error_of(
      [&] { ort::check(api, api.CreateSession(lib.env(), bad.c_str(), options.get(), session.out()), "bad.onnx"); });
  EXPECT_EQ(m.rfind("bad.onnx: ", 0), 0u) << m;
  // The same status through check_build: a BuildError, whatever its code.
  EXPECT_THROW(
      ort::check_build(api, api.CreateSession(lib.env(), bad.c_str(), options.get(), session.out()), "bad.onnx"),
      BuildError);
  // ORT's own failure code stays a build failure.
  EXPECT_THROW(ort::check(api, api.CreateStatus(ORT_FAIL, "boom"), "x"), BuildError);
  EXPECT_THROW(ort::check(api, api.CreateStatus(ORT_EP_FAIL, "boom"), "x"), BuildError);
  EXPECT_NO_THROW(ort::check(api, nullptr, "x"));
}

TEST(OrtLibrary, DefaultPathFollowsTheCacheVariables) {
  test::ScopedEnvironment env;
  for (const auto& name : ort::default_library_environment()) env.unset(name);
  const fs::path in_cache = from_utf8(system_names::kOrtLibraryInCache);
  if (test::on_posix()) {
    env.set("HOME", "/h");
    EXPECT_EQ(ort::default_library_path(), "/h/.cache/winml-make/ort/1.29.0/lib/libonnxruntime.so.1");
    env.set("XDG_CACHE_HOME", "/x");
    EXPECT_EQ(ort::default_library_path(), "/x/winml-make/ort/1.29.0/lib/libonnxruntime.so.1");
  } else {
    env.set("LOCALAPPDATA", "C:\\l");
    EXPECT_EQ(ort::default_library_path(), "C:\\l\\winml-make\\ort\\1.29.0\\win-x64\\onnxruntime.dll");
  }
  env.set("WINML_ORT_CACHE", "/o");
  EXPECT_EQ(ort::default_library_path(), fs::path("/o") / "1.29.0" / in_cache);
  // Read as UTF-8 whatever the system's code page.
  env.set("WINML_ORT_CACHE", "/\u00f6\u4e2d");
  EXPECT_EQ(ort::default_library_path(), from_utf8("/\u00f6\u4e2d") / "1.29.0" / in_cache);
}

}  // namespace
}  // namespace winml
