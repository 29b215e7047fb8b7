#include "remote/windows/system_libraries.h"

#include <memory>
#include <mutex>

#include "base/error.h"
#include "base/shared_library.h"
#include "base/windows/wide.h"

namespace winml::remote::system_libraries {

namespace {

// System32's copy by full path: never a DLL of that name beside the program
// or in the current folder.
std::string in_system32(const char* dll) {
  wchar_t dir[MAX_PATH];
  const UINT n = GetSystemDirectoryW(dir, MAX_PATH);
  if (n == 0 || n >= MAX_PATH) return dll;
  return windows::narrow(std::wstring_view(dir, n)) + "\\" + dll;
}

template <class F>
void resolve(const SharedLibrary& library, F& f, const char* name) {
  f = library.function<F>(name);
}

struct LoadedWinHttp {
  SharedLibrary library{{in_system32("winhttp.dll")}};
  WinHttp api{};
  LoadedWinHttp() {
    api.module = GetModuleHandleW(L"winhttp.dll");
    resolve(library, api.open, "WinHttpOpen");
    resolve(library, api.connect, "WinHttpConnect");
    resolve(library, api.open_request, "WinHttpOpenRequest");
    resolve(library, api.crack_url, "WinHttpCrackUrl");
    resolve(library, api.set_timeouts, "WinHttpSetTimeouts");
    resolve(library, api.set_option, "WinHttpSetOption");
    resolve(library, api.set_status_callback, "WinHttpSetStatusCallback");
    resolve(library, api.send_request, "WinHttpSendRequest");
    resolve(library, api.write_data, "WinHttpWriteData");
    resolve(library, api.receive_response, "WinHttpReceiveResponse");
    resolve(library, api.query_headers, "WinHttpQueryHeaders");
    resolve(library, api.query_data_available, "WinHttpQueryDataAvailable");
    resolve(library, api.read_data, "WinHttpReadData");
    resolve(library, api.close_handle, "WinHttpCloseHandle");
  }
};

struct LoadedBCrypt {
  SharedLibrary library{{in_system32("bcrypt.dll")}};
  BCrypt api{};
  LoadedBCrypt() {
    resolve(library, api.open_algorithm_provider, "BCryptOpenAlgorithmProvider");
    resolve(library, api.create_hash, "BCryptCreateHash");
    resolve(library, api.hash_data, "BCryptHashData");
    resolve(library, api.finish_hash, "BCryptFinishHash");
    resolve(library, api.destroy_hash, "BCryptDestroyHash");
    if (!BCRYPT_SUCCESS(api.open_algorithm_provider(&api.sha256, BCRYPT_SHA256_ALGORITHM, nullptr, 0)) ||
        !BCRYPT_SUCCESS(api.open_algorithm_provider(&api.hmac_sha256, BCRYPT_SHA256_ALGORITHM, nullptr,
                                                    BCRYPT_ALG_HANDLE_HMAC_FLAG)))
      throw BuildError("bcrypt.dll: SHA-256 is not available");
  }
};

// Loaded at most once per process; a failure is remembered (not retried).
template <class Loaded>
const Loaded* load(std::string* why) {
  static std::once_flag once;
  static std::unique_ptr<Loaded> loaded;
  static std::string error;
  std::call_once(once, [] {
    try {
      loaded = std::make_unique<Loaded>();
    } catch (const std::exception& e) {
      error = e.what();
    }
  });
  if (!loaded && why) *why = error;
  return loaded.get();
}

}  // namespace

const WinHttp& winhttp() {
  std::string why;
  const LoadedWinHttp* l = load<LoadedWinHttp>(&why);
  if (!l) throw BuildError(why);
  return l->api;
}

const BCrypt& bcrypt() {
  std::string why;
  const LoadedBCrypt* l = load<LoadedBCrypt>(&why);
  if (!l) throw BuildError(why);
  return l->api;
}

bool available(std::string* why) { return load<LoadedWinHttp>(why) && load<LoadedBCrypt>(why); }

}  // namespace winml::remote::system_libraries
