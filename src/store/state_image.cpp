#include "store/state_image.h"

#include <xxhash.h>

#include <bit>
#include <cstring>
#include <stdexcept>
#include <unordered_map>

namespace winml::store {

static_assert(std::endian::native == std::endian::little, "the state image is written little-endian");

namespace {

constexpr char kMagic[8] = {'W', 'M', 'S', 'T', 'A', 'T', 'E', '\0'};
// Header: magic, version (u32), 0 (u32), checksum (u64, XXH3-64 of every byte
// from offset 24 on), file size (u64), generation (u64), zeros to 64; then the
// section table: (offset, count) as u64 pairs.
constexpr std::size_t kHeaderSize = 64;
constexpr std::size_t kChecksummedFrom = 24;
enum Sect { kStrings, kNodes, kOutputs, kNodeIndex, kStats, kStatIndex, kSets, kSetNames, kSections };
constexpr std::size_t kTableSize = kSections * 16;
// Bytes per row of each section (a string reference is offset and length, u32 each).
constexpr std::size_t kRowSize[kSections] = {1, 64, 32, 4, 72, 4, 24, 8};

template <class T>
T get(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <class T>
void put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

std::size_t slot_of(std::string_view key, std::size_t slots) { return XXH3_64bits(key.data(), key.size()) & (slots - 1); }

// A hash index over `count` rows: power-of-two slots holding row + 1, 0 when empty.
bool index_fits(const char* index, std::size_t slots, std::size_t rows) {
  if (slots == 0) return rows == 0;
  if (!std::has_single_bit(slots) || slots <= rows) return false;  // at least one empty slot: probes end
  for (std::size_t i = 0; i < slots; ++i)
    if (get<std::uint32_t>(index + 4 * i) > rows) return false;
  return true;
}

std::string encode_index(std::size_t rows, const std::vector<std::string_view>& keys) {
  if (rows == 0) return {};
  const std::size_t slots = std::bit_ceil(2 * rows);
  std::vector<std::uint32_t> index(slots, 0);
  for (std::size_t r = 0; r < rows; ++r) {
    std::size_t s = slot_of(keys[r], slots);
    while (index[s] != 0) s = (s + 1) & (slots - 1);
    index[s] = static_cast<std::uint32_t>(r + 1);
  }
  return std::string(reinterpret_cast<const char*>(index.data()), slots * 4);
}

// The strings area, each distinct string stored once.
class StringArea {
 public:
  void ref(std::string& row, std::string_view s) {
    auto [it, inserted] = at_.try_emplace(std::string(s), static_cast<std::uint32_t>(bytes_.size()));
    if (inserted) {
      if (bytes_.size() + s.size() > UINT32_MAX) throw std::length_error("build state over 4 GiB of text");
      bytes_.append(s);
    }
    put<std::uint32_t>(row, it->second);
    put<std::uint32_t>(row, static_cast<std::uint32_t>(s.size()));
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
  std::unordered_map<std::string, std::uint32_t> at_;
};

void put_digest(std::string& row, const Digest& d) {
  put<std::uint64_t>(row, d.high);
  put<std::uint64_t>(row, d.low);
}

Digest get_digest(const char* p) { return Digest{get<std::uint64_t>(p), get<std::uint64_t>(p + 8)}; }

}  // namespace

bool StateImage::looks_like_image(std::string_view bytes) {
  return bytes.size() >= sizeof kMagic && std::memcmp(bytes.data(), kMagic, sizeof kMagic) == 0;
}

StateImage::Open StateImage::open(std::string_view bytes, std::shared_ptr<const void> owner,
                                  std::shared_ptr<StateImage>& out) {
  if (!looks_like_image(bytes)) return Open::kNotAnImage;
  if (bytes.size() < kHeaderSize + kTableSize) return Open::kCorrupt;
  const char* p = bytes.data();
  if (get<std::uint32_t>(p + 8) != kVersion) return Open::kOtherVersion;
  if (get<std::uint32_t>(p + 12) != 0) return Open::kCorrupt;
  if (get<std::uint64_t>(p + 24) != bytes.size() ||
      XXH3_64bits(p + kChecksummedFrom, bytes.size() - kChecksummedFrom) != get<std::uint64_t>(p + 16))
    return Open::kCorrupt;
  auto image = std::make_shared<StateImage>();
  image->owner_ = std::move(owner);
  image->generation_ = get<std::uint64_t>(p + 32);
  Section* sections[kSections] = {&image->strings_, &image->nodes_,  &image->outputs_, &image->node_index_,
                                  &image->stats_,   &image->stat_index_, &image->sets_, &image->set_names_};
  for (std::size_t s = 0; s < kSections; ++s) {
    const auto offset = get<std::uint64_t>(p + kHeaderSize + 16 * s);
    const auto count = get<std::uint64_t>(p + kHeaderSize + 16 * s + 8);
    if (offset > bytes.size() || count > (bytes.size() - offset) / kRowSize[s]) return Open::kCorrupt;
    *sections[s] = Section{p + offset, static_cast<std::size_t>(count)};
  }
  if (!image->check()) return Open::kCorrupt;
  out = std::move(image);
  return Open::kOk;
}

// Every reference inside the file, once: the accessors then trust them.
bool StateImage::check() const {
  auto ref_ok = [&](const char* ref) {
    return std::uint64_t{get<std::uint32_t>(ref)} + get<std::uint32_t>(ref + 4) <= strings_.count;
  };
  auto range_ok = [](const char* row, const Section& s) {
    return std::uint64_t{get<std::uint32_t>(row)} + get<std::uint32_t>(row + 4) <= s.count;
  };
  for (std::size_t i = 0; i < nodes_.count; ++i) {
    const char* r = nodes_.data + 64 * i;
    if (!ref_ok(r) || !ref_ok(r + 24) || !ref_ok(r + 48) || !range_ok(r + 56, outputs_)) return false;
  }
  for (std::size_t i = 0; i < outputs_.count; ++i)
    if (!ref_ok(outputs_.data + 32 * i)) return false;
  for (std::size_t i = 0; i < stats_.count; ++i)
    if (!ref_ok(stats_.data + 72 * i)) return false;
  for (std::size_t i = 0; i < set_names_.count; ++i)
    if (!ref_ok(set_names_.data + 8 * i)) return false;
  for (std::size_t i = 0; i < sets_.count; ++i) {
    if (!range_ok(sets_.data + 24 * i + 16, set_names_)) return false;
    if (i > 0 && !(sidecar_model(i - 1) < sidecar_model(i))) return false;  // sorted: found by bisection
  }
  return index_fits(node_index_.data, node_index_.count, nodes_.count) &&
         index_fits(stat_index_.data, stat_index_.count, stats_.count);
}

std::string_view StateImage::str(const char* ref) const {
  return std::string_view(strings_.data + get<std::uint32_t>(ref), get<std::uint32_t>(ref + 4));
}

namespace {

template <class KeyOf>
std::size_t probe(const char* index, std::size_t slots, std::string_view key, KeyOf key_of) {
  if (slots == 0) return StateImage::kNotFound;
  for (std::size_t s = slot_of(key, slots), n = 0; n < slots; s = (s + 1) & (slots - 1), ++n) {
    const auto row = get<std::uint32_t>(index + 4 * s);
    if (row == 0) break;
    if (key_of(row - 1) == key) return row - 1;
  }
  return StateImage::kNotFound;
}

}  // namespace

std::size_t StateImage::find_node(std::string_view id) const {
  return probe(node_index_.data, node_index_.count, id, [&](std::size_t i) { return node_id(i); });
}

std::string_view StateImage::node_id(std::size_t i) const { return str(nodes_.data + 64 * i); }

NodeRecord StateImage::node(std::size_t i) const {
  const char* r = nodes_.data + 64 * i;
  NodeRecord rec;
  rec.key = get_digest(r + 8);
  rec.implementation = std::string(str(r + 24));
  rec.elapsed_seconds = std::bit_cast<double>(get<std::uint64_t>(r + 32));
  rec.finished_ns = get<std::int64_t>(r + 40);
  rec.metrics_json = SharedText(owner_, str(r + 48));
  const auto first = get<std::uint32_t>(r + 56), count = get<std::uint32_t>(r + 60);
  rec.outputs.resize(count);
  for (std::uint32_t k = 0; k < count; ++k) {
    const char* o = outputs_.data + 32 * (first + k);
    rec.outputs[k] = OutputFile{std::string(str(o)), get_digest(o + 8), get<std::uint64_t>(o + 24)};
  }
  return rec;
}

std::size_t StateImage::find_stat(std::string_view key) const {
  return probe(stat_index_.data, stat_index_.count, key, [&](std::size_t i) { return stat_key(i); });
}

std::string_view StateImage::stat_key(std::size_t i) const { return str(stats_.data + 72 * i); }

StatEntry StateImage::stat(std::size_t i) const {
  const char* r = stats_.data + 72 * i;
  StatEntry e;
  e.stat.exists = true;
  e.stat.size = get<std::uint64_t>(r + 8);
  e.stat.mtime_ns = get<std::int64_t>(r + 16);
  e.stat.ctime_ns = get<std::int64_t>(r + 24);
  e.stat.inode = get<std::uint64_t>(r + 32);
  e.stat.device = get<std::uint64_t>(r + 40);
  e.digest = get_digest(r + 48);
  e.stamp_ns = get<std::int64_t>(r + 64);
  return e;
}

Digest StateImage::sidecar_model(std::size_t i) const { return get_digest(sets_.data + 24 * i); }

std::vector<std::string> StateImage::sidecar_names(std::size_t i) const {
  const char* r = sets_.data + 24 * i;
  const auto first = get<std::uint32_t>(r + 16), count = get<std::uint32_t>(r + 20);
  std::vector<std::string> names;
  for (std::uint32_t k = 0; k < count; ++k) names.emplace_back(str(set_names_.data + 8 * (first + k)));
  return names;
}

std::size_t StateImage::find_sidecar_set(const Digest& model) const {
  std::size_t lo = 0, hi = sets_.count;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    const Digest d = sidecar_model(mid);
    if (d == model) return mid;
    if (d < model) lo = mid + 1;
    else hi = mid;
  }
  return kNotFound;
}

std::string encode_state_image(const StateContents& c) {
  StringArea strings;
  std::string sections[kSections];
  std::vector<std::string_view> node_keys, stat_keys;
  std::uint32_t outputs = 0;
  for (const auto& [id, r] : c.nodes) {
    std::string& row = sections[kNodes];
    strings.ref(row, id);
    put_digest(row, r->key);
    strings.ref(row, r->implementation);
    put<std::uint64_t>(row, std::bit_cast<std::uint64_t>(r->elapsed_seconds));
    put<std::int64_t>(row, r->finished_ns);
    strings.ref(row, r->metrics_json.view());
    put<std::uint32_t>(row, outputs);
    put<std::uint32_t>(row, static_cast<std::uint32_t>(r->outputs.size()));
    for (const auto& o : r->outputs) {
      strings.ref(sections[kOutputs], o.name);
      put_digest(sections[kOutputs], o.digest);
      put<std::uint64_t>(sections[kOutputs], o.size);
    }
    outputs += static_cast<std::uint32_t>(r->outputs.size());
    node_keys.push_back(id);
  }
  for (const auto& [key, e] : c.stats) {
    std::string& row = sections[kStats];
    strings.ref(row, key);
    put<std::uint64_t>(row, e.stat.size);
    put<std::int64_t>(row, e.stat.mtime_ns);
    put<std::int64_t>(row, e.stat.ctime_ns);
    put<std::uint64_t>(row, e.stat.inode);
    put<std::uint64_t>(row, e.stat.device);
    put_digest(row, e.digest);
    put<std::int64_t>(row, e.stamp_ns);
    stat_keys.push_back(key);
  }
  std::uint32_t names = 0;
  for (const auto& [d, list] : c.sidecars) {
    put_digest(sections[kSets], d);
    put<std::uint32_t>(sections[kSets], names);
    put<std::uint32_t>(sections[kSets], static_cast<std::uint32_t>(list.size()));
    for (const auto& n : list) strings.ref(sections[kSetNames], n);
    names += static_cast<std::uint32_t>(list.size());
  }
  sections[kNodeIndex] = encode_index(c.nodes.size(), node_keys);
  sections[kStatIndex] = encode_index(c.stats.size(), stat_keys);
  sections[kStrings] = strings.bytes();

  std::string out(kHeaderSize + kTableSize, '\0');
  std::memcpy(out.data(), kMagic, sizeof kMagic);
  const std::uint32_t version = StateImage::kVersion;
  std::memcpy(out.data() + 8, &version, 4);
  std::memcpy(out.data() + 32, &c.generation, 8);
  for (std::size_t s = 0; s < kSections; ++s) {
    out.resize((out.size() + 7) & ~std::size_t{7}, '\0');  // rows start 8-aligned
    const std::uint64_t offset = out.size(), count = sections[s].size() / kRowSize[s];
    std::memcpy(out.data() + kHeaderSize + 16 * s, &offset, 8);
    std::memcpy(out.data() + kHeaderSize + 16 * s + 8, &count, 8);
    out += sections[s];
  }
  const std::uint64_t size = out.size();
  std::memcpy(out.data() + 24, &size, 8);
  const std::uint64_t sum = XXH3_64bits(out.data() + kChecksummedFrom, out.size() - kChecksummedFrom);
  std::memcpy(out.data() + 16, &sum, 8);
  return out;
}

}  // namespace winml::store
