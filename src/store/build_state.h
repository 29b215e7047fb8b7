// What the last builds recorded, under <output_dir>/.winml-make/:
//
//   state    snapshot: node records, stat cache, model sidecar sets (atomic
//            rewrite), a binary image read in place (state_image.h)
//   journal  records appended as nodes finish since the snapshot (record_io.h lines)
//
// A node is recorded only after its outputs are in place, and each record is
// one checksummed line (record_io.h), so a crash at any point leaves either
// the old record or the new one. Every build ends by folding the journal into
// a fresh snapshot. A journal whose generation differs from the snapshot's is
// already contained in it and is ignored.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "store/digest.h"
#include "store/disk.h"
#include "store/node_record.h"
#include "store/shared_text.h"
#include "store/stat_cache.h"
#include "store/state_image.h"

namespace winml::store {

class BuildState {
 public:
  // The journal's line format, and the text snapshot of earlier versions,
  // which is still read (and rewritten as an image at the next save).
  static constexpr int kFormatVersion = 1;

  // `project_dir` is the base for stat cache paths.
  BuildState(DiskInterface& disk, fs::path state_dir, fs::path project_dir);
  ~BuildState();

  // Reads the snapshot and journal. A missing state is empty; an unreadable
  // or corrupt snapshot is dropped (with a warning) and the build starts from
  // nothing, which only costs time.
  void load();

  // Records are immutable once stored: the pointer stays valid whatever is put later.
  std::shared_ptr<const NodeRecord> find(const std::string& node_id) const;
  // Journaled at once (after the caller placed the outputs).
  void put(const std::string& node_id, const NodeRecord& record);
  void erase(const std::string& node_id);
  std::vector<std::string> node_ids() const;

  // The sidecars of a model (relative to its folder; not the model's own file)
  // by its digest: they are named inside the model, so its content determines
  // them, while its own name is the project's choice and differs between copies.
  std::optional<std::vector<std::string>> model_sidecars(const Digest& model_digest) const;
  void put_model_sidecars(const Digest& model_digest, const std::vector<std::string>& names);

  StatCache& stat_cache() { return stats_; }
  // The file system the records describe (and the builder works on).
  DiskInterface& disk() const { return disk_; }
  // True when load() found no records (first build, or the state was lost).
  bool started_empty() const { return started_empty_; }

  // Writes a new snapshot if anything changed since load() and starts a new
  // journal generation. Safe to call more than once.
  void save();

  // For a state that is only read (a dry run, status, graph: no lock is
  // held, and another process may be appending to the journal): what it
  // learns stays in memory, nothing is journaled or saved.
  void keep_in_memory() { in_memory_ = true; }

  const fs::path& dir() const { return dir_; }
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  void append_journal(const std::string& line);
  void open_image(std::string_view bytes, const std::shared_ptr<const void>& owner, const fs::path& file);
  bool parse_text_snapshot(std::string_view text, const std::shared_ptr<const void>& owner);
  // A record of the snapshot's image, made once on first use. Caller holds mu_.
  std::shared_ptr<const NodeRecord> image_record(const std::string& node_id) const;
  bool has_record(const std::string& node_id) const;  // caller holds mu_
  void replay_journal(std::string_view text, const std::shared_ptr<const void>& owner);

  DiskInterface& disk_;
  fs::path dir_;
  StatCache stats_;
  mutable std::mutex mu_;
  // The snapshot, read in place; what this process (or the journal) changed
  // is in nodes_ (a null record: erased) and model_sidecars_, which win.
  std::shared_ptr<const StateImage> image_;
  mutable std::vector<std::shared_ptr<const NodeRecord>> image_records_;
  std::unordered_map<std::string, std::shared_ptr<const NodeRecord>> nodes_;
  std::map<Digest, std::vector<std::string>> model_sidecars_;
  std::uint64_t generation_ = 0;
  bool changed_ = false;
  bool started_empty_ = true;
  std::unique_ptr<AppendFile> journal_;
  bool journal_generation_ok_ = false;      // the journal file's header matches generation_
  std::uint64_t journal_offset_valid_ = 0;  // bytes of whole records in the journal
  std::vector<std::string> warnings_;
  bool in_memory_ = false;
};

}  // namespace winml::store
