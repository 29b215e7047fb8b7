// A second cache tier, shared between machines (src/remote implements it
// over HTTP). The engine only asks two things of it, and neither may fail a
// build: a problem on the server side is a miss, or an upload left undone.
#pragma once

#include "store/cache.h"

namespace winml::store {

class RemoteCache {
 public:
  virtual ~RemoteCache() = default;
  // Looks `key` up; on a hit, downloads and verifies every blob into `local`
  // and records the entry there last. True when `local` now holds the entry.
  virtual bool fetch(const Digest& key, LocalCache& local) = 0;
  // Schedules the upload of an entry `local` holds (a stage that ran here).
  virtual void upload(const ActionEntry& entry, LocalCache& local) = 0;
};

}  // namespace winml::store
