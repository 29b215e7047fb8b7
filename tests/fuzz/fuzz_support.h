// Shared by the libFuzzer targets: a private scratch folder per process, and
// the rule every target enforces: a parser may refuse its input only with
// the tool's own errors (InputError, BuildError). Anything else escaping,
// a crash, a hang or a huge allocation is a bug that libFuzzer reports.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "base/error.h"

namespace winml::fuzz {

inline const std::filesystem::path& scratch() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("winml-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

inline void write(const std::filesystem::path& file, std::string_view bytes) {
  std::ofstream(file, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

template <class F>
void expecting_only_our_errors(F&& f) {
  try {
    f();
  } catch (const InputError&) {
  } catch (const BuildError&) {}
}

}  // namespace winml::fuzz
