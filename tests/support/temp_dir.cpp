#include "support/temp_dir.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <sstream>

namespace winml::test {

namespace fs = std::filesystem;

TempDir::TempDir() : TempDir(fs::temp_directory_path()) {}

TempDir::TempDir(const fs::path& parent) {
  std::string tmpl = (parent / "winml-test-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

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
fs::path test_models_dir() { return WINML_TEST_MODELS; }
fs::path winml_make_binary() { return WINML_MAKE_BIN; }

fs::path exported_model(const std::string& name) {
  fs::path p = test_models_dir() / (name + ".onnx");
  if (!fs::exists(p)) ADD_FAILURE() << "missing exported model " << p << " (the fixture.export_models test makes it)";
  return p;
}

}  // namespace winml::test
