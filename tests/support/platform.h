// What a test needs of the system it runs on, asked the same way on every
// system (tests/support/posix/platform.cpp, tests/support/windows/platform.cpp).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace winml::test {

// Whether this is a POSIX system (else Windows).
bool on_posix();

// Changes this process's environment (UTF-8), as seen by std::getenv and by
// base's environment_variable(s)() alike, and by the processes it starts.
// (Windows keeps no empty variable: setting one to "" removes it.)
void set_environment_variable(const std::string& name, const std::string& value);
void unset_environment_variable(const std::string& name);

// Variables set or removed for a scope, each put back as it was at its end.
class ScopedEnvironment {
 public:
  ScopedEnvironment() = default;
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;
  ~ScopedEnvironment();
  ScopedEnvironment& set(const std::string& name, const std::string& value);
  ScopedEnvironment& unset(const std::string& name);

 private:
  void save(const std::string& name);
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// Ends this process at once, as a kill does: no destructor, no atexit
// handler, no buffer flushed (POSIX: SIGKILL; Windows: TerminateProcess,
// exit code kKilledExitCode).
[[noreturn]] void kill_this_process();
inline constexpr int kKilledExitCode = 137;  // what a shell reports for SIGKILL
// For EXPECT_EXIT: the process ended as kill_this_process ends it.
bool killed(int exit_status);

// Whether `file` is mapped into this process's memory.
bool mapped_in_this_process(const std::filesystem::path& file);

// A shared library of the system's own that every installation has (and
// that is not ONNX Runtime): glibc's libm, Windows' kernel32.dll.
std::filesystem::path a_system_library();

// Makes `link` a symbolic link to `target`. False when this system, file
// system or user cannot (Windows: creating one needs Developer Mode or a
// privilege); `why` then says why.
bool make_symlink(const std::filesystem::path& target, const std::filesystem::path& link, std::string& why);

// Removes a file, read-only or not (a cache blob, or a hard link to one):
// Windows refuses to delete a file whose read-only attribute is set, so it
// is cleared first (for every link of the file).
void remove_file(const std::filesystem::path& path);

// A character device every installation has, that reads without end
// (POSIX: /dev/zero; Windows: \\.\NUL).
std::filesystem::path a_device();

// Makes a FIFO (a named pipe in the file system) at `path`. False where
// file systems have none (Windows: named pipes live in \\.\pipe\, not in
// a folder); `why` then says so.
bool make_fifo(const std::filesystem::path& path, std::string& why);

}  // namespace winml::test

// Skips the rest of a test where no symbolic link can be made.
#define WINML_MAKE_SYMLINK_OR_SKIP(target, link)                               \
  do {                                                                         \
    std::string why_no_symlink;                                                \
    if (!::winml::test::make_symlink((target), (link), why_no_symlink))        \
      GTEST_SKIP() << "no symbolic link can be made here: " << why_no_symlink; \
  } while (0)

// Skips the rest of a test where no FIFO can be made in the file system.
#define WINML_MAKE_FIFO_OR_SKIP(path)                                              \
  do {                                                                             \
    std::string why_no_fifo;                                                       \
    if (!::winml::test::make_fifo((path), why_no_fifo))                            \
      GTEST_SKIP() << "no FIFO can be made in a file system here: " << why_no_fifo; \
  } while (0)
