// Blocking HTTP transfers over one reused connection (a libcurl easy
// handle, posix/http_client.cpp; a WinHTTP session on Windows,
// windows/http_client.cpp): HEAD, streamed GET and PUT, bounded by a connect
// timeout and a stall timeout, so multi-GiB transfers on a slow link are not
// cut off while they make progress; a total limit per transfer is optional
// (a server that trickles just above the stall rate). Never follows
// redirects (credentials stay with the host they were given for).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

namespace winml::remote {

struct HttpOptions {
  long connect_timeout_seconds = 10;
  long stall_seconds = 30;    // below 1 KiB/s for this long: the transfer is cut off
  long transfer_seconds = 0;  // a whole transfer, however fast it moves; 0: no limit
  std::string bearer_token;   // sent as "Authorization: Bearer ..."
  bool use_netrc = false;     // basic auth from ~/.netrc (or $NETRC) when the URL has none
  std::string ca_file, client_cert, client_key;
  const std::atomic<bool>* abort = nullptr;  // set (Ctrl-C): transfers in flight stop
};

struct HttpResult {
  long status = 0;               // 0: no answer (connection refused, timeout, reset, ...)
  std::string error;             // what went wrong when status == 0, or the sink's refusal
  std::uint64_t bytes = 0;       // body bytes received or sent
  bool over_time_limit = false;  // cut off by HttpOptions::transfer_seconds
  bool ok() const { return status >= 200 && status < 300; }
  bool miss() const { return status == 404 || status == 204; }  // 204: nginx's answer to some misses
  // Worth retrying: no answer, a server error or "too many requests"; not
  // a transfer that used up its whole time (it would only again).
  bool transient() const { return !over_time_limit && (status == 0 || status >= 500 || status == 429); }
  std::string describe() const;  // "HTTP 413" or the transport error
};

class HttpClient {
 public:
  // InputError when `options` ask for what this system's client cannot do
  // (on Windows: a CA file or a client certificate from files).
  explicit HttpClient(const HttpOptions& options);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  HttpResult head(const std::string& url);
  // The body goes to `sink` chunk by chunk (only for a 2xx answer); the
  // sink returns false to abort the transfer.
  using Sink = std::function<bool(const char* data, std::size_t size)>;
  HttpResult get(const std::string& url, const Sink& sink);
  HttpResult put_file(const std::string& url, const std::filesystem::path& file);
  HttpResult put_bytes(const std::string& url, const std::string& body);

 private:
  struct Connection;  // this system's: a libcurl easy handle, or a WinHTTP session
  std::unique_ptr<Connection> connection_;
  HttpOptions options_;
};

// Whether the libraries a client needs (libcurl and OpenSSL's libcrypto;
// on Windows WinHTTP and BCrypt) load; otherwise `why` says which one did
// not and what the loader said.
bool http_libraries_available(std::string* why);

// The URL without user information, for messages and reports.
std::string redact_url(const std::string& url);
// Whether the URL names a loopback host (localhost, 127.x.x.x, [::1]).
bool is_loopback_url(const std::string& url);
bool url_has_credentials(const std::string& url);

}  // namespace winml::remote
