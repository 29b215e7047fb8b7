// Action entries on the wire: an ActionResult (see action_result.proto)
// whose output files carry each output's SHA-256 and size, and whose
// stdout_raw carries the local cache's own entry record (key, metrics and
// the XXH3 digests the engine works with). Decoding always parses, never
// compares bytes: servers may re-serialize what they store.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "store/cache.h"

namespace winml::remote {

struct RemoteBlob {
  std::string sha256;  // 64 lowercase hex digits
  std::uint64_t size = 0;
};

struct RemoteEntry {
  store::ActionEntry entry;
  std::vector<RemoteBlob> blobs;  // blobs[i] holds entry.outputs[i]
};

// `sha256s[i]` is the SHA-256 of entry.outputs[i].
std::string encode_action(const store::ActionEntry& entry, const std::vector<std::string>& sha256s);
// Nothing when the bytes do not parse, the record is not for `key`, or the
// output list and the record disagree (names, sizes, order).
std::optional<RemoteEntry> decode_action(const std::string& bytes, const store::Digest& key);

// The AC name of a local key: SHA-256 over a fixed prefix, the namespace
// and the key, so other tools and other namespaces on one server never
// collide with it.
std::string action_name(const std::string& name_space, const store::Digest& key);

bool is_sha256_hex(const std::string& s);

}  // namespace winml::remote
