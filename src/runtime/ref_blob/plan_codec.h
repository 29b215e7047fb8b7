// The metadata section of a `ref` blob: a Plan without its kernels, as plain
// tables (internal to ref_blob).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/plan.h"
#include "store/digest.h"

namespace winml::runtime::ref_blob {

struct MetaConstant {
  int value = -1;
  DataType dtype = 0;
  Shape shape;
  std::uint64_t offset = 0;  // from the start of the data section
  std::uint64_t bytes = 0;
};

// Weights a kernel packed for the GEMM kernels (runtime::PackedWeights), in
// the panel layout named `isa` (runtime::kPanelLayout; blobs of older
// versions named the instruction set whose layout they held).
struct MetaPacked {
  bool left = true;  // PackedWeights::Side::kLeft
  std::int64_t k = 0, extent = 0, kc = 0;
  std::string isa;
  std::uint64_t offset = 0;  // from the start of the data section
  std::uint64_t bytes = 0;
};

struct MetaStep {
  std::int64_t opset = 0;  // of the node's domain
  int explicit_inputs = 0;
  std::vector<int> inputs, outputs, release;
  std::vector<std::string> implicit_names;
};

struct Meta {
  std::string partition_name;
  std::map<std::string, std::int64_t> dims;
  Opsets opsets;
  std::vector<ValueInfo> values;
  std::vector<int> inputs, outputs;
  std::vector<MetaConstant> constants;
  std::vector<MetaPacked> packed;  // in the order the kernels pack them
  std::vector<ArenaBuffer> buffers;
  std::int64_t arena_bytes = 0;
  std::string nodes;  // serialized GraphProto: one node per step, in step order
  std::vector<MetaStep> steps;
  store::Digest data_checksum;
};

std::string encode_meta(const Meta& meta);
// Checks every index and size against the tables and `data_bytes` (the data
// section's size); InputError starting with `what` on any inconsistency.
Meta decode_meta(std::string_view bytes, std::uint64_t data_bytes, const std::string& what);

}  // namespace winml::runtime::ref_blob
