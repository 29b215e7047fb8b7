#include "tools/dim_flags.h"

#include <charconv>

#include "base/error.h"

namespace winml::tools {

std::map<std::string, std::int64_t> parse_dim_flags(const std::vector<std::string>& flags) {
  std::map<std::string, std::int64_t> dims;
  for (const auto& flag : flags) {
    const auto eq = flag.find('=');
    std::int64_t value = -1;
    const char* end = flag.data() + flag.size();
    bool ok = eq != std::string::npos && eq > 0;
    if (ok) {
      auto [ptr, ec] = std::from_chars(flag.data() + eq + 1, end, value);
      ok = ec == std::errc() && ptr == end && value >= 0;
    }
    if (!ok) throw InputError("--dim '" + flag + "': expected NAME=VALUE with a non-negative integer VALUE");
    dims[flag.substr(0, eq)] = value;
  }
  return dims;
}

}  // namespace winml::tools
