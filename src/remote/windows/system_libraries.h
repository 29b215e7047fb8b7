// WinHTTP and BCrypt, the system's own HTTP client and cryptography, resolved
// on first use from System32 (base/shared_library.h: a build that names no
// server never loads them). Their headers give the prototypes.
#pragma once

#include <windows.h>  // first: the other two need its types

#include <bcrypt.h>
#include <winhttp.h>

#include <string>

namespace winml::remote::system_libraries {

struct WinHttp {
  HMODULE module;  // for its error messages
  decltype(&::WinHttpOpen) open;
  decltype(&::WinHttpConnect) connect;
  decltype(&::WinHttpOpenRequest) open_request;
  decltype(&::WinHttpCrackUrl) crack_url;
  decltype(&::WinHttpSetTimeouts) set_timeouts;
  decltype(&::WinHttpSetOption) set_option;
  decltype(&::WinHttpSetStatusCallback) set_status_callback;
  decltype(&::WinHttpSendRequest) send_request;
  decltype(&::WinHttpWriteData) write_data;
  decltype(&::WinHttpReceiveResponse) receive_response;
  decltype(&::WinHttpQueryHeaders) query_headers;
  decltype(&::WinHttpQueryDataAvailable) query_data_available;
  decltype(&::WinHttpReadData) read_data;
  decltype(&::WinHttpCloseHandle) close_handle;
};

struct BCrypt {
  decltype(&::BCryptOpenAlgorithmProvider) open_algorithm_provider;
  decltype(&::BCryptCreateHash) create_hash;
  decltype(&::BCryptHashData) hash_data;
  decltype(&::BCryptFinishHash) finish_hash;
  decltype(&::BCryptDestroyHash) destroy_hash;
  // SHA-256, opened once and shared: an algorithm handle may be used by
  // many threads at once (a hash handle may not).
  BCRYPT_ALG_HANDLE sha256;
  BCRYPT_ALG_HANDLE hmac_sha256;
};

// Loaded once; BuildError naming the library when it cannot be.
const WinHttp& winhttp();
const BCrypt& bcrypt();

// Whether both load; otherwise `why` says which did not and why.
bool available(std::string* why);

}  // namespace winml::remote::system_libraries
