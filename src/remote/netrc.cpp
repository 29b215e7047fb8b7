#include "remote/netrc.h"

#include <vector>

namespace winml::remote {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The file's tokens; a quoted token may hold white space (curl 7.84 on).
// A `macdef` body (up to an empty line) is dropped.
std::vector<std::string> netrc_tokens(std::string_view text) {
  std::vector<std::string> tokens;
  std::size_t i = 0;
  while (i < text.size()) {
    if (is_space(text[i])) {
      ++i;
      continue;
    }
    std::string token;
    if (text[i] == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\' && i + 1 < text.size()) ++i;
        token += text[i];
      }
      ++i;
    } else {
      while (i < text.size() && !is_space(text[i])) token += text[i++];
    }
    if (token == "macdef") {
      const std::size_t end = text.find("\n\n", i);
      i = end == std::string_view::npos ? text.size() : end + 2;
      continue;
    }
    tokens.push_back(std::move(token));
  }
  return tokens;
}

}  // namespace

std::optional<NetrcLogin> netrc_login(std::string_view netrc_text, std::string_view host) {
  const std::vector<std::string> t = netrc_tokens(netrc_text);
  std::optional<NetrcLogin> found;
  bool in_match = false;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i] == "machine" || t[i] == "default") {
      if (found) return found;  // the entry that matched is complete
      in_match = t[i] == "default" || (i + 1 < t.size() && t[i + 1] == host);
      if (t[i] == "machine") ++i;
      if (in_match) found.emplace();
    } else if (in_match && (t[i] == "login" || t[i] == "password") && i + 1 < t.size()) {
      (t[i] == "login" ? found->login : found->password) = t[i + 1];
      ++i;
    } else if (t[i] == "account" || t[i] == "login" || t[i] == "password") {
      ++i;
    }
  }
  return found;
}

}  // namespace winml::remote
