// The few libcurl functions the HTTP client calls, resolved from libcurl.so.4
// on first use (see base/shared_library.h for why it is not linked).
#pragma once

#include <curl/curl.h>

#include <string>

namespace winml::remote {

struct CurlApi {
  CURLcode (*global_init)(long flags);
  CURL* (*easy_init)();
  void (*easy_cleanup)(CURL*);
  void (*easy_reset)(CURL*);
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...);
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...);
  CURLcode (*easy_perform)(CURL*);
  const char* (*easy_strerror)(CURLcode);
  curl_slist* (*slist_append)(curl_slist*, const char*);
  void (*slist_free_all)(curl_slist*);
};

// Loads libcurl once (and runs curl_global_init); throws BuildError naming
// the library when it cannot be loaded.
const CurlApi& curl_api();

// Whether libcurl can be loaded; otherwise `why` says what the loader said.
bool curl_available(std::string* why);

}  // namespace winml::remote
