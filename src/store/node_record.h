// What the build state records of a node: its key, how it ran, and the
// output files it left (by name in the model's folder, with their digests).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "store/digest.h"
#include "store/shared_text.h"

namespace winml::store {

struct OutputFile {
  std::string name;  // file name in the model's output folder
  Digest digest;
  std::uint64_t size = 0;
  friend bool operator==(const OutputFile&, const OutputFile&) = default;
};

struct NodeRecord {
  Digest key;
  std::string implementation;
  double elapsed_seconds = 0;
  std::int64_t finished_ns = 0;
  SharedText metrics_json = SharedText::literal("{}");
  std::vector<OutputFile> outputs;
};

}  // namespace winml::store
