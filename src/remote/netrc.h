// Basic-auth credentials from a .netrc file, as curl reads one: the first
// `machine NAME` entry naming the host, else a `default` entry; `login` and
// `password` tokens in it, `account` and `macdef` bodies skipped. libcurl
// does this on POSIX; the Windows client (WinHTTP) reads the file itself.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace winml::remote {

struct NetrcLogin {
  std::string login, password;
};

std::optional<NetrcLogin> netrc_login(std::string_view netrc_text, std::string_view host);

}  // namespace winml::remote
