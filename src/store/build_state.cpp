#include "store/build_state.h"

#include <cerrno>
#include <cstring>

#include "base/error.h"
#include "base/path_text.h"
#include "store/record_io.h"

namespace winml::store {

namespace {

constexpr const char* kSnapshotFile = "state";
constexpr const char* kJournalFile = "journal";
constexpr const char* kSnapshotMagic = "winml-make-state";
constexpr const char* kJournalMagic = "winml-make-journal";

void write_node(RecordWriter& w, const std::string& id, const NodeRecord& r) {
  w.field("N").field(id).field(r.key).field(r.implementation).field(r.elapsed_seconds).field(r.finished_ns);
  w.field(r.metrics_json).field(static_cast<std::uint64_t>(r.outputs.size()));
  for (const auto& o : r.outputs) w.field(o.name).field(o.digest).field(o.size);
}

bool read_digest(std::string_view s, Digest& d) {
  auto v = Digest::from_hex(s);
  if (!v) return false;
  d = *v;
  return true;
}

// Metrics stay where they are in `text` (kept alive by `owner`) unless they
// need unescaping: a no-op build never reads them.
bool read_node(const std::vector<std::string_view>& f, std::string& id, NodeRecord& r,
               const std::shared_ptr<const void>& owner) {
  if (f.size() < 8) return false;
  id = field_text(f[1]);
  std::uint64_t n = 0;
  if (!read_digest(f[2], r.key) || !parse_double(f[4], r.elapsed_seconds) || !parse_i64(f[5], r.finished_ns) ||
      !parse_u64(f[7], n) || f.size() != 8 + 3 * n)
    return false;
  r.implementation = field_text(f[3]);
  if (f[6].find('\\') == std::string_view::npos) r.metrics_json = SharedText(owner, f[6]);
  else r.metrics_json = field_text(f[6]);
  r.outputs.resize(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    auto& o = r.outputs[i];
    o.name = field_text(f[8 + 3 * i]);
    if (!read_digest(f[9 + 3 * i], o.digest) || !parse_u64(f[10 + 3 * i], o.size)) return false;
  }
  return true;
}

bool read_model_sidecars(const std::vector<std::string_view>& f, Digest& d, std::vector<std::string>& names) {
  std::uint64_t n = 0;
  if (f.size() < 3 || !read_digest(f[1], d) || !parse_u64(f[2], n) || f.size() != 3 + n) return false;
  names.clear();
  for (std::uint64_t i = 0; i < n; ++i) names.push_back(field_text(f[3 + i]));
  return true;
}

}  // namespace

BuildState::BuildState(DiskInterface& disk, fs::path state_dir, fs::path project_dir)
    : disk_(disk), dir_(std::move(state_dir)), stats_(disk, std::move(project_dir)) {}

BuildState::~BuildState() = default;

void BuildState::load() {
  std::lock_guard lock(mu_);
  nodes_.clear();
  model_sidecars_.clear();
  image_.reset();
  image_records_.clear();
  stats_.set_base(nullptr);
  generation_ = 0;
  const fs::path snapshot = dir_ / kSnapshotFile;
  if (disk_.stat(to_utf8(snapshot)).exists) {
    std::string_view text;
    std::shared_ptr<const void> keep;  // the snapshot's bytes (mapped), which records refer to
    try {
      keep = disk_.view(snapshot, text);
    } catch (const InputError& e) {
      warnings_.push_back(std::string(e.what()) + "; starting without build records");
    }
    if (StateImage::looks_like_image(text)) {
      open_image(text, keep, snapshot);
    } else if (!text.empty() && !parse_text_snapshot(text, keep)) {
      warnings_.push_back(file_error(to_utf8(snapshot), "is corrupt; starting without build records"));
      nodes_.clear();
      model_sidecars_.clear();
      generation_ = 0;
    } else if (!nodes_.empty()) {
      changed_ = true;  // an earlier version's text: saved as an image at the end of this build
    }
  }
  const fs::path journal = dir_ / kJournalFile;
  if (disk_.stat(to_utf8(journal)).exists) {
    try {
      auto text = std::make_shared<const std::string>(disk_.read(journal));
      replay_journal(*text, text);
    } catch (const InputError& e) {
      warnings_.push_back(e.what());
    }
  }
  started_empty_ = true;
  for (const auto& [id, r] : nodes_) started_empty_ = started_empty_ && !r;
  for (std::size_t i = 0; started_empty_ && image_ && i < image_->node_count(); ++i)
    started_empty_ = nodes_.count(std::string(image_->node_id(i))) != 0;
}

void BuildState::open_image(std::string_view bytes, const std::shared_ptr<const void>& owner, const fs::path& file) {
  std::shared_ptr<StateImage> image;
  switch (StateImage::open(bytes, owner, image)) {
    case StateImage::Open::kOk:
      image_ = image;
      generation_ = image->generation();
      stats_.set_base(image_);
      break;
    case StateImage::Open::kOtherVersion:
      warnings_.push_back("build records of another winml-make version are ignored");
      break;
    case StateImage::Open::kNotAnImage:
    case StateImage::Open::kCorrupt:
      warnings_.push_back(file_error(to_utf8(file), "is corrupt; starting without build records"));
      break;
  }
}

bool BuildState::parse_text_snapshot(std::string_view text, const std::shared_ptr<const void>& owner) {
  RecordReader reader(text);
  std::vector<std::string_view> f;
  if (!reader.next(f) || f.size() != 4 || f[0] != "H" || f[1] != kSnapshotMagic) return false;
  std::uint64_t version = 0;
  if (!parse_u64(f[2], version) || !parse_u64(f[3], generation_)) return false;
  if (version != kFormatVersion) {
    warnings_.push_back("build records of another winml-make version are ignored");
    generation_ = 0;
    return true;
  }
  std::string id;
  while (reader.next(f)) {
    if (f[0] == "N") {
      NodeRecord r;
      if (!read_node(f, id, r, owner)) return false;
      nodes_[id] = std::make_shared<const NodeRecord>(std::move(r));
    } else if (f[0] == "F") {
      StatEntry e;
      std::uint64_t size = 0, ino = 0, dev = 0;
      if (f.size() != 9 || !parse_u64(f[2], size) || !parse_i64(f[3], e.stat.mtime_ns) ||
          !parse_i64(f[4], e.stat.ctime_ns) || !parse_u64(f[5], ino) || !parse_u64(f[6], dev) ||
          !read_digest(f[7], e.digest) || !parse_i64(f[8], e.stamp_ns))
        return false;
      e.stat.exists = true;
      e.stat.size = size;
      e.stat.inode = ino;
      e.stat.device = dev;
      stats_.load(field_text(f[1]), e);
    } else if (f[0] == "S") {
      Digest d;
      std::vector<std::string> names;
      if (!read_model_sidecars(f, d, names)) return false;
      model_sidecars_[d] = std::move(names);
    } else if (f[0] == "M") {
      // (Older builds' file sets, which held the first copy's own name: found again on use.)
    } else {
      return false;
    }
  }
  return !reader.corrupt();
}

void BuildState::replay_journal(std::string_view text, const std::shared_ptr<const void>& owner) {
  RecordReader reader(text);
  std::vector<std::string_view> f;
  std::uint64_t version = 0, generation = 0;
  if (!reader.next(f) || f.size() != 4 || f[0] != "H" || f[1] != kJournalMagic || !parse_u64(f[2], version) ||
      !parse_u64(f[3], generation) || version != kFormatVersion || generation != generation_)
    return;  // a journal already folded into the snapshot (or unreadable): nothing to replay
  std::string id;
  while (reader.next(f)) {
    if (f[0] == "N") {
      NodeRecord r;
      if (!read_node(f, id, r, owner)) break;
      nodes_[id] = std::make_shared<const NodeRecord>(std::move(r));
    } else if (f[0] == "D" && f.size() == 2) {
      nodes_[field_text(f[1])] = nullptr;
    } else if (f[0] == "S") {
      Digest d;
      std::vector<std::string> names;
      if (!read_model_sidecars(f, d, names)) break;
      model_sidecars_[d] = std::move(names);
    } else if (f[0] == "M") {
      continue;  // an older build's file set (see parse_snapshot)
    } else {
      break;
    }
    changed_ = true;  // the snapshot is behind: rewrite it at the end of this build
  }
  // A torn last line (a crash while appending) is simply not replayed.
  if (!journal_) journal_offset_valid_ = reader.corrupt() ? reader.offset() : text.size();
  journal_generation_ok_ = true;
}

std::shared_ptr<const NodeRecord> BuildState::find(const std::string& node_id) const {
  std::lock_guard lock(mu_);
  if (!nodes_.empty()) {
    auto it = nodes_.find(node_id);
    if (it != nodes_.end()) return it->second;
  }
  return image_record(node_id);
}

std::shared_ptr<const NodeRecord> BuildState::image_record(const std::string& node_id) const {
  if (!image_) return nullptr;
  const std::size_t i = image_->find_node(node_id);
  if (i == StateImage::kNotFound) return nullptr;
  if (image_records_.empty()) image_records_.resize(image_->node_count());
  if (!image_records_[i]) image_records_[i] = std::make_shared<const NodeRecord>(image_->node(i));
  return image_records_[i];
}

bool BuildState::has_record(const std::string& node_id) const {
  auto it = nodes_.find(node_id);
  if (it != nodes_.end()) return it->second != nullptr;
  return image_ && image_->find_node(node_id) != StateImage::kNotFound;
}

std::vector<std::string> BuildState::node_ids() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (std::size_t i = 0; image_ && i < image_->node_count(); ++i) {
    std::string id(image_->node_id(i));
    if (!nodes_.count(id)) out.push_back(std::move(id));
  }
  for (const auto& [id, r] : nodes_)
    if (r) out.push_back(id);
  return out;
}

