// A libonnxruntime opened at run time, and its C API.
//
// The library is opened with dlopen the first time something asks for it
// (base/shared_library.h), never at start-up: ORT is 28-45 MB of code that a
// build not compiling through it must not pay for. Each library file is
// opened once per process, and two of them (1.29 and 1.30, say) can be open
// side by side: they are loaded RTLD_LOCAL, so neither binds the other's
// symbols.
//
// The API is asked for at this build's header version (ORT_API_VERSION, 29);
// a library too old for that is tried down to kOldestApi (1.23: the compile
// API's flags and the plugin-EP device API). Code calling functions newer
// than kOldestApi checks api_version() first.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <onnxruntime_c_api.h>

namespace winml::ort {

constexpr int kOldestApi = 23;

class Library {
 public:
  ~Library();
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  const OrtApi& api() const { return *api_; }
  const OrtCompileApi& compile_api() const;
  // As the library reports it: "1.29.0".
  const std::string& version() const { return version_; }
  int api_version() const { return api_version_; }
  // The path it was opened from, made absolute (symbolic links kept: the
  // name the user gave).
  const std::filesystem::path& path() const { return path_; }
  // The OrtEnv of this library, made on first use and kept for the process
  // (ORT keeps one per process, and plugin EP libraries registered in it
  // stay registered). Its log goes to the calling thread's LogScope.
  OrtEnv* env() const;

 private:
  friend const Library& load(const std::filesystem::path& path);
  Library() = default;
  struct Loaded;
  std::unique_ptr<Loaded> loaded_;
  const OrtApi* api_ = nullptr;
  int api_version_ = 0;
  std::string version_;
  std::filesystem::path path_;
};

// Opens `path` once per process (again: the same Library). InputError
// naming the path when the file is missing, does not load, has no
// OrtGetApiBase, or is older than ONNX Runtime 1.23.
const Library& load(const std::filesystem::path& path);

// The library scripts/fetch-ort.sh provides, the `ort` backend's default:
// <cache>/1.29.0/lib/libonnxruntime.so.1, where <cache> is $WINML_ORT_CACHE,
// else $XDG_CACHE_HOME/winml-make/ort, else $HOME/.cache/winml-make/ort.
std::filesystem::path default_library_path();
// What default_library_path() is, for messages: "ONNX Runtime 1.29.0 as
// scripts/fetch-ort.sh fetches it into $WINML_ORT_CACHE (/ci/ort)", naming
// the variable that chose the folder.
std::string default_library_origin();
// The environment variables default_library_path() reads.
const std::vector<std::string>& default_library_environment();
// The version of ORT default_library_path() holds.
constexpr const char* kDefaultVersion = "1.29.0";

// While alive, ORT's log messages (warnings and above) raised on this thread
// go to `sink`, one line each; without a scope they are dropped, errors
// excepted (stderr).
class LogScope {
 public:
  explicit LogScope(std::function<void(const std::string&)> sink);
  ~LogScope();
  LogScope(const LogScope&) = delete;
  LogScope& operator=(const LogScope&) = delete;

 private:
  std::function<void(const std::string&)> sink_;
  const std::function<void(const std::string&)>* previous_;
};

}  // namespace winml::ort
