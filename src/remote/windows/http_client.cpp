// HttpClient over WinHTTP, the HTTP client every Windows has (loaded on first
// use: system_libraries.h). WinHTTP runs asynchronously and this thread waits
// for each step in slices, so that what libcurl does with its progress
// callback and speed limits is done here the same way: the abort flag is seen
// within a slice, a transfer below 1 KiB/s for `stall_seconds` is cut off, and
// so is one over `transfer_seconds`; cutting off is closing the request
// handle, which WinHTTP ends with a last callback (HANDLE_CLOSING).
//
// What libcurl does and WinHTTP does not, done here: basic auth from the
// URL's user information and ~/.netrc, sent on the first request (WinHTTP
// would wait for a challenge); no redirect, cookie or Windows logon is ever
// used. What WinHTTP cannot do from files (a CA bundle, a client certificate
// and key) is refused when the client is made.
#include "remote/http_client.h"

#include <windows.h>
#include <winhttp.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <vector>

#include "base/atomic_file.h"
#include "base/error.h"
#include "base/native_file.h"
#include "base/path_text.h"
#include "base/this_process.h"
#include "base/windows/wide.h"
#include "remote/netrc.h"
#include "remote/windows/system_libraries.h"

namespace winml::remote {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::uint64_t kLowSpeedBytesPerSecond = 1024;  // as the POSIX client's CURLOPT_LOW_SPEED_LIMIT
constexpr auto kSlice = std::chrono::milliseconds(50);   // how often a wait looks at the flag and the clock
constexpr DWORD kReadBytes = 256 * 1024;
constexpr DWORD kMinWriteBytes = 4 * 1024, kMaxWriteBytes = 256 * 1024;
// How long a closed request may take to report its end (HANDLE_CLOSING)
// before the client goes on without it: a finished one, and one cut off in
// the middle of a step. Windows reports both at once; Wine 8 reports a cut-off
// one only when its pending socket operation ends, if ever.
constexpr auto kCloseWait = std::chrono::seconds(2);
constexpr auto kCutOffCloseWait = std::chrono::milliseconds(200);

// What WinHTTP's callbacks report about one request, shared with the thread
// that waits. Freed by whichever of the two lets go last: the waiter once it
// saw HANDLE_CLOSING, or else that last callback (the waiter having left it
// behind); never, if that callback never comes.
struct Completion {
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<int> refs{1};  // the waiter's
  bool done = false;         // the step waited for completed, or failed
  DWORD error = 0;           // its error (REQUEST_ERROR)
  DWORD bytes = 0;           // bytes read, written or available
  bool sending = false;      // the request reached a connection: a timeout is no longer the connect's
  bool closed = false;       // HANDLE_CLOSING: no callback comes after it
  bool left_behind = false;  // the waiter went on: HANDLE_CLOSING lets go for it
};

void release(Completion* c) {
  if (c->refs.fetch_sub(1) == 1) delete c;
}

void CALLBACK on_status(HINTERNET, DWORD_PTR context, DWORD status, LPVOID info, DWORD length) {
  auto* c = reinterpret_cast<Completion*>(context);
  if (!c) return;  // a handle of the session or the connection
  c->refs.fetch_add(1);
  bool release_for_waiter = false;
  {
    std::lock_guard<std::mutex> lock(c->mu);
    switch (status) {
      case WINHTTP_CALLBACK_STATUS_SENDING_REQUEST: c->sending = true; break;
      case WINHTTP_CALLBACK_STATUS_SENDREQUEST_COMPLETE:
      case WINHTTP_CALLBACK_STATUS_HEADERS_AVAILABLE:
        c->sending = true;
        c->done = true;
        break;
      case WINHTTP_CALLBACK_STATUS_DATA_AVAILABLE:
      case WINHTTP_CALLBACK_STATUS_WRITE_COMPLETE:
        c->bytes = info ? *static_cast<const DWORD*>(info) : 0;
        c->done = true;
        break;
      case WINHTTP_CALLBACK_STATUS_READ_COMPLETE:
        c->bytes = length;
        c->done = true;
        break;
      case WINHTTP_CALLBACK_STATUS_REQUEST_ERROR:
        c->error = info ? static_cast<const WINHTTP_ASYNC_RESULT*>(info)->dwError : ERROR_WINHTTP_INTERNAL_ERROR;
        if (c->error == 0) c->error = ERROR_WINHTTP_INTERNAL_ERROR;
        c->done = true;
        break;
      case WINHTTP_CALLBACK_STATUS_HANDLE_CLOSING:
        c->closed = true;
        c->done = true;
        release_for_waiter = c->left_behind;
        break;
      default: break;
    }
    c->cv.notify_all();
  }
  if (release_for_waiter) release(c);
  release(c);
}

std::string winhttp_error_text(DWORD code) {
  switch (code) {
    case ERROR_WINHTTP_CANNOT_CONNECT: return "could not connect to the server";
    case ERROR_WINHTTP_NAME_NOT_RESOLVED: return "could not resolve the host name";
    case ERROR_WINHTTP_CONNECTION_ERROR: return "the connection was reset or closed";
    case ERROR_WINHTTP_TIMEOUT: return "timed out";
    case ERROR_WINHTTP_SECURE_FAILURE:
      return "TLS: the server's certificate is not trusted by Windows or the handshake failed";
    case ERROR_WINHTTP_INVALID_SERVER_RESPONSE: return "the server's answer is not HTTP";
    case ERROR_WINHTTP_OPERATION_CANCELLED: return "cancelled";
    default: break;
  }
  wchar_t* buffer = nullptr;
  const DWORD n =
      FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_HMODULE | FORMAT_MESSAGE_FROM_SYSTEM |
                         FORMAT_MESSAGE_IGNORE_INSERTS,
                     system_libraries::winhttp().module, code, 0, reinterpret_cast<wchar_t*>(&buffer), 0, nullptr);
  std::string text = n ? windows::narrow(std::wstring_view(buffer, n)) : "";
  if (buffer) LocalFree(buffer);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ' || text.back() == '.'))
    text.pop_back();
  return text.empty() ? "error" : text;
}

