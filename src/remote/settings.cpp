#include "remote/settings.h"

#include <cstdlib>

#include "base/error.h"
#include "base/path_text.h"

namespace winml::remote {

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// Whole seconds from `low` to `high`, or InputError naming the variable.
long seconds_from(const char* variable, const std::string& text, long low, long high) {
  char* end = nullptr;
  const long seconds = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end || seconds < low || seconds > high)
    throw InputError(std::string(variable) + "='" + text + "': expected whole seconds from " + std::to_string(low) +
                     " to " + std::to_string(high));
  return seconds;
}

}  // namespace

std::optional<RemoteSettings> resolve_remote_settings(const std::string& flag_url, const RemoteConfig& config) {
  RemoteSettings s;
  s.url = !flag_url.empty()                         ? flag_url
          : !env("WINML_MAKE_REMOTE_CACHE").empty() ? env("WINML_MAKE_REMOTE_CACHE")
                                                    : config.url;
  if (s.url.empty()) return std::nullopt;
  while (s.url.ends_with("/")) s.url.pop_back();
  if (!s.url.starts_with("http://") && !s.url.starts_with("https://"))
    throw InputError("remote cache '" + redact_url(s.url) + "': expected an http:// or https:// URL");

  const std::string mode = env("WINML_MAKE_REMOTE_CACHE_MODE");
  if (mode == "read-only") s.mode = RemoteMode::kReadOnly;
  else if (!mode.empty() && mode != "read-write")
    throw InputError("WINML_MAKE_REMOTE_CACHE_MODE='" + mode + "': expected read-write or read-only");

  s.name_space = env("WINML_MAKE_REMOTE_CACHE_NAMESPACE");
  if (const std::string t = env("WINML_MAKE_REMOTE_CACHE_TIMEOUT"); !t.empty())
    s.http.connect_timeout_seconds = s.http.stall_seconds = seconds_from("WINML_MAKE_REMOTE_CACHE_TIMEOUT", t, 1, 3600);
  s.http.transfer_seconds = config.transfer_timeout_seconds;
  if (const std::string t = env("WINML_MAKE_REMOTE_CACHE_TRANSFER_TIMEOUT"); !t.empty())
    s.http.transfer_seconds = seconds_from("WINML_MAKE_REMOTE_CACHE_TRANSFER_TIMEOUT", t, 0, 86400);

  s.signing_key = from_utf8(env("WINML_MAKE_REMOTE_CACHE_SIGNING_KEY"));
  s.verify_key = from_utf8(env("WINML_MAKE_REMOTE_CACHE_VERIFY_KEY"));
  if (!s.signing_key.empty() && !s.verify_key.empty())
    throw InputError(
        "WINML_MAKE_REMOTE_CACHE_SIGNING_KEY and WINML_MAKE_REMOTE_CACHE_VERIFY_KEY are both set: a writer gives the "
        "signing key (it verifies with it too), a reader the verification key");
  // A reader's uploads would carry no signature that other readers accept.
  if (!s.verify_key.empty() && mode == "read-write")
    throw InputError(
        "WINML_MAKE_REMOTE_CACHE_MODE=read-write with WINML_MAKE_REMOTE_CACHE_VERIFY_KEY: a verification key only "
        "reads (nothing it uploads would carry a signature readers accept); a writer gives "
        "WINML_MAKE_REMOTE_CACHE_SIGNING_KEY instead, or unset WINML_MAKE_REMOTE_CACHE_MODE");
  if (!s.verify_key.empty()) s.mode = RemoteMode::kReadOnly;
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
