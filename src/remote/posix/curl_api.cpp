#include "remote/posix/curl_api.h"

#include <memory>
#include <mutex>

#include "base/error.h"
#include "base/shared_library.h"

namespace winml::remote {

namespace {

struct LoadedCurl {
  SharedLibrary library{{"libcurl.so.4", "libcurl-gnutls.so.4", "libcurl-nss.so.4"}};
  CurlApi api{
      library.function<decltype(CurlApi::global_init)>("curl_global_init"),
      library.function<decltype(CurlApi::easy_init)>("curl_easy_init"),
      library.function<decltype(CurlApi::easy_cleanup)>("curl_easy_cleanup"),
      library.function<decltype(CurlApi::easy_reset)>("curl_easy_reset"),
      library.function<decltype(CurlApi::easy_setopt)>("curl_easy_setopt"),
      library.function<decltype(CurlApi::easy_getinfo)>("curl_easy_getinfo"),
      library.function<decltype(CurlApi::easy_perform)>("curl_easy_perform"),
      library.function<decltype(CurlApi::easy_strerror)>("curl_easy_strerror"),
      library.function<decltype(CurlApi::slist_append)>("curl_slist_append"),
      library.function<decltype(CurlApi::slist_free_all)>("curl_slist_free_all"),
  };
};

// Loaded at most once per process; a failure is remembered (not retried).
const LoadedCurl* load(std::string* why) {
  static std::once_flag once;
  static std::unique_ptr<LoadedCurl> loaded;
  static std::string error;
  std::call_once(once, [] {
    try {
      loaded = std::make_unique<LoadedCurl>();
      loaded->api.global_init(CURL_GLOBAL_DEFAULT);
    } catch (const std::exception& e) {
      error = e.what();
    }
  });
  if (!loaded && why) *why = error;
  return loaded.get();
}

}  // namespace

const CurlApi& curl_api() {
  std::string why;
  const LoadedCurl* c = load(&why);
  if (!c) throw BuildError(why);
  return c->api;
}

bool curl_available(std::string* why) { return load(why) != nullptr; }

}  // namespace winml::remote