void BuildState::put(const std::string& node_id, const NodeRecord& record) {
  RecordWriter w;
  std::string line;
  write_node(w, node_id, record);
  w.finish(line);
  auto stored = std::make_shared<const NodeRecord>(record);
  std::lock_guard lock(mu_);
  nodes_[node_id] = std::move(stored);
  changed_ = true;
  append_journal(line);
}

void BuildState::erase(const std::string& node_id) {
  std::lock_guard lock(mu_);
  if (!has_record(node_id)) return;
  nodes_[node_id] = nullptr;
  RecordWriter w;
  std::string line;
  w.field("D").field(node_id);
  w.finish(line);
  changed_ = true;
  append_journal(line);
}

std::optional<std::vector<std::string>> BuildState::model_sidecars(const Digest& model_digest) const {
  std::lock_guard lock(mu_);
  auto it = model_sidecars_.find(model_digest);
  if (it != model_sidecars_.end()) return it->second;
  const std::size_t i = image_ ? image_->find_sidecar_set(model_digest) : StateImage::kNotFound;
  if (i == StateImage::kNotFound) return std::nullopt;
  return image_->sidecar_names(i);
}

void BuildState::put_model_sidecars(const Digest& model_digest, const std::vector<std::string>& names) {
  RecordWriter w;
  std::string line;
  w.field("S").field(model_digest).field(static_cast<std::uint64_t>(names.size()));
  for (const auto& n : names) w.field(n);
  w.finish(line);
  std::lock_guard lock(mu_);
  if (image_ && image_->find_sidecar_set(model_digest) != StateImage::kNotFound) return;
  auto [it, inserted] = model_sidecars_.emplace(model_digest, names);
  if (!inserted) return;
  changed_ = true;
  append_journal(line);
}

