// What each node key was computed from, so that --explain can say which
// config key or input file changed. Append-only and read only when a rebuild
// is explained, so it costs nothing on a no-op build. Static ingredients
// (config values, versions) are stored once per distinct set: identical
// models share them.
//
//   S <static digest> <n> (<name> <digest> <text>)*
//   K <key> <static digest> <n> (<name> <digest> <text>)*
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "store/digest.h"
#include "store/disk.h"

namespace winml::store {

struct Ingredient {
  std::string name;  // "config:quantize.samples", "input:optimized.onnx", "file:calib/0/x.npy", "tool"
  Digest digest;     // what enters the key
  std::string text;  // human-readable value (config JSON, version); not part of the key
  friend bool operator==(const Ingredient&, const Ingredient&) = default;
};

class IngredientLog {
 public:
  IngredientLog(DiskInterface& disk, std::filesystem::path file);
  ~IngredientLog();

  void add(const Digest& key, const Digest& static_digest, const std::vector<Ingredient>& statics,
           const std::vector<Ingredient>& dynamic);
  // Records a static set on its own (for a plan not yet built), once per process.
  void add_static(const Digest& static_digest, const std::vector<Ingredient>& statics);
  // Every ingredient of `key` (static then dynamic), or nullopt when unknown.
  std::optional<std::vector<Ingredient>> find(const Digest& key);
  std::optional<std::vector<Ingredient>> find_static(const Digest& static_digest);
  static constexpr std::uint64_t kCompactBytes = 16u << 20;
  bool needs_compaction(std::uint64_t max_bytes = kCompactBytes) const;
  // Rewrites the log with only `live_keys` (and the static sets they or
  // `live_statics` use) once it has grown beyond `max_bytes`.
  void compact(const std::set<Digest>& live_keys, const std::set<Digest>& live_statics,
               std::uint64_t max_bytes = kCompactBytes);

 private:
  void load_locked();
  void append_locked(const std::string& text);

  DiskInterface& disk_;
  std::filesystem::path file_;
  std::mutex mu_;
  bool loaded_ = false;
  std::set<Digest> written_statics_;
  std::map<Digest, std::vector<Ingredient>> statics_;
  std::map<Digest, std::pair<Digest, std::vector<Ingredient>>> keys_;
  std::unique_ptr<AppendFile> file_handle_;
};

}  // namespace winml::store
