// The `ref` blob: a compiled execution plan of the runtime, stored in the
// `ep_cache_context` of an EPContext node (inline, embed_mode = 1) or in a
// sidecar file next to the model (embed_mode = 0).
//
// Layout (all integers little-endian; docs/epcontext.md has the full table):
//
//   header   80 bytes: magic "WINMLREF", format version, offsets and sizes of
//            the two sections, and an XXH3-128 checksum over the header's
//            first 64 bytes and the metadata
//   metadata the plan: opsets, values with resolved shapes and arena slots,
//            steps in topological order with their nodes (attributes) and
//            release lists, the memory plan, the constant table, and an
//            XXH3-128 checksum of the data section
//   data     the constants (weights and folded values), then the weights the
//            kernels packed for the GEMM kernels (in the layout of one
//            instruction-set variant: another machine repacks them), each
//            64-byte aligned, in the exact layout the kernels read
//
// Loading checks the header, the version and the metadata checksum, then maps
// the constants in place: nothing is re-derived (no shape inference, no
// topological sort, no memory planning, no copy or packing of weights). The data
// checksum is checked by check_blob(..., full = true), which winml-make runs
// whenever it produces, converts or validates a blob; a session does not read
// every weight byte up front (that alone would cost more than loading).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "model/onnx.h"
#include "runtime/plan.h"
#include "store/digest.h"

namespace winml::runtime::ref_blob {

// The EPContext `source` of ref blobs (rules/ep/ref.toml: ep_type).
inline constexpr const char* kSource = "WinmlMakeRefExecutionProvider";
// 2: packed GEMM weights stored after the constants. 3: each slab of packed
// weights starts 64-byte aligned (PackedWeights::slab_stride). Packed
// weights name their layout: "panels16" (PackedWeights, one for every
// instruction set); others (an instruction set's name, written before there
// was one layout) are packed again as a blob loads.
inline constexpr std::uint32_t kFormatVersion = 3;
// The EPContext `ep_sdk_version` written with blobs of this format.
inline constexpr const char* kSdkVersion = "winml-make-ref-3";

// What a blob is made of.
struct BlobContents {
  const Plan& plan;
  const onnx::GraphProto& graph;  // the plan's nodes, by Step::node (inline tensors only)
  std::string partition_name;
  std::map<std::string, std::int64_t> dims;  // symbolic dimensions the shapes were resolved with
};

// Receives the blob's bytes in order.
using Sink = std::function<void(const void* data, std::size_t size)>;

// Writes the blob to `sink`; returns its size. Deterministic: the same plan
// gives the same bytes.
std::uint64_t write_blob(const BlobContents& contents, const Sink& sink);
// The blob in memory (for embed_mode = 1).
std::string blob_bytes(const BlobContents& contents);
// The size write_blob() will write, without reading the weights.
std::uint64_t blob_size(const BlobContents& contents);

struct BlobSummary {
  std::uint32_t version = 0;
  std::uint64_t total_bytes = 0;
  std::uint64_t metadata_bytes = 0;
  std::uint64_t data_bytes = 0;
  std::string partition_name;
  std::map<std::string, std::int64_t> dims;
  std::size_t steps = 0;
  std::size_t values = 0;
  std::size_t constants = 0;
  std::size_t inputs = 0;
  std::size_t outputs = 0;
  std::int64_t arena_bytes = 0;
  store::Digest data_checksum;
};

// Checks magic, version, section bounds and the metadata checksum (and, with
// `full`, the data checksum: every byte is read). InputError starting with
// `what` (the blob file, or "<model>: EPContext node 'x'") otherwise.
BlobSummary check_blob(std::string_view blob, const std::string& what, bool full);

// The blob's plan, after the checks of check_blob(full = false). Kernels
// are created through the registry; constants are views of `blob`, which
// `keepalive` keeps alive (null when the caller guarantees the bytes outlive
// the plan). `summary`, when given, receives the blob's summary.
std::shared_ptr<const Plan> load_plan(std::string_view blob, std::shared_ptr<const void> keepalive,
                                      const std::string& what, BlobSummary* summary = nullptr);

}  // namespace winml::runtime::ref_blob