// %XX escapes decoded (user information in a URL is escaped as curl expects it).
std::string percent_decoded(std::string_view s) {
  auto nibble = [](char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
  };
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && nibble(s[i + 1]) >= 0 && nibble(s[i + 2]) >= 0) {
      out += static_cast<char>(nibble(s[i + 1]) * 16 + nibble(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string base64(std::string_view bytes) {
  static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = static_cast<unsigned char>(bytes[i]) << 16 | static_cast<unsigned char>(bytes[i + 1]) << 8 |
                       static_cast<unsigned char>(bytes[i + 2]);
    out += alphabet[v >> 18], out += alphabet[(v >> 12) & 63], out += alphabet[(v >> 6) & 63], out += alphabet[v & 63];
  }
  if (i + 1 == bytes.size()) {
    const unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    out += alphabet[v >> 18], out += alphabet[(v >> 12) & 63], out += "==";
  } else if (i + 2 == bytes.size()) {
    const unsigned v = static_cast<unsigned char>(bytes[i]) << 16 | static_cast<unsigned char>(bytes[i + 1]) << 8;
    out += alphabet[v >> 18], out += alphabet[(v >> 12) & 63], out += alphabet[(v >> 6) & 63], out += '=';
  }
  return out;
}

// ~/.netrc as curl looks for it on Windows: $NETRC, else .netrc then _netrc
// in %HOME%, then in %USERPROFILE%.
std::optional<NetrcLogin> netrc_login_for(const std::string& host) {
  std::vector<std::filesystem::path> files;
  if (const auto netrc = environment_variable("NETRC"); netrc && !netrc->empty()) {
    files.push_back(from_utf8(*netrc));
  } else {
    for (const char* home : {"HOME", "USERPROFILE"})
      if (const auto dir = environment_variable(home); dir && !dir->empty())
        for (const char* name : {".netrc", "_netrc"}) files.push_back(from_utf8(*dir) / name);
  }
  for (const auto& file : files) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) continue;
    try {
      return netrc_login(read_file(file), host);
    } catch (const std::exception&) {
      return std::nullopt;  // unreadable: as curl, no credentials from it
    }
  }
  return std::nullopt;
}

