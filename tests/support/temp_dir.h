// A fresh directory under $TMPDIR, removed with everything in it at scope exit.
#pragma once

#include <filesystem>
#include <string>

namespace winml::test {

class TempDir {
 public:
  TempDir();
  explicit TempDir(const std::filesystem::path& parent);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

void write_text(const std::filesystem::path& path, const std::string& text);
std::string read_text(const std::filesystem::path& path);

// /dev/shm where there is one (a memory file system), else $TMPDIR: for tests
// of many small builds, whose fsyncs are not what they test.
std::filesystem::path memory_temp_dir();

// Locations passed in by the build.
std::filesystem::path source_dir();
std::filesystem::path test_models_dir();
std::filesystem::path winml_make_binary();
// winml_test_command (support/test_command.cpp): steps a test's export
// command or compiler performs, the same on every system.
std::filesystem::path test_command();
// An exported model from the fixture (fails the test if it is missing).
std::filesystem::path exported_model(const std::string& name);

}  // namespace winml::test
