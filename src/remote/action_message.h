// Action entries on the wire: an ActionResult (see action_result.proto)
// whose output files carry each output's SHA-256 and size, and whose
// stdout_raw carries the local cache's own entry record (key, metrics and
// the XXH3 digests the engine works with), then, from a writer holding a
// key, the entry's signature (entry_signature.h). Decoding always parses,
// never compares bytes: servers may re-serialize what they store.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "remote/entry_signature.h"
#include "store/cache.h"

namespace winml::remote {

struct RemoteBlob {
  std::string sha256;  // 64 lowercase hex digits
  std::uint64_t size = 0;
};

struct RemoteEntry {
  store::ActionEntry entry;
  std::vector<RemoteBlob> blobs;  // blobs[i] holds entry.outputs[i]
  std::string record;             // the record as it came, which a signature covers
  std::optional<Signature> signature;
};

// `sha256s[i]` is the SHA-256 of entry.outputs[i]. With `signer`, the
// entry carries its signature.
std::string encode_action(const store::ActionEntry& entry, const std::vector<std::string>& sha256s,
                          const EntryKey* signer = nullptr);
// Nothing when the bytes do not parse, the record is not for `key`, or the
// output list and the record disagree (names, sizes, order); then `why`
// (if given) says which.
std::optional<RemoteEntry> decode_action(const std::string& bytes, const store::Digest& key,
                                         std::string* why = nullptr);
// Why a reader holding `key` refuses the entry: unsigned, or a signature of
// another scheme or that does not verify. Nothing when it verifies.
std::optional<store::Rejection> signature_problem(const RemoteEntry& entry, const EntryKey& key);

// The AC name of a local key: SHA-256 over a fixed prefix, the namespace
// and the key, so other tools and other namespaces on one server never
// collide with it.
std::string action_name(const std::string& name_space, const store::Digest& key);

bool is_sha256_hex(const std::string& s);

}  // namespace winml::remote