struct ParsedUrl {
  bool https = false;
  std::wstring host;
  INTERNET_PORT port = 0;
  std::wstring path;  // with the query
  std::string user, password;
  bool has_user = false;
};

std::optional<ParsedUrl> parse_url(const std::string& url) {
  const std::wstring wide = windows::widen(url);
  URL_COMPONENTS parts{};
  parts.dwStructSize = sizeof parts;
  parts.dwSchemeLength = parts.dwHostNameLength = parts.dwUserNameLength = parts.dwPasswordLength =
      parts.dwUrlPathLength = parts.dwExtraInfoLength = static_cast<DWORD>(-1);
  if (!system_libraries::winhttp().crack_url(wide.c_str(), static_cast<DWORD>(wide.size()), 0, &parts))
    return std::nullopt;
  ParsedUrl u;
  u.https = parts.nScheme == INTERNET_SCHEME_HTTPS;
  u.host.assign(parts.lpszHostName, parts.dwHostNameLength);
  u.port = parts.nPort;
  u.path.assign(parts.lpszUrlPath, parts.dwUrlPathLength);
  if (parts.lpszExtraInfo) u.path.append(parts.lpszExtraInfo, parts.dwExtraInfoLength);
  if (u.path.empty()) u.path = L"/";
  if (parts.lpszUserName && parts.dwUserNameLength > 0) {
    u.has_user = true;
    u.user = percent_decoded(windows::narrow(std::wstring_view(parts.lpszUserName, parts.dwUserNameLength)));
    if (parts.lpszPassword)
      u.password = percent_decoded(windows::narrow(std::wstring_view(parts.lpszPassword, parts.dwPasswordLength)));
  }
  return u;
}

// Why a transfer was cut off by this side.
enum class Cut { kNone, kAbort, kConnectTimeout, kStall, kTimeLimit };

}  // namespace

struct HttpClient::Connection {
  HINTERNET session = nullptr;
  HINTERNET connect = nullptr;  // to host:port below, reused while requests go there
  std::wstring host;
  INTERNET_PORT port = 0;
  DWORD write_bytes = 64 * 1024;  // the size of the next upload step, adapted to the link's speed
  std::vector<char> buffer = std::vector<char>(kReadBytes);
};

namespace {

// One request: its handle, its callbacks' state, its clocks.
class Request {
 public:
  Request(const HttpOptions& options, const HttpClient::Sink* sink)
      : api_(system_libraries::winhttp()), options_(options), sink_(sink), start_(Clock::now()) {}
  ~Request() { close(); }

