// What HTTP clients share on every system: results in words and URLs. The
// transfers themselves are posix/http_client.cpp's and windows/http_client.cpp's.
#include "remote/http_client.h"

namespace winml::remote {

namespace {

// The authority part of a URL: between "://" and the next '/'.
std::string authority_of(const std::string& url) {
  const auto start = url.find("://");
  if (start == std::string::npos) return {};
  const auto from = start + 3;
  const auto end = url.find_first_of("/?#", from);
  return url.substr(from, end == std::string::npos ? std::string::npos : end - from);
}

}  // namespace

std::string HttpResult::describe() const {
  if (status == 0) return error.empty() ? "no answer" : error;
  return "HTTP " + std::to_string(status);
}

std::string redact_url(const std::string& url) {
  const std::string authority = authority_of(url);
  const auto at = authority.rfind('@');
  if (at == std::string::npos) return url;
  const auto start = url.find("://") + 3;
  return url.substr(0, start) + authority.substr(at + 1) + url.substr(start + authority.size());
}

bool url_has_credentials(const std::string& url) { return authority_of(url).find('@') != std::string::npos; }

bool is_loopback_url(const std::string& url) {
  std::string host = authority_of(url);
  if (const auto at = host.rfind('@'); at != std::string::npos) host = host.substr(at + 1);
  if (host.starts_with("[")) return host.starts_with("[::1]");
  host = host.substr(0, host.find(':'));
  if (host == "localhost") return true;
  // 127.0.0.0/8, written as a dotted quad: "127.0.0.1.example.com" is a name.
  int dots = 0;
  for (char c : host)
    if (c == '.') ++dots;
    else if (c < '0' || c > '9') return false;
  return dots == 3 && host.starts_with("127.");
}

}  // namespace winml::remote
