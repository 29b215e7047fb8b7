// Where the shared cache is and how to talk to it, from the command line,
// the environment and [build] remote_cache:
//
//   --remote-cache URL | WINML_MAKE_REMOTE_CACHE | [build] remote_cache   (first one set wins)
//   WINML_MAKE_REMOTE_CACHE_MODE       read-write (default) | read-only
//   WINML_MAKE_REMOTE_CACHE_TOKEN      bearer token
//   WINML_MAKE_REMOTE_CACHE_NAMESPACE  separates projects or branches on one server
//   WINML_MAKE_REMOTE_CACHE_TIMEOUT    seconds to connect, and of a stalled transfer (default 10 / 30)
//   WINML_MAKE_REMOTE_CACHE_TRANSFER_TIMEOUT | [build] remote_cache_transfer_timeout
//                                      seconds one transfer may take in all (default: no limit)
//   WINML_MAKE_REMOTE_CACHE_CA, _CERT, _KEY   TLS: CA bundle, client certificate and key
//   WINML_MAKE_REMOTE_CACHE_SIGNING_KEY  key file: sign uploads, accept only signed entries
//   WINML_MAKE_REMOTE_CACHE_VERIFY_KEY   key file: accept only signed entries, upload nothing
//
// Basic auth comes from the URL (https://user:pass@host/...) or ~/.netrc.
// Credentials never go over plain http except to a loopback host.
#pragma once

#include <filesystem>
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
  // Signed entries (entry_signature.h): paths only; the keys are read when
  // the cache is opened, and never printed.
  std::filesystem::path signing_key;  // signs uploads and verifies lookups
  std::filesystem::path verify_key;   // verifies lookups; implies read-only
};

// What winml.toml's [build] says about the shared cache.
struct RemoteConfig {
  std::string url;                    // remote_cache
  long transfer_timeout_seconds = 0;  // remote_cache_transfer_timeout; 0: none
};

// Nothing when no URL is set. InputError for a URL that is not http(s), an
// unknown mode or timeout, credentials that would go over plain http, or
// both a signing and a verification key.
std::optional<RemoteSettings> resolve_remote_settings(const std::string& flag_url, const RemoteConfig& config);

}  // namespace winml::remote