void BuildState::append_journal(const std::string& line) {
  // Caller holds mu_.
  if (in_memory_) return;
  const fs::path journal = dir_ / kJournalFile;
  if (!journal_) {
    disk_.make_directories(dir_);
    if (!journal_generation_ok_) {
      // Start this generation's journal: the header alone, atomically.
      RecordWriter w;
      std::string header;
      w.field("H").field(kJournalMagic).field(static_cast<std::uint64_t>(kFormatVersion)).field(generation_);
      w.finish(header);
      disk_.write_atomic(journal, header);
      journal_generation_ok_ = true;
      journal_offset_valid_ = header.size();
    }
    // Cut a torn tail left by a crash, so new records follow valid ones.
    journal_ = disk_.open_append(journal, journal_offset_valid_);
  }
  // One write per record: a crash leaves it whole or torn, and a torn line
  // fails its checksum. No fsync: the outputs it describes are already
  // durable, and a lost record only costs a rebuild of that node.
  journal_->append(line);
  journal_offset_valid_ += line.size();
}

void BuildState::save() {
  std::lock_guard lock(mu_);
  if (in_memory_ || (!changed_ && !stats_.dirty())) return;
  StateContents contents;
  contents.generation = generation_ + 1;
  std::vector<NodeRecord> from_image;  // the image's records that stay, made for the writer
  from_image.reserve(image_ ? image_->node_count() : 0);
  for (std::size_t i = 0; image_ && i < image_->node_count(); ++i) {
    std::string id(image_->node_id(i));
    if (nodes_.count(id)) continue;
    from_image.push_back(image_->node(i));
    contents.nodes.emplace(std::move(id), &from_image.back());
  }
  for (const auto& [id, r] : nodes_)
    if (r) contents.nodes.emplace(id, r.get());
  for (std::size_t i = 0; image_ && i < image_->sidecar_set_count(); ++i)
    contents.sidecars.emplace(image_->sidecar_model(i), image_->sidecar_names(i));
  for (const auto& [d, names] : model_sidecars_) contents.sidecars.emplace(d, names);
  contents.stats = stats_.entries();
  const std::string text = encode_state_image(contents);
  const std::uint64_t next = contents.generation;
  disk_.make_directories(dir_);
  disk_.write_atomic(dir_ / kSnapshotFile, text);
  generation_ = next;
  // The old journal is now part of the snapshot; its generation no longer
  // matches, so it is ignored even if the next lines are never reached.
  journal_.reset();
  disk_.remove(dir_ / kJournalFile);
  journal_generation_ok_ = false;
  journal_offset_valid_ = 0;
  changed_ = false;
  stats_.mark_clean();
}

}  // namespace winml::store
