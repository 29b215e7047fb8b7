// Where the shared cache is and how to talk to it, from the command line,
// the environment and [build] remote_cache:
//
//   --remote-cache URL | WINML_MAKE_REMOTE_CACHE | [build] remote_cache   (first one set wins)
//   WINML_MAKE_REMOTE_CACHE_MODE       read-write (default) | read-only
//   WINML_MAKE_REMOTE_CACHE_TOKEN      bearer token
//   WINML_MAKE_REMOTE_CACHE_NAMESPACE  separates projects or branches on one server
//   WINML_MAKE_REMOTE_CACHE_TIMEOUT    seconds to connect, and of a stalled transfer (default 10 / 30)
//   WINML_MAKE_REMOTE_CACHE_CA, _CERT, _KEY   TLS: CA bundle, client certificate and key
//
// Basic auth comes from the URL (https://user:pass@host/...) or ~/.netrc.
// Credentials never go over plain http except to a loopback host.
#pragma once

#include <optional>
#include <string>

#include "remote/http_client.h"

namespace winml::remote {

enum class RemoteMode { kReadWrite, kReadOnly };

struct RemoteSettings {
  std::string url;  // base URL, without a trailing '/'
  RemoteMode mode = RemoteMode::kReadWrite;
  std::string name_space;
  HttpOptions http;
};

// Nothing when no URL is set. InputError for a URL that is not http(s), an
// unknown mode or timeout, or credentials that would go over plain http.
std::optional<RemoteSettings> resolve_remote_settings(const std::string& flag_url, const std::string& config_url);

}  // namespace winml::remote
