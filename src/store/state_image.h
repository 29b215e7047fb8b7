// The build state snapshot as a binary image that is read where it lies.
//
// A no-op build of a thousand models looks up every node record and every
// stat entry once, and changes nothing. Parsing a text snapshot into maps of
// strings cost about a third of such a build. This image is mapped and used
// in place, as ninja's .ninja_deps and n2's db are: fixed-width rows, one
// string area, and hash indexes written with it, so loading builds nothing
// and a lookup hashes its key and probes the index.
//
//   header     magic "WMSTATE\0", version, generation, file size, XXH3-64 of
//              everything after the header
//   sections   offset and count of each: strings, nodes, outputs, node index,
//              stats, stat index, sidecar sets, sidecar names
//
// Every offset, length and index slot is checked against the file once at
// open(), so the accessors cannot read outside it whatever the bytes are.
// Little-endian (the writer and reader are the same build of the tool).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "store/digest.h"
#include "store/node_record.h"
#include "store/stat_cache.h"

namespace winml::store {

class StateImage {
 public:
  static constexpr std::uint32_t kVersion = 2;
  static constexpr std::size_t kNotFound = static_cast<std::size_t>(-1);

  enum class Open { kOk, kNotAnImage, kOtherVersion, kCorrupt };
  // Checks `bytes` (kept alive by `owner`); on kOk, `out` reads them in place.
  static Open open(std::string_view bytes, std::shared_ptr<const void> owner, std::shared_ptr<StateImage>& out);
  // True when `bytes` begin as an image does (of any version).
  static bool looks_like_image(std::string_view bytes);

  std::uint64_t generation() const { return generation_; }

  std::size_t node_count() const { return nodes_.count; }
  std::size_t find_node(std::string_view id) const;
  std::string_view node_id(std::size_t i) const;
  // The record; its metrics are a view into the image.
  NodeRecord node(std::size_t i) const;

  std::size_t stat_count() const { return stats_.count; }
  std::size_t find_stat(std::string_view key) const;
  std::string_view stat_key(std::size_t i) const;
  StatEntry stat(std::size_t i) const;

  std::size_t sidecar_set_count() const { return sets_.count; }
  Digest sidecar_model(std::size_t i) const;
  std::vector<std::string> sidecar_names(std::size_t i) const;
  std::size_t find_sidecar_set(const Digest& model) const;

 private:
  struct Section {
    const char* data = nullptr;
    std::size_t count = 0;
  };
  bool check() const;
  std::string_view str(const char* ref) const;

  std::shared_ptr<const void> owner_;
  std::uint64_t generation_ = 0;
  Section strings_, nodes_, outputs_, node_index_, stats_, stat_index_, sets_, set_names_;
};

// What a snapshot holds, for the writer.
struct StateContents {
  std::uint64_t generation = 0;
  std::map<std::string, const NodeRecord*> nodes;
  std::map<std::string, StatEntry> stats;
  std::map<Digest, std::vector<std::string>> sidecars;
};
// The image of `contents`: the same contents give the same bytes.
std::string encode_state_image(const StateContents& contents);

}  // namespace winml::store
