// The entries an nginx cache server holds, read and forged the way a hostile
// writer would: straight into the files behind its URL, with every checksum
// and digest consistent, so only the client's own rules can refuse them.
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "remote/action_message.h"
#include "support/nginx_server.h"

namespace winml::test {

class ServerEntries {
 public:
  explicit ServerEntries(const NginxServer& server, std::string name_space = "");

  std::filesystem::path entry_file(const store::Digest& key) const;
  // The entry the server holds for `key`, decoded as a client would.
  std::optional<remote::RemoteEntry> read(const store::Digest& key) const;
  // Stores `bytes` as a blob (cas/<sha256>); the output `name` holding them.
  store::OutputFile put_blob(const std::string& name, const std::string& bytes, std::string* sha256 = nullptr);
  // An entry with consistent records; signed when `signer` is given.
  void write(const store::ActionEntry& entry, const std::vector<std::string>& sha256s,
             const remote::EntryKey* signer = nullptr);
  void write_raw(const store::Digest& key, const std::string& bytes);
  void remove(const store::Digest& key);
  std::vector<std::filesystem::path> entry_files() const;

 private:
  std::filesystem::path root_;
  std::string name_space_;
};

inline constexpr const char* kCacheStages[] = {"export", "optimize", "analyze", "quantize", "compile", "package"};

// The environment naming `url` as the shared cache.
inline std::map<std::string, std::string> remote_env(const std::string& url) {
  return {{"WINML_MAKE_REMOTE_CACHE", url}};
}
// How often `what` occurs in `text`.
int count_of(const std::string& text, const std::string& what);

// A stage's key from a --json report.
store::Digest stage_key(const nlohmann::json& report, const std::string& model, const std::string& stage);
// A stage's outputs (name -> digest) from a --json report.
std::map<std::string, std::string> stage_outputs(const nlohmann::json& report, const std::string& model,
                                                 const std::string& stage);
// Whether the access log shows a download of the blob named `sha256`.
bool downloaded(const NginxServer& server, const std::string& sha256);

}  // namespace winml::test
