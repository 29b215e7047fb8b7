#include "remote/action_message.h"

#include "remote/action_result.pb.h"
#include "remote/sha256.h"

namespace winml::remote {

std::string encode_action(const store::ActionEntry& entry, const std::vector<std::string>& sha256s) {
  wire::ActionResult result;
  for (std::size_t i = 0; i < entry.outputs.size(); ++i) {
    auto* file = result.add_output_files();
    file->set_path(entry.outputs[i].name);
    file->mutable_digest()->set_hash(sha256s.at(i));
    file->mutable_digest()->set_size_bytes(static_cast<std::int64_t>(entry.outputs[i].size));
  }
  result.set_stdout_raw(store::entry_text(entry));
  return result.SerializeAsString();
}

std::optional<RemoteEntry> decode_action(const std::string& bytes, const store::Digest& key) {
  wire::ActionResult result;
  if (!result.ParseFromString(bytes) || result.exit_code() != 0) return std::nullopt;
  auto entry = store::parse_entry(result.stdout_raw());
  if (!entry || entry->key != key || entry->outputs.size() != static_cast<std::size_t>(result.output_files_size()))
    return std::nullopt;
  RemoteEntry out{std::move(*entry), {}};
  for (int i = 0; i < result.output_files_size(); ++i) {
    const auto& file = result.output_files(i);
    const auto& mine = out.entry.outputs[static_cast<std::size_t>(i)];
    if (file.path() != mine.name || file.digest().size_bytes() < 0 ||
        static_cast<std::uint64_t>(file.digest().size_bytes()) != mine.size || !is_sha256_hex(file.digest().hash()))
      return std::nullopt;
    out.blobs.push_back({file.digest().hash(), mine.size});
  }
  return out;
}

std::string action_name(const std::string& name_space, const store::Digest& key) {
  std::string text = "winml-make action v1";
  text += '\0';
  text += name_space;
  text += '\0';
  text += key.hex();
  return sha256_hex(text);
}

bool is_sha256_hex(const std::string& s) {
  if (s.size() != 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace winml::remote