  // Opens `verb` on `url` through `*connect`, made anew when the URL names
  // another host or port than `*connected_host` and `*connected_port`.
  bool open(HINTERNET session, HINTERNET* connect, std::wstring* connected_host, INTERNET_PORT* connected_port,
            const wchar_t* verb, const std::string& url, HttpResult& r) {
    const auto u = parse_url(url);
    if (!u) {
      r.error = "malformed URL " + redact_url(url);
      return false;
    }
    host_ = windows::narrow(u->host);
    port_ = u->port;
    if (!*connect || *connected_host != u->host || *connected_port != u->port) {
      if (*connect) api_.close_handle(*connect);
      *connect = api_.connect(session, u->host.c_str(), u->port, 0);
      *connected_host = u->host;
      *connected_port = u->port;
      if (!*connect) return failed(r, GetLastError());
    }
    // Sent as given: the URL is already escaped (hex digests, the user's base URL).
    const DWORD flags =
        WINHTTP_FLAG_ESCAPE_DISABLE | WINHTTP_FLAG_ESCAPE_DISABLE_QUERY | (u->https ? WINHTTP_FLAG_SECURE : 0);
    request_ = api_.open_request(*connect, verb, u->path.c_str(), nullptr, WINHTTP_NO_REFERER,
                                 WINHTTP_DEFAULT_ACCEPT_TYPES, flags);
    if (!request_) return failed(r, GetLastError());
    completion_ = new Completion;
    DWORD_PTR context = reinterpret_cast<DWORD_PTR>(completion_);
    if (!api_.set_option(request_, WINHTTP_OPTION_CONTEXT_VALUE, &context, sizeof context)) {
      const DWORD e = GetLastError();
      api_.close_handle(request_);  // no callback carries the context yet
      request_ = nullptr;
      release(completion_);
      completion_ = nullptr;
      return failed(r, e);
    }
    // Never the user's Windows logon (NTLM, Kerberos) to a server that asks for it.
    DWORD logon = WINHTTP_AUTOLOGON_SECURITY_LEVEL_HIGH;
    api_.set_option(request_, WINHTTP_OPTION_AUTOLOGON_POLICY, &logon, sizeof logon);
    DWORD disabled = WINHTTP_DISABLE_REDIRECTS | WINHTTP_DISABLE_COOKIES;
    api_.set_option(request_, WINHTTP_OPTION_DISABLE_FEATURE, &disabled, sizeof disabled);

    // Credentials as the POSIX client sends them: a token wins over the
    // URL's user, which wins over ~/.netrc; all on the first request.
    if (!options_.bearer_token.empty()) {
      headers_ += L"Authorization: Bearer " + windows::widen(options_.bearer_token) + L"\r\n";
    } else {
      std::optional<NetrcLogin> login;
      if (u->has_user) login = NetrcLogin{u->user, u->password};
      else if (options_.use_netrc) login = netrc_login_for(host_);
      if (login)
        headers_ += L"Authorization: Basic " + windows::widen(base64(login->login + ":" + login->password)) + L"\r\n";
    }
    return true;
  }

  void add_header(const wchar_t* line) { headers_ += line; }

  // Sends the request line and headers, and `body` with them when given.
  bool send(std::uint64_t total_length, const std::string* body, HttpResult& r) {
    if (total_length > 0xFFFFFFFFull) {
      // Over 4 GiB: WinHTTP takes the length from this header instead.
      headers_ += L"Content-Length: " + std::to_wstring(total_length) + L"\r\n";
      total_length = WINHTTP_IGNORE_REQUEST_TOTAL_LENGTH;
    }
    const wchar_t* headers = headers_.empty() ? WINHTTP_NO_ADDITIONAL_HEADERS : headers_.c_str();
    const DWORD headers_size = headers_.empty() ? 0 : static_cast<DWORD>(-1L);  // -1: up to the NUL
    void* data = body ? const_cast<char*>(body->data()) : WINHTTP_NO_REQUEST_DATA;
    const DWORD data_size = body ? static_cast<DWORD>(body->size()) : 0;
    const auto context = reinterpret_cast<DWORD_PTR>(completion_);
    if (!step(r, [&] {
          return api_.send_request(request_, headers, headers_size, data, data_size, static_cast<DWORD>(total_length),
                                   context);
        }))
      return false;
    progress(data_size);
    return true;
  }

  // Streams `size` bytes of the open file `fd` as the request's body.
  bool write_file(int fd, std::uint64_t size, DWORD* write_bytes, std::vector<char>& buffer, HttpResult& r) {
    std::uint64_t sent = 0;
    while (sent < size) {
      const DWORD want =
          static_cast<DWORD>(size - sent < *write_bytes ? size - sent : static_cast<std::uint64_t>(*write_bytes));
      if (buffer.size() < want) buffer.resize(want);
      const long long n = native::read(fd, buffer.data(), want);
      if (n <= 0) {
        r.error = "the file to upload changed while it was sent";
        return false;
      }
      const auto began = Clock::now();
      if (!step(r, [&] { return api_.write_data(request_, buffer.data(), static_cast<DWORD>(n), nullptr); }))
        return false;
      progress(static_cast<std::uint64_t>(n));
      sent += static_cast<std::uint64_t>(n);
      // Steps long enough to cost little per byte on a fast link, short
      // enough that a slow one shows progress within each stall window.
      const auto took = Clock::now() - began;
      if (took < std::chrono::milliseconds(20) && *write_bytes < kMaxWriteBytes) *write_bytes *= 2;
      else if (took > std::chrono::milliseconds(250) * options_.stall_seconds && *write_bytes > kMinWriteBytes)
        *write_bytes /= 2;
    }
    return true;
  }

