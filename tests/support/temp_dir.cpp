#include "support/temp_dir.h"

#include <cstdlib>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <sstream>

#include "base/native_file.h"
#include "base/this_process.h"

namespace winml::test {

namespace fs = std::filesystem;

TempDir::TempDir() : TempDir(fs::temp_directory_path()) {}

TempDir::TempDir(const fs::path& parent) {
  // A name no other process or thread makes (mkdtemp's guarantee, on every system).
  static std::atomic<unsigned> counter{0};
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  for (int attempt = 0; attempt < 100; ++attempt) {
    const fs::path p = parent / ("winml-test-" + std::to_string(current_process_id()) + "-" +
                                 std::to_string(counter++) + "-" + std::to_string(now % 100000));
    std::error_code ec;
    if (fs::create_directory(p, ec)) {
      path_ = p;
      return;
    }
  }
  throw std::runtime_error("cannot create a temporary directory in " + parent.string());
}

TempDir::~TempDir() { native::remove_tree(path_); }

void write_text(const fs::path& path, const std::string& text) {
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path memory_temp_dir() {
  std::error_code ec;
  return fs::is_directory("/dev/shm", ec) ? fs::path("/dev/shm") : fs::temp_directory_path();
}

fs::path source_dir() { return WINML_SOURCE_DIR; }
// WINML_TEST_MODELS in the environment: another export of them (an older
// exporter's, to show what a test would have said of it).
fs::path test_models_dir() {
  const char* dir = std::getenv("WINML_TEST_MODELS");
  return dir && *dir ? fs::path(dir) : fs::path(WINML_TEST_MODELS);
}
fs::path winml_make_binary() { return WINML_MAKE_BIN; }
fs::path test_command() { return WINML_TEST_COMMAND; }

fs::path exported_model(const std::string& name) {
  fs::path p = test_models_dir() / (name + ".onnx");
  if (!fs::exists(p)) ADD_FAILURE() << "missing exported model " << p << " (the fixture.export_models test makes it)";
  return p;
}

}  // namespace winml::test
