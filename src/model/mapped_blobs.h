// EPContext blobs read where they lie in the model file.
//
// An embedded blob is a string attribute (ep_cache_context) of hundreds of
// megabytes; parsing the model would copy it out of the file into protobuf,
// and its packed weights would lose their alignment. Before parsing, the
// file's wire format is scanned for such attributes of com.microsoft::EPContext
// nodes of the main graph; when there are any, the model is parsed from a copy
// without their bytes (small: the blobs are most of the file) and each
// attribute's bytes are a view of the mapping (Model::string_bytes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace winml::model {

struct LiftedString {
  int node = 0;       // index in the main graph's nodes
  int attribute = 0;  // index in that node's attributes
  std::uint64_t offset = 0, size = 0;  // of the bytes, in the serialized model
  std::string node_name;               // the node's name (empty when it has none)
};

struct LiftedModel {
  std::string reduced;  // the model without the lifted bytes (their attributes' `s` empty)
  std::vector<LiftedString> strings;
};

// nullopt when no ep_cache_context of at least `min_bytes` is found (or the
// bytes are not a well-formed message: protobuf then reports it).
std::optional<LiftedModel> lift_context_blobs(std::string_view serialized_model, std::uint64_t min_bytes);

// Where those blobs lie, without copying anything (empty when there are none
// or the bytes are not a well-formed message): for a reader that holds the
// model parsed elsewhere, such as an EP inside ONNX Runtime.
std::vector<LiftedString> find_context_blobs(std::string_view serialized_model, std::uint64_t min_bytes);

}  // namespace winml::model
