#include "remote/action_message.h"

#include "remote/sha256.h"
#include "remote/wire_format.h"

namespace winml::remote {

namespace {

// Field numbers of build.bazel.remote.execution.v2 (action_result.proto).
enum : int { kDigestHash = 1, kDigestSize = 2 };
enum : int { kFilePath = 1, kFileDigest = 2 };
enum : int { kResultOutputFiles = 2, kResultExitCode = 4, kResultStdoutRaw = 5 };

struct WireFile {
  std::string path, hash;
  std::int64_t size = 0;
};

// A known field whose wire type is not its own is skipped as unknown, and an
// embedded message given twice is merged, as libprotobuf parses.
bool parse_digest(std::string_view bytes, WireFile& f) {
  wire::Reader r(bytes);
  for (wire::Field x; r.next(x);) {
    if (x.number == kDigestHash && x.type == wire::WireType::kLengthDelimited) f.hash = x.bytes;
    if (x.number == kDigestSize && x.type == wire::WireType::kVarint) f.size = static_cast<std::int64_t>(x.value);
  }
  return r.ok();
}

bool parse_file(std::string_view bytes, WireFile& f) {
  wire::Reader r(bytes);
  for (wire::Field x; r.next(x);) {
    if (x.type != wire::WireType::kLengthDelimited) continue;
    if (x.number == kFilePath) f.path = x.bytes;
    if (x.number == kFileDigest && !parse_digest(x.bytes, f)) return false;
  }
  return r.ok();
}

}  // namespace

std::string encode_action(const store::ActionEntry& entry, const std::vector<std::string>& sha256s,
                          const EntryKey* signer) {
  wire::Writer result;
  for (std::size_t i = 0; i < entry.outputs.size(); ++i) {
    wire::Writer digest;
    if (!sha256s.at(i).empty()) digest.bytes(kDigestHash, sha256s[i]);
    if (entry.outputs[i].size != 0) digest.varint(kDigestSize, entry.outputs[i].size);
    wire::Writer file;
    if (!entry.outputs[i].name.empty()) file.bytes(kFilePath, entry.outputs[i].name);
    file.bytes(kFileDigest, digest.data());  // set, so present even when empty
    result.bytes(kResultOutputFiles, file.data());
  }
  std::string record = store::entry_text(entry);
  if (signer) record += signature_line(*signer, record, sha256s);
  if (!record.empty()) result.bytes(kResultStdoutRaw, record);
  return result.data();
}

std::optional<RemoteEntry> decode_action(const std::string& bytes, const store::Digest& key, std::string* why) {
  auto fail = [&](const char* what) -> std::optional<RemoteEntry> {
    if (why) *why = what;
    return std::nullopt;
  };
  std::vector<WireFile> files;
  std::string_view stdout_raw;
  std::int32_t exit_code = 0;
  wire::Reader r(bytes);
  for (wire::Field x; r.next(x);) {
    if (x.number == kResultOutputFiles && x.type == wire::WireType::kLengthDelimited) {
      if (!parse_file(x.bytes, files.emplace_back())) return fail("not an ActionResult");
    } else if (x.number == kResultExitCode && x.type == wire::WireType::kVarint) {
      exit_code = static_cast<std::int32_t>(static_cast<std::uint32_t>(x.value));
    } else if (x.number == kResultStdoutRaw && x.type == wire::WireType::kLengthDelimited) {
      stdout_raw = x.bytes;
    }
  }
  if (!r.ok()) return fail("not an ActionResult");
  if (exit_code != 0) return fail("a failed action");
  RemoteEntry out;
  out.signature = split_signature(stdout_raw);
  out.record = std::string(stdout_raw);
  auto entry = store::parse_entry(out.record);
  if (!entry) return fail("no winml-make record");
  if (entry->key != key) return fail("the record of another key");
  if (entry->outputs.size() != files.size()) return fail("the output list and the record disagree");
  out.entry = std::move(*entry);
  for (std::size_t i = 0; i < files.size(); ++i) {
    const WireFile& file = files[i];
    const auto& mine = out.entry.outputs[i];
    if (file.path != mine.name || file.size < 0 || static_cast<std::uint64_t>(file.size) != mine.size ||
        !is_sha256_hex(file.hash))
      return fail("the output list and the record disagree");
    out.blobs.push_back({file.hash, mine.size});
  }
  return out;
}

std::optional<store::Rejection> signature_problem(const RemoteEntry& entry, const EntryKey& key) {
  if (!entry.signature) return store::Rejection{store::rejection::kUnsigned, "the entry carries no signature"};
  if (entry.signature->scheme != key.scheme())
    return store::Rejection{store::rejection::kBadSignature,
                            "signed with " + entry.signature->scheme + ", not " + key.scheme()};
  std::vector<std::string> sha256s;
  for (const auto& b : entry.blobs) sha256s.push_back(b.sha256);
  if (!key.verify(signing_digest(entry.record, sha256s), entry.signature->bytes))
    return store::Rejection{store::rejection::kBadSignature, "the signature does not verify with this key"};
  return std::nullopt;
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