  // Waits for the answer's status line and headers; its status into `r`.
  bool receive(HttpResult& r) {
    if (!step(r, [&] { return api_.receive_response(request_, nullptr); })) return false;
    DWORD status = 0, size = sizeof status;
    if (!api_.query_headers(request_, WINHTTP_QUERY_STATUS_CODE | WINHTTP_QUERY_FLAG_NUMBER,
                            WINHTTP_HEADER_NAME_BY_INDEX, &status, &size, WINHTTP_NO_HEADER_INDEX))
      return failed(r, GetLastError());
    status_ = static_cast<long>(status);
    return true;
  }

  // Reads the body: into the sink for a 2xx answer, else dropped (an error
  // page is not content; reading it keeps the connection for the next request).
  bool read_body(std::vector<char>& buffer, HttpResult& r) {
    const bool wanted = sink_ && status_ >= 200 && status_ < 300;
    for (;;) {
      if (!step(r, [&] { return api_.query_data_available(request_, nullptr); })) return false;
      DWORD available = completion_->bytes;
      if (available == 0) return true;
      if (available > buffer.size()) available = static_cast<DWORD>(buffer.size());
      if (!step(r, [&] { return api_.read_data(request_, buffer.data(), available, nullptr); })) return false;
      const DWORD n = completion_->bytes;
      if (n == 0) return true;
      progress(n);
      if (wanted) {
        if (!(*sink_)(buffer.data(), n)) {
          r.error = "download refused";
          return false;
        }
        r.bytes += n;
      }
    }
  }

  long status() const { return status_; }

  // Ends the request and waits a moment for WinHTTP's last callback about
  // it; without it the callback state is left for that callback to free.
  void close(std::chrono::milliseconds wait = kCloseWait) {
    if (!request_) return;
    api_.close_handle(request_);
    request_ = nullptr;
    std::unique_lock<std::mutex> lock(completion_->mu);
    const bool closed = completion_->cv.wait_for(lock, wait, [this] { return completion_->closed; });
    if (!closed) completion_->left_behind = true;
    lock.unlock();
    if (closed) release(completion_);
    completion_ = nullptr;
  }

 private:
  // Starts one asynchronous step and waits for it to complete, looking at
  // the abort flag and the clocks in between. False when it failed or was
  // cut off, with `r.error` saying why.
  template <class Start>
  bool step(HttpResult& r, Start start) {
    {
      std::lock_guard<std::mutex> lock(completion_->mu);
      completion_->done = false;
      completion_->error = 0;
      completion_->bytes = 0;
    }
    if (const Cut cut = check(); cut != Cut::kNone) return cut_off(r, cut);
    // The callback may run inside the call, on this thread: no lock held here.
    if (!start()) return failed(r, GetLastError());
    std::unique_lock<std::mutex> lock(completion_->mu);
    while (!completion_->done) {
      completion_->cv.wait_for(lock, kSlice);
      if (completion_->done) break;
      sending_ = completion_->sending;
      if (const Cut cut = check(); cut != Cut::kNone) {
        lock.unlock();
        return cut_off(r, cut);
      }
    }
    sending_ = completion_->sending;
    if (completion_->error) {
      const DWORD e = completion_->error;
      lock.unlock();
      return failed(r, e);
    }
    return true;
  }

  void progress(std::uint64_t bytes) { window_bytes_ += bytes, transferred_ += bytes; }

