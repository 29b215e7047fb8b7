#include "store/cache.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "base/atomic_file.h"
#include "base/copy_file.h"
#include "base/error.h"
#include "base/path_text.h"
#include "base/this_process.h"
#include "store/record_io.h"

namespace winml::store {

namespace fs = std::filesystem;

namespace {

constexpr const char* kEntryMagic = "winml-make-action";
constexpr std::uint64_t kEntryVersion = 1;

fs::path sharded(const fs::path& dir, const std::string& hex) { return dir / hex.substr(0, 2) / hex; }

// A temporary whose writer is gone (it may be a folder: a download's) is
// removed, with one line; true if `p` was one.
bool remove_if_abandoned(DiskInterface& disk, const fs::path& p, std::vector<std::string>& problems) {
  if (!is_abandoned_temp(p)) return false;
  disk.remove_tree(p);
  problems.push_back("removed leftover temporary " + to_utf8(p) + " (its writer is gone)");
  return true;
}

// Abandoned temporaries directly in `dir`.
void sweep_abandoned(DiskInterface& disk, const fs::path& dir, std::vector<std::string>& problems) {
  for (const auto& e : disk.list_dir(dir)) remove_if_abandoned(disk, dir / e.name, problems);
}

// Problems in one of ac/ or cas/ that no entry parser sees: leftovers of
// killed writers and things that are not regular files (symlinks, FIFOs,
// folders where a blob belongs). Removes them, one line for each.
void sweep_store(DiskInterface& disk, const fs::path& dir, std::vector<std::string>& problems) {
  auto check = [&](const fs::path& p, EntryKind kind) {
    if (is_temp_name(p)) {
      remove_if_abandoned(disk, p, problems);  // a live writer's is left alone
    } else if (kind != EntryKind::kFile) {
      disk.remove_tree(p);
      problems.push_back("removed " + to_utf8(p) + ": not a regular file");
    }
  };
  for (const auto& shard : disk.list_dir(dir)) {
    const fs::path p = dir / shard.name;
    if (shard.kind != EntryKind::kDirectory || shard.name.size() != 2) {
      check(p, shard.kind);
      continue;
    }
    for (const auto& e : disk.list_dir(p)) check(p / e.name, e.kind);
  }
}

std::vector<fs::path> files_under(const DiskInterface& disk, const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& rel : disk.list_files(dir))
    if (!is_temp_name(dir / from_utf8(rel))) out.push_back(dir / from_utf8(rel));
  return out;
}

}  // namespace

LocalCache::LocalCache(fs::path root, DiskInterface& disk) : root_(std::move(root)), disk_(disk) {}

fs::path LocalCache::default_dir() {
  if (auto d = environment_variable("WINML_MAKE_CACHE_DIR"); d && !d->empty()) return from_utf8(*d);
  if (const std::string home = user_cache_home(); !home.empty()) return from_utf8(home) / "winml-make";
  return fs::temp_directory_path() / "winml-make-cache";
}

fs::path LocalCache::blob_path(const Digest& d) const { return sharded(root_ / "cas", d.hex()); }
fs::path LocalCache::entry_path(const Digest& key) const { return sharded(root_ / "ac", key.hex()); }

std::optional<ActionEntry> parse_entry(const std::string& text) {
  RecordReader reader(text);
  std::vector<std::string_view> f;
  std::uint64_t version = 0, n = 0;
  ActionEntry e;
  if (!reader.next(f) || f.size() != 4 || f[0] != "H" || f[1] != kEntryMagic || !parse_u64(f[2], version) ||
      version != kEntryVersion)
    return std::nullopt;
  auto key = Digest::from_hex(f[3]);
  if (!key) return std::nullopt;
  e.key = *key;
  if (!reader.next(f) || f.size() != 5 || f[0] != "E" || !parse_double(f[2], e.elapsed_seconds) || !parse_u64(f[4], n))
    return std::nullopt;
  e.implementation = field_text(f[1]);
  e.metrics_json = field_text(f[3]);
  for (std::uint64_t i = 0; i < n; ++i) {
    OutputFile o;
    if (!reader.next(f) || f.size() != 4 || f[0] != "O" || !parse_u64(f[3], o.size)) return std::nullopt;
    auto d = Digest::from_hex(f[2]);
    if (!d) return std::nullopt;
    o.name = field_text(f[1]);
    o.digest = *d;
    // Names come from a shared directory or server: never let one climb out of the target folder.
    if (o.name.empty() || o.name.find('/') != std::string::npos || o.name == "." || o.name == ".." ||
        o.name.find('\0') != std::string::npos)
      return std::nullopt;
    e.outputs.push_back(std::move(o));
  }
  if (reader.next(f) || reader.corrupt()) return std::nullopt;
  return e;
}

std::string entry_text(const ActionEntry& entry) {
  std::string text;
  RecordWriter w;
  w.field("H").field(kEntryMagic).field(kEntryVersion).field(entry.key);
  w.finish(text);
  w.field("E").field(entry.implementation).field(entry.elapsed_seconds).field(entry.metrics_json);
  w.field(static_cast<std::uint64_t>(entry.outputs.size()));
  w.finish(text);
  for (const auto& o : entry.outputs) {
    w.field("O").field(o.name).field(o.digest).field(o.size);
    w.finish(text);
  }
  return text;
}

