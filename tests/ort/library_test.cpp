// ONNX Runtime opened at run time (src/ort/): the two libraries
// scripts/fetch-ort.sh provides, side by side in one process; clear input
// errors for paths that are not ORT; OrtStatus to InputError/BuildError.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>

#include "base/error.h"
#include "ort/handle.h"
#include "ort/library.h"
#include "ort/status.h"
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
  // The soname link and the file it names are one library.
  EXPECT_EQ(&a, &ort::load(kOrt129.parent_path() / "libonnxruntime.so"));
  EXPECT_EQ(a.env(), ort::load(kOrt129).env());
}

TEST(OrtLibrary, MissingFileIsAnInputErrorNamingIt) {
  test::TempDir dir;
  const std::string m = input_error_of([&] { ort::load(dir / "libonnxruntime.so.1"); });
  EXPECT_EQ(m.rfind((dir / "libonnxruntime.so.1").string() + ": no such file", 0), 0u) << m;
  fs::create_symlink(dir / "gone.so", dir / "dangling.so");
  EXPECT_NE(input_error_of([&] { ort::load(dir / "dangling.so"); }).find("symbolic link"), std::string::npos);
}

TEST(OrtLibrary, AFileThatIsNotALibraryIsAnInputError) {
  test::TempDir dir;
  test::write_text(dir / "libonnxruntime.so.1", "not an ELF file\n");
  const std::string m = input_error_of([&] { ort::load(dir / "libonnxruntime.so.1"); });
  EXPECT_NE(m.find("cannot be loaded as ONNX Runtime"), std::string::npos) << m;
  EXPECT_EQ(m.rfind(dir.path().string(), 0), 0u) << m;
}

TEST(OrtLibrary, ALibraryThatIsNotOrtIsAnInputError) {
  // A real shared library without OrtGetApiBase: the runtime's own libm.
  const fs::path libm = "/lib/x86_64-linux-gnu/libm.so.6";
  ASSERT_TRUE(fs::exists(libm));
  const std::string m = input_error_of([&] { ort::load(libm); });
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
  const std::string missing = (dir / "missing.onnx").string();
  std::string m = input_error_of([&] {
    ort::check(api, api.CreateSession(lib.env(), missing.c_str(), options.get(), session.out()), "missing.onnx");
  });
  EXPECT_EQ(m.rfind("missing.onnx: ", 0), 0u) << m;
  EXPECT_GT(m.size(), std::string("missing.onnx: ").size());
  // Bytes that are not a model: ORT_INVALID_PROTOBUF.
  test::write_text(dir / "bad.onnx", "\xff\xff\xff garbage");
  const std::string bad = (dir / "bad.onnx").string();
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
  struct Restore {
    std::string name;
    std::optional<std::string> value;
    ~Restore() { value ? ::setenv(name.c_str(), value->c_str(), 1) : ::unsetenv(name.c_str()); }
  };
  std::vector<Restore> restore;
  for (const auto& name : ort::default_library_environment()) {
    const char* v = std::getenv(name.c_str());
    restore.push_back({name, v ? std::optional<std::string>(v) : std::nullopt});
  }
  ::setenv("HOME", "/h", 1);
  ::unsetenv("XDG_CACHE_HOME");
  ::unsetenv("WINML_ORT_CACHE");
  EXPECT_EQ(ort::default_library_path(), "/h/.cache/winml-make/ort/1.29.0/lib/libonnxruntime.so.1");
  ::setenv("XDG_CACHE_HOME", "/x", 1);
  EXPECT_EQ(ort::default_library_path(), "/x/winml-make/ort/1.29.0/lib/libonnxruntime.so.1");
  ::setenv("WINML_ORT_CACHE", "/o", 1);
  EXPECT_EQ(ort::default_library_path(), "/o/1.29.0/lib/libonnxruntime.so.1");
}

}  // namespace
}  // namespace winml