  // Whether to cut the transfer off now. The stall window starts once the
  // request reached a connection (before that, the connect timeout applies).
  Cut check() {
    const auto now = Clock::now();
    if (options_.abort && options_.abort->load()) return Cut::kAbort;
    if (options_.transfer_seconds > 0 && now - start_ >= std::chrono::seconds(options_.transfer_seconds))
      return Cut::kTimeLimit;
    if (!sending_) {
      if (now - start_ >= std::chrono::seconds(options_.connect_timeout_seconds)) return Cut::kConnectTimeout;
      return Cut::kNone;
    }
    if (!window_started_) {
      window_started_ = true;
      window_start_ = now;
      window_bytes_ = 0;
    }
    if (options_.stall_seconds > 0 && now - window_start_ >= std::chrono::seconds(options_.stall_seconds)) {
      if (window_bytes_ < kLowSpeedBytesPerSecond * static_cast<std::uint64_t>(options_.stall_seconds))
        return Cut::kStall;
      window_start_ = now;
      window_bytes_ = 0;
    }
    return Cut::kNone;
  }

  bool cut_off(HttpResult& r, Cut cut) {
    const long long ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start_).count();
    switch (cut) {
      case Cut::kAbort: r.error = "transfer aborted"; break;
      case Cut::kConnectTimeout: r.error = "Connection timed out after " + std::to_string(ms) + " milliseconds"; break;
      case Cut::kStall:
        r.error = "Operation too slow. Less than " + std::to_string(kLowSpeedBytesPerSecond) +
                  " bytes/sec transferred the last " + std::to_string(options_.stall_seconds) + " seconds";
        break;
      case Cut::kTimeLimit:
        r.error = "Operation timed out after " + std::to_string(ms) + " milliseconds with " +
                  std::to_string(transferred_) + " bytes transferred (the limit of " +
                  std::to_string(options_.transfer_seconds) + " s per transfer)";
        r.over_time_limit = true;
        break;
      case Cut::kNone: break;
    }
    close(kCutOffCloseWait);
    return false;
  }

  bool failed(HttpResult& r, DWORD code) {
    if (code == ERROR_WINHTTP_TIMEOUT && !sending_) {
      r.error = "Connection timed out after " +
                std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start_).count()) +
                " milliseconds";
    } else if (code == ERROR_WINHTTP_TIMEOUT) {
      r.error = "Operation too slow. Less than " + std::to_string(kLowSpeedBytesPerSecond) +
                " bytes/sec transferred the last " + std::to_string(options_.stall_seconds) + " seconds";
    } else {
      r.error = (code == ERROR_WINHTTP_CANNOT_CONNECT || code == ERROR_WINHTTP_NAME_NOT_RESOLVED
                     ? "Failed to connect to " + host_ + " port " + std::to_string(port_) + ": "
                     : std::string()) +
                winhttp_error_text(code) + " (WinHTTP error " + std::to_string(code) + ")";
    }
    return false;
  }

  const system_libraries::WinHttp& api_;
  const HttpOptions& options_;
  const HttpClient::Sink* sink_;
  HINTERNET request_ = nullptr;
  Completion* completion_ = nullptr;
  std::wstring headers_;
  std::string host_;
  INTERNET_PORT port_ = 0;
  long status_ = 0;
  bool sending_ = false;
  const Clock::time_point start_;
  bool window_started_ = false;
  Clock::time_point window_start_;
  std::uint64_t window_bytes_ = 0, transferred_ = 0;
};

}  // namespace