std::optional<ActionEntry> LocalCache::read_entry(const fs::path& file) const {
  try {
    return parse_entry(disk_.read(file));
  } catch (const InputError&) {
    return std::nullopt;
  }
}

std::optional<ActionEntry> LocalCache::lookup(const Digest& key) {
  const fs::path file = entry_path(key);
  if (!disk_.stat(to_utf8(file)).exists) return std::nullopt;
  auto e = disk_.is_plain_file(file) ? read_entry(file) : std::nullopt;
  if (!e || e->key != key) {
    disk_.remove_tree(file);
    return std::nullopt;
  }
  disk_.touch(file);  // the entry's mtime is its last use, for gc
  return e;
}

std::optional<Rejection> LocalCache::restore(const ActionEntry& entry, const fs::path& dir) {
  auto refuse = [&](const char* reason, std::string detail) {
    disk_.remove(entry_path(entry.key));
    return Rejection{reason, std::move(detail)};
  };
  if (auto why = outputs_problem(entry.outputs)) return refuse(why->reason.c_str(), why->detail);
  for (const auto& o : entry.outputs) {
    const fs::path blob = blob_path(o.digest);
    if (!disk_.is_plain_file(blob)) {
      // Something else in its place (a folder, a symlink, dangling or not)?
      const bool other = disk_.stat(to_utf8(blob)).exists || disk_.remove_file(blob);
      if (other) disk_.remove_tree(blob);
      return refuse(rejection::kMissingFile,
                    "blob " + o.digest.hex() + " of " + o.name + (other ? " is not a regular file" : " is missing"));
    }
    disk_.link_or_copy(blob, dir / o.name);
  }
  // Every file is in place (each name once, so none was overwritten by a
  // later one): now check that each holds what the entry says.
  for (const auto& o : entry.outputs) {
    const Digest got = disk_.hash(dir / o.name, nullptr);
    if (got != o.digest) {
      disk_.remove(blob_path(o.digest));
      return refuse(rejection::kContent,
                    "blob " + o.digest.hex() + " of " + o.name + " is corrupt: it hashes to " + got.hex());
    }
  }
  return std::nullopt;
}

void LocalCache::forget(const Digest& key) { disk_.remove(entry_path(key)); }

void LocalCache::store(const ActionEntry& entry, const fs::path& dir) {
  for (const auto& o : entry.outputs) {
    const fs::path blob = blob_path(o.digest);
    if (disk_.is_plain_file(blob)) continue;  // content-addressed: already there
    disk_.remove_tree(blob);                  // whatever else sits in its place
    disk_.link_or_copy(dir / o.name, blob);
    disk_.make_read_only(blob);
  }
  put_entry(entry);
}

bool LocalCache::has_blob(const Digest& d) const { return disk_.is_plain_file(blob_path(d)); }

void LocalCache::adopt_blob(const Digest& d, const fs::path& verified_file) {
  const fs::path blob = blob_path(d);
  disk_.make_directories(blob.parent_path());
  disk_.make_read_only(verified_file);
  disk_.rename(verified_file, blob);
}

void LocalCache::put_entry(const ActionEntry& entry) {
  disk_.make_directories(entry_path(entry.key).parent_path());
  disk_.write_atomic(entry_path(entry.key), entry_text(entry));
}

fs::path LocalCache::incoming_dir() const { return root_ / "incoming"; }

CacheStats LocalCache::stats() const {
  CacheStats s;
  for (const auto& f : files_under(disk_, root_ / "ac")) ++s.entries, s.bytes += disk_.stat(to_utf8(f)).size;
  for (const auto& f : files_under(disk_, root_ / "cas")) ++s.blobs, s.bytes += disk_.stat(to_utf8(f)).size;
  return s;
}

std::vector<std::string> LocalCache::sweep_leftovers() {
  std::vector<std::string> problems;
  for (const char* store : {"cas", "ac"}) sweep_store(disk_, root_ / store, problems);
  sweep_abandoned(disk_, incoming_dir(), problems);
  return problems;
}

std::vector<std::string> LocalCache::sweep_incoming() {
  std::vector<std::string> problems;
  sweep_abandoned(disk_, incoming_dir(), problems);
  return problems;
}

std::optional<Rejection> LocalCache::check_artifact(const ActionEntry& entry, const ArtifactFiles& artifact_files) {
  // The artifact is read where it would be restored: its files side by side.
  const fs::path dir = incoming_dir() / ("verify" + std::string(kTempMarker) + std::to_string(current_process_id()));
  disk_.remove_tree(dir);
  std::vector<std::string> names;
  std::optional<Rejection> why;
  try {
    disk_.make_directories(dir);
    for (const auto& o : entry.outputs) {
      disk_.link_or_copy(blob_path(o.digest), dir / o.name);
      names.push_back(o.name);
    }
    why = artifact_problem(artifact_files(dir / entry.outputs.front().name), names);
  } catch (const std::exception& e) {
    why = Rejection{rejection::kNotTheArtifact, entry.outputs.front().name + " does not load: " + e.what()};
  }
  disk_.remove_tree(dir);
  return why;
}

