// HttpClient over libcurl (curl_api.h).
#include "remote/http_client.h"

#include "remote/posix/crypto_api.h"
#include "remote/posix/curl_api.h"

#include <cstdio>
#include <new>
#include "base/path_text.h"

namespace winml::remote {

struct HttpClient::Connection {
  CURL* curl;
};

namespace {

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

// Sets `c` up for a request to `url`.
void reset(CURL* c, const std::string& url, const HttpOptions& options) {
  curl_api().easy_reset(c);  // keeps the connection cache
  curl_api().easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_api().easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM for DNS timeouts
  curl_api().easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  curl_api().easy_setopt(c, CURLOPT_CONNECTTIMEOUT, options.connect_timeout_seconds);
  curl_api().easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1024L);
  curl_api().easy_setopt(c, CURLOPT_LOW_SPEED_TIME, options.stall_seconds);
  curl_api().easy_setopt(c, CURLOPT_TIMEOUT, options.transfer_seconds);  // 0: none
  curl_api().easy_setopt(c, CURLOPT_USERAGENT, "winml-make");
  curl_api().easy_setopt(c, CURLOPT_WRITEFUNCTION, discard_data);
  if (options.abort) {
    curl_api().easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_api().easy_setopt(c, CURLOPT_XFERINFODATA, options.abort);
    curl_api().easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  }
  if (options.use_netrc) curl_api().easy_setopt(c, CURLOPT_NETRC, static_cast<long>(CURL_NETRC_OPTIONAL));
  if (!options.bearer_token.empty()) {
    curl_api().easy_setopt(c, CURLOPT_HTTPAUTH, CURLAUTH_BEARER);
    curl_api().easy_setopt(c, CURLOPT_XOAUTH2_BEARER, options.bearer_token.c_str());
  }
  if (!options.ca_file.empty()) curl_api().easy_setopt(c, CURLOPT_CAINFO, options.ca_file.c_str());
  if (!options.client_cert.empty()) curl_api().easy_setopt(c, CURLOPT_SSLCERT, options.client_cert.c_str());
  if (!options.client_key.empty()) curl_api().easy_setopt(c, CURLOPT_SSLKEY, options.client_key.c_str());
}

HttpResult perform(CURL* c, const HttpOptions& options) {
  HttpResult r;
  char message[CURL_ERROR_SIZE] = {0};
  curl_api().easy_setopt(c, CURLOPT_ERRORBUFFER, message);
  const CURLcode code = curl_api().easy_perform(c);
  curl_api().easy_setopt(c, CURLOPT_ERRORBUFFER, nullptr);
  if (code != CURLE_OK) {
    r.error = message[0] ? message : curl_api().easy_strerror(code);
    if (code == CURLE_OPERATION_TIMEDOUT && options.transfer_seconds > 0) {
      double seconds = 0;
      curl_api().easy_getinfo(c, CURLINFO_TOTAL_TIME, &seconds);
      // A stall ends sooner; a transfer that ran its whole time hit the limit.
      r.over_time_limit = seconds + 0.5 >= static_cast<double>(options.transfer_seconds);
      if (r.over_time_limit)
        r.error += " (the limit of " + std::to_string(options.transfer_seconds) + " s per transfer)";
    }
    return r;
  }
  curl_api().easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  return r;
}

}  // namespace

HttpClient::HttpClient(const HttpOptions& options) : options_(options) {
  CURL* curl = curl_api().easy_init();
  if (!curl) throw std::bad_alloc();
  connection_.reset(new Connection{curl});
}

HttpClient::~HttpClient() { curl_api().easy_cleanup(connection_->curl); }

HttpResult HttpClient::head(const std::string& url) {
  CURL* c = connection_->curl;
  reset(c, url, options_);
  curl_api().easy_setopt(c, CURLOPT_NOBODY, 1L);
  return perform(c, options_);
}

HttpResult HttpClient::get(const std::string& url, const Sink& sink) {
  CURL* c = connection_->curl;
  reset(c, url, options_);
  GetState state{&sink, c};
  curl_api().easy_setopt(c, CURLOPT_WRITEFUNCTION, on_get_data);
  curl_api().easy_setopt(c, CURLOPT_WRITEDATA, &state);
  HttpResult r = perform(c, options_);
  r.bytes = state.bytes;
  if (state.refused) {
    // Whatever libcurl calls it ("Failed writing received data"; "Failure
    // writing output to destination" in Debian 12's 7.88): the sink said no.
    r.status = 0;
    r.error = "download refused";
  }
  return r;
}

HttpResult HttpClient::put_file(const std::string& url, const std::filesystem::path& file) {
  FILE* f = std::fopen(file.c_str(), "rb");
  if (!f) return {0, "cannot read " + to_utf8(file)};
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  CURL* c = connection_->curl;
  reset(c, url, options_);
  curl_api().easy_setopt(c, CURLOPT_UPLOAD, 1L);
  curl_api().easy_setopt(c, CURLOPT_READDATA, f);  // curl's default reader is fread
  curl_api().easy_setopt(c, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(size));
  HttpResult r = perform(c, options_);
  std::fclose(f);
  if (r.ok()) r.bytes = size;
  return r;
}

HttpResult HttpClient::put_bytes(const std::string& url, const std::string& body) {
  CURL* c = connection_->curl;
  reset(c, url, options_);
  curl_api().easy_setopt(c, CURLOPT_CUSTOMREQUEST, "PUT");
  curl_api().easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
  curl_api().easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_slist* headers = curl_api().slist_append(nullptr, "Content-Type: application/octet-stream");
  curl_api().easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  HttpResult r = perform(c, options_);
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

}  // namespace winml::remote
