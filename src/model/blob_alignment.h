// Embedded EPContext blobs placed at aligned offsets of the model file, so
// that a model loaded with its blobs mapped (model/mapped_blobs.h) hands
// the runtime weights it can use where they lie: a `ref` blob's packed
// weights are 64-byte aligned relative to the blob's start.
//
// Protobuf writes fields in field-number order, so the offset of an
// attribute's bytes follows from the sizes of what precedes it. The
// `notes` attribute of each such node (an optional text of the EPContext
// schema) is moved before `ep_cache_context` and padded with spaces until
// the blob's offset is a multiple of the alignment.
#pragma once

#include <cstdint>
#include <string_view>

#include "model/onnx.h"

namespace winml::model {

// For every EPContext node of the main graph with a `notes` attribute and an
// embedded ep_cache_context of at least `min_bytes` (and, when `source` is
// given, whose `source` attribute is that).
void align_embedded_blobs(onnx::ModelProto& model, std::uint64_t alignment, std::uint64_t min_bytes,
                          std::string_view source = {});

// Where the bytes of node `node`'s attribute `attribute` (a string) start in
// the model's serialization.
std::uint64_t string_offset(const onnx::ModelProto& model, int node, int attribute);

}  // namespace winml::model
