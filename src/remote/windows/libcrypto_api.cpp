#include "remote/windows/libcrypto_api.h"

#include <windows.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <vector>

#include "base/error.h"
#include "base/path_text.h"
#include "base/shared_library.h"
#include "base/this_process.h"

namespace winml::remote::libcrypto {

namespace {

namespace fs = std::filesystem;

constexpr const char* kNames[] = {"libcrypto-3-x64.dll", "libcrypto-1_1-x64.dll"};

// Where the DLL is looked for, each by full path: beside this program, in
// PATH's folders, then where Git for Windows and the OpenSSL installers put
// it (Git does not add that folder to PATH). Never the current folder, which
// the default DLL search would try: a project's folder is not trusted with
// code.
std::vector<std::string> candidates() {
  std::vector<fs::path> dirs;
  wchar_t exe[MAX_PATH];
  const DWORD n = GetModuleFileNameW(nullptr, exe, MAX_PATH);
  if (n > 0 && n < MAX_PATH) dirs.push_back(fs::path(std::wstring(exe, n)).parent_path());
  if (const auto path = environment_variable("PATH")) {
    std::size_t start = 0;
    for (;;) {
      const std::size_t end = path->find(';', start);
      const fs::path dir = from_utf8(std::string_view(*path).substr(start, end - start));
      if (dir.is_absolute()) dirs.push_back(dir);
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  for (const char* variable : {"ProgramFiles", "ProgramW6432"})
    if (const auto root = environment_variable(variable)) {
      dirs.push_back(from_utf8(*root) / "Git" / "mingw64" / "bin");
      dirs.push_back(from_utf8(*root) / "OpenSSL-Win64" / "bin");
      dirs.push_back(from_utf8(*root) / "OpenSSL" / "bin");
    }
  std::vector<std::string> found;
  for (const char* name : kNames)
    for (const auto& dir : dirs) {
      std::error_code ec;
      const fs::path file = dir / name;
      if (fs::is_regular_file(file, ec)) {
        const std::string text = to_utf8(file);
        bool seen = false;
        for (const auto& f : found) seen = seen || f == text;
        if (!seen) found.push_back(text);
      }
    }
  return found;
}

template <class F>
void resolve(const SharedLibrary& library, F& f, const char* name) {
  f = library.function<F>(name);
}

struct Loaded {
  explicit Loaded(const std::vector<std::string>& files) : library(files) {
    resolve(library, api.bio_new_mem_buf, "BIO_new_mem_buf");
    resolve(library, api.bio_free, "BIO_free");
    resolve(library, api.read_private_key, "PEM_read_bio_PrivateKey");
    resolve(library, api.read_public_key, "PEM_read_bio_PUBKEY");
    resolve(library, api.pkey_free, "EVP_PKEY_free");
    // OpenSSL 3 renamed EVP_PKEY_id (now a macro) to EVP_PKEY_get_id.
    try {
      resolve(library, api.pkey_id, "EVP_PKEY_get_id");
    } catch (const BuildError&) {
      resolve(library, api.pkey_id, "EVP_PKEY_id");
    }
    resolve(library, api.md_ctx_new, "EVP_MD_CTX_new");
    resolve(library, api.md_ctx_free, "EVP_MD_CTX_free");
    resolve(library, api.digest_sign_init, "EVP_DigestSignInit");
    resolve(library, api.digest_sign, "EVP_DigestSign");
    resolve(library, api.digest_verify_init, "EVP_DigestVerifyInit");
    resolve(library, api.digest_verify, "EVP_DigestVerify");
    resolve(library, api.clear_errors, "ERR_clear_error");
  }
  SharedLibrary library;
  Api api{};
};

}  // namespace

const Api* api(std::string* why) {
  static std::once_flag once;
  static std::unique_ptr<Loaded> loaded;
  static std::string error;
  std::call_once(once, [] {
    const std::vector<std::string> files = candidates();
    if (files.empty()) {
      error = "not found beside winml-make, on PATH, nor in Git for Windows' or OpenSSL's folder under Program Files";
      return;
    }
    try {
      loaded = std::make_unique<Loaded>(files);
    } catch (const std::exception& e) {
      error = e.what();
    }
  });
  if (!loaded && why) *why = error;
  return loaded ? &loaded->api : nullptr;
}

}  // namespace winml::remote::libcrypto
