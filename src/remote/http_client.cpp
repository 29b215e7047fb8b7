#include "remote/http_client.h"

#include "remote/crypto_api.h"
#include "remote/curl_api.h"

#include <cstdio>
#include <new>

namespace winml::remote {

namespace {

CURL* as_curl(void* p) { return static_cast<CURL*>(p); }

struct GetState {
  const HttpClient::Sink* sink;
  CURL* curl;
  std::uint64_t bytes = 0;
  bool refused = false;
};

size_t on_get_data(char* data, size_t size, size_t n, void* user) {
  auto* s = static_cast<GetState*>(user);
  long status = 0;
  curl_api().easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &status);
  // Error pages are not content: drop them, keep the status.
  if (status < 200 || status >= 300) return size * n;
  if (!(*s->sink)(data, size * n)) {
    s->refused = true;
    return 0;  // aborts the transfer
  }
  s->bytes += size * n;
  return size * n;
}

size_t discard_data(char*, size_t size, size_t n, void*) { return size * n; }

int on_progress(void* abort, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<const std::atomic<bool>*>(abort)->load() ? 1 : 0;
}

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

HttpClient::HttpClient(const HttpOptions& options) : options_(options) {
  curl_ = curl_api().easy_init();
  if (!curl_) throw std::bad_alloc();
}

HttpClient::~HttpClient() { curl_api().easy_cleanup(as_curl(curl_)); }

void HttpClient::reset(const std::string& url) {
  CURL* c = as_curl(curl_);
  curl_api().easy_reset(c);  // keeps the connection cache
  curl_api().easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_api().easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM for DNS timeouts
  curl_api().easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  curl_api().easy_setopt(c, CURLOPT_CONNECTTIMEOUT, options_.connect_timeout_seconds);
  curl_api().easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1024L);
  curl_api().easy_setopt(c, CURLOPT_LOW_SPEED_TIME, options_.stall_seconds);
  curl_api().easy_setopt(c, CURLOPT_TIMEOUT, options_.transfer_seconds);  // 0: none
  curl_api().easy_setopt(c, CURLOPT_USERAGENT, "winml-make");
  curl_api().easy_setopt(c, CURLOPT_WRITEFUNCTION, discard_data);
  if (options_.abort) {
    curl_api().easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_api().easy_setopt(c, CURLOPT_XFERINFODATA, options_.abort);
    curl_api().easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  }
  if (options_.use_netrc) curl_api().easy_setopt(c, CURLOPT_NETRC, static_cast<long>(CURL_NETRC_OPTIONAL));
  if (!options_.bearer_token.empty()) {
    curl_api().easy_setopt(c, CURLOPT_HTTPAUTH, CURLAUTH_BEARER);
    curl_api().easy_setopt(c, CURLOPT_XOAUTH2_BEARER, options_.bearer_token.c_str());
  }
  if (!options_.ca_file.empty()) curl_api().easy_setopt(c, CURLOPT_CAINFO, options_.ca_file.c_str());
  if (!options_.client_cert.empty()) curl_api().easy_setopt(c, CURLOPT_SSLCERT, options_.client_cert.c_str());
  if (!options_.client_key.empty()) curl_api().easy_setopt(c, CURLOPT_SSLKEY, options_.client_key.c_str());
}

HttpResult HttpClient::perform() {
  HttpResult r;
  char message[CURL_ERROR_SIZE] = {0};
  CURL* c = as_curl(curl_);
  curl_api().easy_setopt(c, CURLOPT_ERRORBUFFER, message);
  const CURLcode code = curl_api().easy_perform(c);
  curl_api().easy_setopt(c, CURLOPT_ERRORBUFFER, nullptr);
  if (code != CURLE_OK) {
    r.error = message[0] ? message : curl_api().easy_strerror(code);
    if (code == CURLE_OPERATION_TIMEDOUT && options_.transfer_seconds > 0) {
      double seconds = 0;
      curl_api().easy_getinfo(c, CURLINFO_TOTAL_TIME, &seconds);
      // A stall ends sooner; a transfer that ran its whole time hit the limit.
      r.over_time_limit = seconds + 0.5 >= static_cast<double>(options_.transfer_seconds);
      if (r.over_time_limit)
        r.error += " (the limit of " + std::to_string(options_.transfer_seconds) + " s per transfer)";
    }
    return r;
  }
  curl_api().easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  return r;
}

HttpResult HttpClient::head(const std::string& url) {
  reset(url);
  curl_api().easy_setopt(as_curl(curl_), CURLOPT_NOBODY, 1L);
  return perform();
}

HttpResult HttpClient::get(const std::string& url, const Sink& sink) {
  reset(url);
  GetState state{&sink, as_curl(curl_)};
  curl_api().easy_setopt(as_curl(curl_), CURLOPT_WRITEFUNCTION, on_get_data);
  curl_api().easy_setopt(as_curl(curl_), CURLOPT_WRITEDATA, &state);
  HttpResult r = perform();
  r.bytes = state.bytes;
  if (state.refused) {
    r.status = 0;
    if (r.error.empty() || r.error.find("Failed writing") != std::string::npos) r.error = "download refused";
  }
  return r;
}

HttpResult HttpClient::put_file(const std::string& url, const std::filesystem::path& file) {
  FILE* f = std::fopen(file.c_str(), "rb");
  if (!f) return {0, "cannot read " + file.string()};
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  reset(url);
  CURL* c = as_curl(curl_);
  curl_api().easy_setopt(c, CURLOPT_UPLOAD, 1L);
  curl_api().easy_setopt(c, CURLOPT_READDATA, f);  // curl's default reader is fread
  curl_api().easy_setopt(c, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(size));
  HttpResult r = perform();
  std::fclose(f);
  if (r.ok()) r.bytes = size;
  return r;
}

HttpResult HttpClient::put_bytes(const std::string& url, const std::string& body) {
  reset(url);
  CURL* c = as_curl(curl_);
  curl_api().easy_setopt(c, CURLOPT_CUSTOMREQUEST, "PUT");
  curl_api().easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
  curl_api().easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_slist* headers = curl_api().slist_append(nullptr, "Content-Type: application/octet-stream");
  curl_api().easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  HttpResult r = perform();
  curl_api().easy_setopt(c, CURLOPT_HTTPHEADER, nullptr);
  curl_api().slist_free_all(headers);
  if (r.ok()) r.bytes = body.size();
  return r;
}

bool http_libraries_available(std::string* why) {
  if (!curl_available(why)) return false;
  try {
    crypto_api();
    return true;
  } catch (const std::exception& e) {
    if (why) *why = e.what();
    return false;
  }
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