HttpClient::HttpClient(const HttpOptions& options) : options_(options) {
  if (!options_.ca_file.empty())
    throw InputError(
        "WINML_MAKE_REMOTE_CACHE_CA: a CA file is not supported on Windows, where the shared cache's client "
        "(WinHTTP) trusts the certificates of the Windows certificate store: import the CA there (certutil "
        "-addstore Root <file>, as administrator) and unset the variable");
  if (!options_.client_cert.empty() || !options_.client_key.empty())
    throw InputError(
        "WINML_MAKE_REMOTE_CACHE_CERT/_KEY: a client certificate from files is not supported on Windows "
        "(WinHTTP); authenticate with WINML_MAKE_REMOTE_CACHE_TOKEN or the URL's user and password instead");
  const auto& api = system_libraries::winhttp();
  connection_ = std::make_unique<Connection>();
  connection_->session = api.open(L"winml-make", WINHTTP_ACCESS_TYPE_DEFAULT_PROXY, WINHTTP_NO_PROXY_NAME,
                                  WINHTTP_NO_PROXY_BYPASS, WINHTTP_FLAG_ASYNC);
  if (!connection_->session) throw BuildError("WinHTTP: cannot open a session: " + winhttp_error_text(GetLastError()));
  // WinHTTP's own limits, behind this side's (which cut off first): the
  // name lookup and the connection as the connect timeout; a send or a
  // receive that waits longer than the stall timeout.
  const int connect_ms = static_cast<int>(options_.connect_timeout_seconds * 1000);
  const int stall_ms = static_cast<int>((options_.stall_seconds + 5) * 1000);
  api.set_timeouts(connection_->session, connect_ms, connect_ms, stall_ms, stall_ms);
  DWORD redirects = WINHTTP_OPTION_REDIRECT_POLICY_NEVER;
  api.set_option(connection_->session, WINHTTP_OPTION_REDIRECT_POLICY, &redirects, sizeof redirects);
  api.set_status_callback(
      connection_->session, on_status,
      WINHTTP_CALLBACK_FLAG_ALL_COMPLETIONS | WINHTTP_CALLBACK_FLAG_HANDLES | WINHTTP_CALLBACK_FLAG_SEND_REQUEST, 0);
}

HttpClient::~HttpClient() {
  const auto& api = system_libraries::winhttp();
  if (connection_->connect) api.close_handle(connection_->connect);
  api.close_handle(connection_->session);
}

HttpResult HttpClient::head(const std::string& url) {
  HttpResult r;
  Connection& c = *connection_;
  Request q(options_, nullptr);
  if (q.open(c.session, &c.connect, &c.host, &c.port, L"HEAD", url, r) && q.send(0, nullptr, r) && q.receive(r))
    r.status = q.status();
  return r;
}

HttpResult HttpClient::get(const std::string& url, const Sink& sink) {
  HttpResult r;
  Connection& c = *connection_;
  Request q(options_, &sink);
  if (q.open(c.session, &c.connect, &c.host, &c.port, L"GET", url, r) && q.send(0, nullptr, r) && q.receive(r) &&
      q.read_body(c.buffer, r))
    r.status = q.status();
  return r;
}

HttpResult HttpClient::put_file(const std::string& url, const std::filesystem::path& file) {
  HttpResult r;
  const int fd = native::open_read(file);
  if (fd < 0) return {0, "cannot read " + to_utf8(file)};
  const std::uint64_t size = native::status(fd).size;
  Connection& c = *connection_;
  {
    Request q(options_, nullptr);
    if (q.open(c.session, &c.connect, &c.host, &c.port, L"PUT", url, r) && q.send(size, nullptr, r) &&
        q.write_file(fd, size, &c.write_bytes, c.buffer, r) && q.receive(r) && q.read_body(c.buffer, r))
      r.status = q.status();
  }
  native::close(fd);
  if (r.ok()) r.bytes = size;
  return r;
}

HttpResult HttpClient::put_bytes(const std::string& url, const std::string& body) {
  HttpResult r;
  Connection& c = *connection_;
  Request q(options_, nullptr);
  if (q.open(c.session, &c.connect, &c.host, &c.port, L"PUT", url, r)) {
    q.add_header(L"Content-Type: application/octet-stream\r\n");
    if (q.send(body.size(), &body, r) && q.receive(r) && q.read_body(c.buffer, r)) r.status = q.status();
  }
  if (r.ok()) r.bytes = body.size();
  return r;
}

bool http_libraries_available(std::string* why) { return system_libraries::available(why); }

}  // namespace winml::remote
