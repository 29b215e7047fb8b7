#include "ort/library.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

#include "base/error.h"
#include "base/path_text.h"
#include "base/shared_library.h"
#include "base/system_names.h"
#include "base/this_process.h"
#include "ort/status.h"

namespace winml::ort {

namespace fs = std::filesystem;

namespace {

// A pointer, not an object: a thread-local with a destructor runs it at
// thread exit, which MinGW's emulated TLS may do after the variable's
// storage is freed.
thread_local const std::function<void(const std::string&)>* t_log_sink = nullptr;

void log_to_scope(void*, OrtLoggingLevel severity, const char* category, const char*, const char* where,
                  const char* message) {
  static const char* const kLevels[] = {"verbose", "info", "warning", "error", "fatal"};
  const int level = static_cast<int>(severity);
  std::string line = std::string("onnxruntime ") + (level >= 0 && level <= 4 ? kLevels[level] : "log") + ": " +
                     (message ? message : "");
  if (t_log_sink)
    (*t_log_sink)(line);
  else if (severity >= ORT_LOGGING_LEVEL_ERROR)
    std::fprintf(stderr, "%s\n", line.c_str());
}

}  // namespace

struct Library::Loaded {
  explicit Loaded(const fs::path& p) : library({to_utf8(p)}) {}
  SharedLibrary library;
  mutable std::once_flag env_once;
  mutable OrtEnv* env = nullptr;  // kept for the process, as the library is
};

Library::~Library() = default;

const OrtCompileApi& Library::compile_api() const {
  const OrtCompileApi* c = api_->GetCompileApi();
  if (!c) throw BuildError(to_utf8(path_) + ": ONNX Runtime " + version_ + " has no compile API");
  return *c;
}

OrtEnv* Library::env() const {
  std::call_once(loaded_->env_once, [&] {
    check_build(*api_,
                api_->CreateEnvWithCustomLogger(log_to_scope, nullptr, ORT_LOGGING_LEVEL_WARNING, "winml-make",
                                                &loaded_->env),
                to_utf8(path_) + ": cannot create ONNX Runtime's environment");
  });
  return loaded_->env;
}

const Library& load(const fs::path& path) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Library>> loaded;
  const fs::path absolute = fs::absolute(path).lexically_normal();
  std::error_code ec;
  fs::path real = fs::canonical(absolute, ec);
  std::lock_guard lock(mutex);
  if (ec) {
    if (fs::is_symlink(absolute, ec))
      throw InputError(file_error(to_utf8(absolute), "a symbolic link to a file that does not exist"));
    throw InputError(file_error(to_utf8(absolute), std::string("no such file (an ONNX Runtime library, ") +
                                                           system_names::kOrtLibraryKind + ")"));
  }
  if (auto it = loaded.find(to_utf8(real)); it != loaded.end()) return *it->second;

  auto lib = std::unique_ptr<Library>(new Library());
  lib->path_ = absolute;
  try {
    lib->loaded_ = std::make_unique<Library::Loaded>(absolute);
  } catch (const BuildError& e) {
    throw InputError(file_error(to_utf8(absolute), std::string("cannot be loaded as ONNX Runtime: ") + e.what()));
  }
  using GetApiBase = const OrtApiBase* (*)();
  GetApiBase get_base = nullptr;
  try {
    get_base = lib->loaded_->library.function<GetApiBase>("OrtGetApiBase");
  } catch (const BuildError&) {
    throw InputError(file_error(to_utf8(absolute), "is not ONNX Runtime (it has no OrtGetApiBase)"));
  }
  const OrtApiBase* base = get_base();
  lib->version_ = base && base->GetVersionString ? base->GetVersionString() : "";
  for (int v = ORT_API_VERSION; v >= kOldestApi && !lib->api_; --v) {
    lib->api_ = base ? base->GetApi(static_cast<uint32_t>(v)) : nullptr;
    if (lib->api_) lib->api_version_ = v;
  }
  if (!lib->api_)
    throw InputError(file_error(to_utf8(absolute), "ONNX Runtime " + lib->version_ +
                                                       " is too old: winml-make needs 1." +
                                                       std::to_string(kOldestApi) + " or newer"));
  return *loaded.emplace(to_utf8(real), std::move(lib)).first->second;
}

const std::vector<std::string>& default_library_environment() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = user_cache_home_variables();
    n.push_back("WINML_ORT_CACHE");
    std::sort(n.begin(), n.end());
    return n;
  }();
  return names;
}

fs::path default_library_path() {
  const std::string given = environment_variable("WINML_ORT_CACHE").value_or("");
  const fs::path cache = !given.empty() ? from_utf8(given) : from_utf8(user_cache_home()) / "winml-make" / "ort";
  return cache / kDefaultVersion / system_names::kOrtLibraryInCache;
}

std::string default_library_origin() {
  const std::string given = environment_variable("WINML_ORT_CACHE").value_or("");
  const std::string folder = !given.empty() ? "$WINML_ORT_CACHE (" + given + ")"
                                            : to_utf8(from_utf8(user_cache_home()) / "winml-make" / "ort") +
                                                  " ($WINML_ORT_CACHE is not set)";
  return std::string("ONNX Runtime ") + kDefaultVersion + " as scripts/fetch-ort.sh fetches it into " + folder;
}

LogScope::LogScope(std::function<void(const std::string&)> sink) : sink_(std::move(sink)), previous_(t_log_sink) {
  t_log_sink = sink_ ? &sink_ : nullptr;
}

LogScope::~LogScope() { t_log_sink = previous_; }

}  // namespace winml::ort