CacheVerifyReport LocalCache::verify(const ArtifactFiles& artifact_files) {
  CacheVerifyReport r;
  r.problems = sweep_leftovers();
  for (const auto& f : files_under(disk_, root_ / "cas")) {
    ++r.blobs_checked;
    auto want = Digest::from_hex(to_utf8(f.filename()));
    std::uint64_t n = 0;
    Digest got = disk_.hash(f, &n);
    r.bytes_checked += n;
    if (!want || got != *want) {
      r.problems.push_back("removed corrupt blob " + to_utf8(f) + " (content hashes to " + got.hex() + ")");
      disk_.remove(f);
    }
  }
  for (const auto& f : files_under(disk_, root_ / "ac")) {
    ++r.entries_checked;
    r.bytes_checked += disk_.stat(to_utf8(f)).size;  // as stats() counts: entries and blobs
    auto e = read_entry(f);
    std::string why;
    if (!e || e->key.hex() != to_utf8(f.filename())) why = "is unreadable or torn";
    else if (auto broken = outputs_problem(e->outputs)) why = broken->reason + ": " + broken->detail;
    else
      for (const auto& o : e->outputs)
        if (!disk_.is_plain_file(blob_path(o.digest)))
          why = "needs missing blob " + o.digest.hex() + " (" + o.name + ")";
    if (why.empty() && artifact_files)
      if (auto wrong = check_artifact(*e, artifact_files)) why = wrong->reason + ": " + wrong->detail;
    if (!why.empty()) {
      r.problems.push_back("removed entry " + to_utf8(f) + ": " + why);
      disk_.remove(f);
    }
  }
  return r;
}

namespace {
// An entry as gc weighs it: when it was last used, and the blobs it needs.
struct GcEntry {
  fs::path file;
  std::int64_t used_ns;
  std::uint64_t size;
  std::vector<Digest> blobs;
};
}  // namespace

CacheGcReport LocalCache::gc(std::uint64_t max_bytes) {
  CacheGcReport r;
  std::vector<GcEntry> entries;
  std::map<Digest, int> refs;
  std::map<Digest, std::pair<fs::path, std::uint64_t>> blobs;
  std::uint64_t total = 0;
  for (const auto& f : files_under(disk_, root_ / "cas")) {
    auto d = Digest::from_hex(to_utf8(f.filename()));
    const std::uint64_t size = disk_.stat(to_utf8(f)).size;
    total += size;
    if (d) blobs[*d] = {f, size};
  }
  for (const auto& f : files_under(disk_, root_ / "ac")) {
    const FileStat st = disk_.stat(to_utf8(f));
    GcEntry e{f, st.mtime_ns, st.size, {}};
    total += e.size;
    if (auto a = read_entry(f))
      for (const auto& o : a->outputs) e.blobs.push_back(o.digest), ++refs[o.digest];
    entries.push_back(std::move(e));
  }
  r.bytes_before = total;
  auto drop_blob = [&](const Digest& d) {
    auto it = blobs.find(d);
    if (it == blobs.end()) return;
    disk_.remove(it->second.first);
    total -= it->second.second;
    ++r.blobs_removed;
    blobs.erase(it);
  };
  // Blobs no entry refers to are garbage whatever the size limit.
  std::vector<Digest> orphans;
  for (const auto& [d, b] : blobs)
    if (!refs.count(d)) orphans.push_back(d);
  for (const auto& d : orphans) drop_blob(d);
  std::sort(entries.begin(), entries.end(), [](const GcEntry& a, const GcEntry& b) { return a.used_ns < b.used_ns; });
  for (const auto& e : entries) {
    if (total <= max_bytes) break;
    disk_.remove(e.file);
    total -= e.size;
    ++r.entries_removed;
    for (const auto& d : e.blobs)
      if (--refs[d] == 0) drop_blob(d);
  }
  r.bytes_after = total;
  return r;
}

std::uint64_t parse_size(const std::string& text) {
  std::string s = text;
  std::size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  std::string number = s.substr(0, i), unit = s.substr(i);
  for (auto& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit.ends_with("IB")) unit = unit.substr(0, unit.size() - 2);
  else if (unit.ends_with("B")) unit = unit.substr(0, unit.size() - 1);
  double v = 0;
  if (number.empty() || !parse_double(number, v))
    throw InputError("--max-size '" + text + "': expected a size such as 500M, 10G or 1048576");
  static const std::map<std::string, double> units = {
      {"", 1}, {"K", 1024.0}, {"M", 1024.0 * 1024}, {"G", 1024.0 * 1024 * 1024}, {"T", 1024.0 * 1024 * 1024 * 1024}};
  auto u = units.find(unit);
  if (u == units.end())
    throw InputError("--max-size '" + text + "': unknown unit '" + text.substr(i) + "' (use K, M, G or T)");
  return static_cast<std::uint64_t>(std::llround(v * u->second));
}

}  // namespace winml::store
