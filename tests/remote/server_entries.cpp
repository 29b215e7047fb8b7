#include "remote/server_entries.h"

#include <gtest/gtest.h>

#include "remote/sha256.h"
#include "support/temp_dir.h"

namespace winml::test {

namespace fs = std::filesystem;

ServerEntries::ServerEntries(const NginxServer& server, std::string name_space)
    : root_(server.root()), name_space_(std::move(name_space)) {
  fs::create_directories(root_ / "ac");
  fs::create_directories(root_ / "cas");
}

fs::path ServerEntries::entry_file(const store::Digest& key) const {
  return root_ / "ac" / remote::action_name(name_space_, key);
}

std::optional<remote::RemoteEntry> ServerEntries::read(const store::Digest& key) const {
  if (!fs::exists(entry_file(key))) return std::nullopt;
  return remote::decode_action(read_text(entry_file(key)), key);
}

store::OutputFile ServerEntries::put_blob(const std::string& name, const std::string& bytes, std::string* sha256) {
  const std::string sha = remote::sha256_hex(bytes);
  write_text(root_ / "cas" / sha, bytes);
  if (sha256) *sha256 = sha;
  return {name, store::digest_of(bytes), bytes.size()};
}

void ServerEntries::write(const store::ActionEntry& entry, const std::vector<std::string>& sha256s,
                          const remote::EntryKey* signer) {
  write_raw(entry.key, remote::encode_action(entry, sha256s, signer));
}

void ServerEntries::write_raw(const store::Digest& key, const std::string& bytes) {
  write_text(entry_file(key), bytes);
}

void ServerEntries::remove(const store::Digest& key) { fs::remove(entry_file(key)); }

std::vector<fs::path> ServerEntries::entry_files() const {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(root_ / "ac")) out.push_back(e.path());
  return out;
}

namespace {

const nlohmann::json* find_stage(const nlohmann::json& report, const std::string& model, const std::string& stage) {
  for (const auto& t : report["models"])
    if (t["name"] == model)
      for (const auto& s : t["stages"])
        if (s["name"] == stage) return &s;
  return nullptr;
}

}  // namespace

store::Digest stage_key(const nlohmann::json& report, const std::string& model, const std::string& stage) {
  const nlohmann::json* s = find_stage(report, model, stage);
  EXPECT_TRUE(s && s->contains("key")) << model << "/" << stage << " has no key in " << report.dump();
  if (!s || !s->contains("key")) return {};
  return *store::Digest::from_hex((*s)["key"].get<std::string>());
}

std::map<std::string, std::string> stage_outputs(const nlohmann::json& report, const std::string& model,
                                                 const std::string& stage) {
  std::map<std::string, std::string> out;
  if (const nlohmann::json* s = find_stage(report, model, stage))
    for (const auto& o : (*s)["outputs"]) out[o["file"]] = o["digest"];
  return out;
}

int count_of(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t p = 0; (p = text.find(what, p)) != std::string::npos; p += what.size()) ++n;
  return n;
}

bool downloaded(const NginxServer& server, const std::string& sha256) {
  return server.access_log().find("GET /cache/cas/" + sha256) != std::string::npos;
}

}  // namespace winml::test
