// An embedded ep_cache_context read where it lies in the model file ONNX
// Runtime loaded, instead of copied out of ORT's attribute. ORT hands an EP
// an attribute only by copying it (ReadOpAttr), and a ref blob is most of the
// model's bytes; the file is mapped instead, as winml-make's runtime does
// (LoadOptions::map_blobs), and when the blob starts at a 64-byte offset of
// the file its packed weights are used in place.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace winml::ort_ep {

struct MappedBlob {
  std::string_view bytes;
  std::shared_ptr<const void> owner;  // the mapping
};

// The ep_cache_context of the one EPContext node named `node` in the main
// graph of the model file `model`, if it is `size` bytes long (the size of
// ORT's attribute). nullopt when the model has no path (loaded from memory),
// cannot be mapped, or does not hold exactly such a node: the caller then
// copies ORT's attribute.
std::optional<MappedBlob> map_blob_in_model_file(const std::filesystem::path& model, const std::string& node,
                                                 std::size_t size);

}  // namespace winml::ort_ep
