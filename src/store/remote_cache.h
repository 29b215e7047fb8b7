// A second cache tier, shared between machines (src/remote implements it
// over HTTP). The engine only asks two things of it, and neither may fail a
// build: a problem on the server side is a miss, or an upload left undone.
#pragma once

#include <optional>
#include <string>

#include "store/cache.h"

namespace winml::store {

struct Fetched {
  // A hit: the entry, whose blobs are now verified in the local cache. The
  // caller restores it, checks the artifact and only then records the
  // entry there (put_entry): nothing unchecked reaches the local cache.
  std::optional<ActionEntry> entry;
  // Why the server's entry was refused (a miss), if it was.
  std::optional<Rejection> rejected;
};

class RemoteCache {
 public:
  virtual ~RemoteCache() = default;
  // Looks `key` up for a node whose artifact is named `primary`. The entry
  // must pass the output rules (entry_rules.h) before anything is
  // downloaded; then every blob is downloaded and verified into `local`.
  virtual Fetched fetch(const Digest& key, const std::string& primary, LocalCache& local) = 0;
  // The caller refused the entry fetch() gave for `key` (its artifact is not
  // what the node makes): a miss after all.
  virtual void refused(const Digest& key) {}
  // Schedules the upload of an entry `local` holds (a stage that ran here).
  virtual void upload(const ActionEntry& entry, LocalCache& local) = 0;
};

}  // namespace winml::store
