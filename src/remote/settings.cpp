#include "remote/settings.h"

#include <cstdlib>

#include "base/error.h"

namespace winml::remote {

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

std::optional<RemoteSettings> resolve_remote_settings(const std::string& flag_url, const std::string& config_url) {
  RemoteSettings s;
  s.url = !flag_url.empty()                         ? flag_url
          : !env("WINML_MAKE_REMOTE_CACHE").empty() ? env("WINML_MAKE_REMOTE_CACHE")
                                                    : config_url;
  if (s.url.empty()) return std::nullopt;
  while (s.url.ends_with("/")) s.url.pop_back();
  if (!s.url.starts_with("http://") && !s.url.starts_with("https://"))
    throw InputError("remote cache '" + redact_url(s.url) + "': expected an http:// or https:// URL");

  const std::string mode = env("WINML_MAKE_REMOTE_CACHE_MODE");
  if (mode == "read-only") s.mode = RemoteMode::kReadOnly;
  else if (!mode.empty() && mode != "read-write")
    throw InputError("WINML_MAKE_REMOTE_CACHE_MODE='" + mode + "': expected read-write or read-only");

  s.name_space = env("WINML_MAKE_REMOTE_CACHE_NAMESPACE");
  if (const std::string t = env("WINML_MAKE_REMOTE_CACHE_TIMEOUT"); !t.empty()) {
    char* end = nullptr;
    const long seconds = std::strtol(t.c_str(), &end, 10);
    if (*end || seconds < 1 || seconds > 3600)
      throw InputError("WINML_MAKE_REMOTE_CACHE_TIMEOUT='" + t + "': expected whole seconds from 1 to 3600");
    s.http.connect_timeout_seconds = s.http.stall_seconds = seconds;
  }
  s.http.bearer_token = env("WINML_MAKE_REMOTE_CACHE_TOKEN");
  s.http.ca_file = env("WINML_MAKE_REMOTE_CACHE_CA");
  s.http.client_cert = env("WINML_MAKE_REMOTE_CACHE_CERT");
  s.http.client_key = env("WINML_MAKE_REMOTE_CACHE_KEY");

  const bool plain = s.url.starts_with("http://") && !is_loopback_url(s.url);
  if (plain && (url_has_credentials(s.url) || !s.http.bearer_token.empty()))
    throw InputError("remote cache " + redact_url(s.url) +
                     ": refusing to send credentials over plain http to a host that is not loopback; use https");
  // ~/.netrc may hold a password for that host: never over plain http either.
  s.http.use_netrc = !plain;
  return s;
}

}  // namespace winml::remote
