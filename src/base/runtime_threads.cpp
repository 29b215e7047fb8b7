#include "base/runtime_threads.h"

#include <charconv>
#include <cstdlib>
#include <string>
#include <string_view>

#include "base/error.h"
#include "base/this_process.h"

namespace winml {

namespace {

int parse() {
  const std::string s = environment_variable("WINML_RUNTIME_THREADS").value_or("");
  if (s.empty()) return 0;
  int n = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || end != s.data() + s.size() || n < 1 || n > 1024)
    throw InputError("WINML_RUNTIME_THREADS=" + std::string(s) + ": expected a whole number from 1 to 1024");
  return n;
}

}  // namespace

int runtime_threads_override() {
  static const int n = parse();
  return n;
}

}  // namespace winml
