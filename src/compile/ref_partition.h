// One partition of the `ref` backend, from its own small model to the plan
// its blob stores: nodes on constants evaluated now (fold_constants), then
// the runtime's plan (order, shapes resolved with `dims`, memory plan,
// weights packed). Shared by the built-in backend (ref_backend.h) and the
// ONNX Runtime plugin EP (ort_ep/), so both write the same blobs.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "model/model.h"
#include "runtime/kernel.h"
#include "runtime/plan.h"
#include "runtime/ref_blob/ref_blob.h"

namespace winml::compile {

struct RefPartition {
  std::string name;                          // the blob's partition name
  std::map<std::string, std::int64_t> dims;  // symbolic dimensions the shapes were resolved with
  model::Model model;                        // after folding: the plan's constants are views of it
  std::shared_ptr<const runtime::Plan> plan;
  int folded_nodes = 0;

  runtime::ref_blob::BlobContents blob_contents() const { return {*plan, model.proto.graph(), name, dims}; }
  // Bytes of the plan's constants.
  std::uint64_t weight_bytes() const;
  // The EPContext node's `notes`: steps, constants, arena, how dimensions were resolved.
  std::string notes() const;
};

// Plans `part` (its graph's inputs and outputs are the partition's boundary).
// Errors are prefixed with "<source>: partition <name>: ".
RefPartition plan_ref_partition(model::Model part, const runtime::Opsets& opsets, const std::string& name,
                                const std::map<std::string, std::int64_t>& dims, const std::string& source);

}  // namespace winml::compile
