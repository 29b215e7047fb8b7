#include "base/glob_match.h"

#include <algorithm>
#include <set>

#include "base/path_text.h"

namespace winml {

bool glob_match(std::string_view p, std::string_view s) {
  if (p.empty()) return s.empty();
  if (p.starts_with("**")) {
    std::string_view rest = p.substr(2);
    if (rest.starts_with("/")) {
      // "**/x" also matches "x" at this level.
      if (glob_match(rest.substr(1), s)) return true;
    }
    for (std::size_t i = 0; i <= s.size(); ++i)
      if (glob_match(rest, s.substr(i))) return true;
    return false;
  }
  if (p[0] == '*') {
    for (std::size_t i = 0; i <= s.size(); ++i) {
      if (glob_match(p.substr(1), s.substr(i))) return true;
      if (i < s.size() && s[i] == '/') break;
    }
    return false;
  }
  if (s.empty()) return false;
  if (p[0] == '?') return s[0] != '/' && glob_match(p.substr(1), s.substr(1));
  return p[0] == s[0] && glob_match(p.substr(1), s.substr(1));
}

namespace {

// Whether `rel` or one of the folders it lies in matches.
bool matches_or_lies_in_match(std::string_view pattern, std::string_view rel) {
  for (std::size_t end = rel.find('/'); end != std::string_view::npos; end = rel.find('/', end + 1))
    if (glob_match(pattern, rel.substr(0, end))) return true;
  return glob_match(pattern, rel);
}

}  // namespace

std::vector<std::string> expand_glob(const std::filesystem::path& dir, std::string_view pattern) {
  namespace fs = std::filesystem;
  std::set<std::string> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return {};
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const std::string rel = to_utf8(it->path().lexically_relative(dir));
    if (matches_or_lies_in_match(pattern, rel)) out.insert(rel);
  }
  return {out.begin(), out.end()};
}

}  // namespace winml
