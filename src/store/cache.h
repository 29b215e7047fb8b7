// The local content-addressed cache shared by every project of a user (or a
// CI runner): an action cache maps a node key to the outputs it produced, and
// a content-addressed store holds each output once, by digest.
//
//   <root>/ac/<key[0:2]>/<key>          action entry: outputs (name, digest, size) + metrics
//   <root>/cas/<digest[0:2]>/<digest>   blob: the file's bytes
//
// Every file is written to a temporary name and renamed into place, and
// entries are content-addressed, so processes may share the directory and a
// CI system may save and restore it as a plain directory (the same ac/ + cas/
// split as bazel-remote's HTTP layout). Restores always re-hash what they
// copy: a corrupt or missing blob drops the entry, and the node is rebuilt.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "store/build_state.h"
#include "store/digest.h"
#include "store/disk.h"
#include "store/entry_rules.h"

namespace winml::store {

struct ActionEntry {
  Digest key;
  std::string implementation;
  double elapsed_seconds = 0;  // what computing it took, originally
  std::string metrics_json = "{}";
  std::vector<OutputFile> outputs;
};

struct CacheStats {
  std::uint64_t entries = 0;
  std::uint64_t blobs = 0;
  std::uint64_t bytes = 0;
};

struct CacheVerifyReport {
  std::uint64_t blobs_checked = 0;
  std::uint64_t bytes_checked = 0;  // blobs and entries, as CacheStats::bytes counts them
  std::uint64_t entries_checked = 0;
  std::vector<std::string> problems;  // one line per removed blob or entry
};

// The files the artifact at `primary` consists of, read from it: its own
// name first, then the sidecars it names (graph::NodeRunner::artifact_files,
// which the model tools answer).
using ArtifactFiles = std::function<std::vector<std::string>(const std::filesystem::path& primary)>;

struct CacheGcReport {
  std::uint64_t entries_removed = 0;
  std::uint64_t blobs_removed = 0;
  std::uint64_t bytes_before = 0;
  std::uint64_t bytes_after = 0;
};

class LocalCache {
 public:
  // Every file operation goes through `disk`.
  explicit LocalCache(std::filesystem::path root, DiskInterface& disk = real_disk());
  const std::filesystem::path& root() const { return root_; }

  // $WINML_MAKE_CACHE_DIR, else $XDG_CACHE_HOME/winml-make, else ~/.cache/winml-make.
  static std::filesystem::path default_dir();

  // The entry for `key`; a torn or corrupt entry is removed and not returned.
  std::optional<ActionEntry> lookup(const Digest& key);
  // Places the entry's blobs in `dir` under their output names, then
  // re-hashes every placed file: what is verified is what will be used.
  // When the entry breaks the output rules (entry_rules.h), or a blob is
  // missing or does not match its digest, removes the entry (and such a
  // blob) and returns why; files already placed are the caller's to discard.
  std::optional<Rejection> restore(const ActionEntry& entry, const std::filesystem::path& dir);
  // Drops the entry for `key` (one that proved not to be what its node makes).
  void forget(const Digest& key);
  // Stores the files of `dir` named by `entry.outputs`, then the entry.
  void store(const ActionEntry& entry, const std::filesystem::path& dir);

  // For a second tier filling this one: blobs arrive one by one, verified by
  // the caller, and the entry is written last, so a reader never sees an
  // entry whose blobs are missing.
  bool has_blob(const Digest& d) const;
  void adopt_blob(const Digest& d, const std::filesystem::path& verified_file);  // renamed into place
  void put_entry(const ActionEntry& entry);
  // A folder on the cache's file system for downloads in progress (renames
  // into the store stay atomic). Names there carry the writer's pid.
  std::filesystem::path incoming_dir() const;

  CacheStats stats() const;
  // Removes what killed writers left (temporaries whose process is gone) and
  // anything in the store that is not a regular file; one line for each.
  // Cheap enough after a crash, not on every build: it lists every folder.
  std::vector<std::string> sweep_leftovers();
  // The same for incoming_dir() alone: what a killed download left.
  std::vector<std::string> sweep_incoming();
  // Re-hashes every blob and checks every entry against the output rules
  // and, given `artifact_files`, against the files its artifact names;
  // removes what is corrupt or breaks them.
  CacheVerifyReport verify(const ArtifactFiles& artifact_files = {});
  // Removes least recently used entries (and blobs no entry needs) until the
  // cache is at most `max_bytes`.
  CacheGcReport gc(std::uint64_t max_bytes);

  // The lock builds hold shared while they use the cache and `cache gc` and
  // `cache verify` hold exclusive: removing blobs and entries never races a
  // build that is storing or restoring them.
  std::filesystem::path lock_file() const { return root_ / "lock"; }

  std::filesystem::path blob_path(const Digest& d) const;
  std::filesystem::path entry_path(const Digest& key) const;

 private:
  std::optional<ActionEntry> read_entry(const std::filesystem::path& file) const;
  std::optional<Rejection> check_artifact(const ActionEntry& entry, const ArtifactFiles& artifact_files);
  std::filesystem::path root_;
  DiskInterface& disk_;
};

// The entry's text form: the local cache's file format, carried as is by the
// remote cache. parse_entry refuses anything torn, corrupt or with an output
// name that could leave the target folder; the other rules are the caller's
// to check (outputs_problem), so that it can say why.
std::string entry_text(const ActionEntry& entry);
std::optional<ActionEntry> parse_entry(const std::string& text);

// "10G", "512MiB", "1.5GB", "100000" (bytes) -> bytes; InputError otherwise.
std::uint64_t parse_size(const std::string& text);

}  // namespace winml::store
