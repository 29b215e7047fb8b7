#include "store/ingredient_log.h"

#include <cerrno>
#include <cstring>

#include "base/error.h"
#include "base/path_text.h"
#include "store/record_io.h"

namespace winml::store {

namespace {

void write_list(RecordWriter& w, const std::vector<Ingredient>& list) {
  w.field(static_cast<std::uint64_t>(list.size()));
  for (const auto& i : list) w.field(i.name).field(i.digest).field(i.text);
}

bool read_list(const std::vector<std::string_view>& f, std::size_t at, std::vector<Ingredient>& out) {
  std::uint64_t n = 0;
  if (f.size() <= at || !parse_u64(f[at], n) || f.size() != at + 1 + 3 * n) return false;
  out.clear();
  for (std::uint64_t i = 0; i < n; ++i) {
    auto d = Digest::from_hex(f[at + 2 + 3 * i]);
    if (!d) return false;
    out.push_back({field_text(f[at + 1 + 3 * i]), *d, field_text(f[at + 3 + 3 * i])});
  }
  return true;
}

}  // namespace

IngredientLog::IngredientLog(DiskInterface& disk, std::filesystem::path file) : disk_(disk), file_(std::move(file)) {}

IngredientLog::~IngredientLog() = default;

void IngredientLog::add(const Digest& key, const Digest& static_digest, const std::vector<Ingredient>& statics,
                        const std::vector<Ingredient>& dynamic) {
  std::string text;
  RecordWriter w;
  std::lock_guard lock(mu_);
  if (written_statics_.insert(static_digest).second) {
    w.field("S").field(static_digest);
    write_list(w, statics);
    w.finish(text);
    if (loaded_) statics_[static_digest] = statics;
  }
  w.field("K").field(key).field(static_digest);
  write_list(w, dynamic);
  w.finish(text);
  if (loaded_) keys_[key] = {static_digest, dynamic};
  append_locked(text);
}

void IngredientLog::append_locked(const std::string& text) {
  try {
    if (!file_handle_) {
      FileStat st = disk_.stat(to_utf8(file_));
      if (!st.exists) {
        disk_.make_directories(file_.parent_path());
        disk_.write_atomic(file_, "");
      }
      file_handle_ = disk_.open_append(file_, st.exists ? st.size : 0);
    }
    // Records stand alone: a torn line from a crash is skipped by the reader.
    // A line is started on a fresh line in case the previous writer died mid-line.
    file_handle_->append("\n" + text);
  } catch (const BuildError&) {
    // Advisory data: losing it only makes --explain less specific.
  }
}

void IngredientLog::load_locked() {
  if (loaded_) return;
  loaded_ = true;
  if (!disk_.stat(to_utf8(file_)).exists) return;
  std::string text;
  try {
    text = disk_.read(file_);
  } catch (const InputError&) {
    return;
  }
  RecordReader reader(text, /*skip_bad_lines=*/true);
  std::vector<std::string_view> f;
  std::vector<Ingredient> list;
  while (reader.next(f)) {
    if (f[0] == "S" && f.size() >= 3) {
      auto d = Digest::from_hex(f[1]);
      if (d && read_list(f, 2, list)) statics_[*d] = list;
    } else if (f[0] == "K" && f.size() >= 4) {
      auto k = Digest::from_hex(f[1]);
      auto s = Digest::from_hex(f[2]);
      if (k && s && read_list(f, 3, list)) keys_[*k] = {*s, list};
    }
  }
}

void IngredientLog::add_static(const Digest& static_digest, const std::vector<Ingredient>& statics) {
  std::lock_guard lock(mu_);
  if (!written_statics_.insert(static_digest).second) return;
  std::string text;
  RecordWriter w;
  w.field("S").field(static_digest);
  write_list(w, statics);
  w.finish(text);
  if (loaded_) statics_[static_digest] = statics;
  append_locked(text);
}

std::optional<std::vector<Ingredient>> IngredientLog::find_static(const Digest& static_digest) {
  std::lock_guard lock(mu_);
  load_locked();
  auto it = statics_.find(static_digest);
  if (it == statics_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::vector<Ingredient>> IngredientLog::find(const Digest& key) {
  std::lock_guard lock(mu_);
  load_locked();
  auto it = keys_.find(key);
  if (it == keys_.end()) return std::nullopt;
  auto st = statics_.find(it->second.first);
  if (st == statics_.end()) return std::nullopt;
  std::vector<Ingredient> out = st->second;
  out.insert(out.end(), it->second.second.begin(), it->second.second.end());
  return out;
}

bool IngredientLog::needs_compaction(std::uint64_t max_bytes) const {
  FileStat st = disk_.stat(to_utf8(file_));
  return st.exists && st.size > max_bytes;
}

void IngredientLog::compact(const std::set<Digest>& live, const std::set<Digest>& live_statics,
                            std::uint64_t max_bytes) {
  std::lock_guard lock(mu_);
  FileStat st = disk_.stat(to_utf8(file_));
  if (!st.exists || st.size <= max_bytes) return;
  load_locked();
  std::string text;
  RecordWriter w;
  std::set<Digest> statics;
  for (const auto& [key, entry] : keys_) {
    if (!live.count(key)) continue;
    auto s = statics_.find(entry.first);
    if (s == statics_.end()) continue;
    if (statics.insert(entry.first).second) {
      w.field("S").field(entry.first);
      write_list(w, s->second);
      w.finish(text);
    }
    w.field("K").field(key).field(entry.first);
    write_list(w, entry.second);
    w.finish(text);
  }
  for (const auto& d : live_statics) {
    auto s = statics_.find(d);
    if (s == statics_.end() || !statics.insert(d).second) continue;
    w.field("S").field(d);
    write_list(w, s->second);
    w.finish(text);
  }
  file_handle_.reset();
  disk_.write_atomic(file_, text);
  written_statics_ = statics;
}

}  // namespace winml::store
