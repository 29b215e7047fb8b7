#include "base/toml_parse.h"

#include <sstream>

namespace winml {

toml::value parse_toml(const std::string& text, const std::string& origin) {
  std::istringstream in(text);
  return toml::parse(in, origin);
}

}  // namespace winml
