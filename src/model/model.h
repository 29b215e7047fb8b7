// An ONNX model in memory: the protobuf plus the external data files its
// tensors point into (memory-mapped, read lazily, never copied into protobuf).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "base/mapped_file.h"
#include "model/onnx.h"
#include "model/tensor_data.h"

namespace winml::model {

class SpillFile;

class Model {
 public:
  onnx::ModelProto proto;
  // The file this model was loaded from or last saved to; external data
  // locations are relative to its directory.
  std::filesystem::path path;
  // External data files, keyed by the `location` string tensors use.
  std::map<std::string, std::shared_ptr<const MappedFile>> external_files;
  // Where large tensors made for this model go instead of protobuf, when set
  // (model/spill_file.h): a quantizer's weights of a multi-gigabyte model.
  std::shared_ptr<SpillFile> spill;

  std::filesystem::path dir() const { return path.parent_path(); }

  // The payload of any tensor of this model, wherever it is stored.
  TensorBytes tensor_bytes(const onnx::TensorProto& t) const;

  // Version imported for `domain` ("" and "ai.onnx" are the default domain); 0 if absent.
  std::int64_t opset(std::string_view domain = "") const;

  // EPContext blobs load_model left in the model file (LoadOptions::map_blobs,
  // model/mapped_blobs.h): the attribute's `s` is empty, its bytes are here.
  // A model holding any is for running, not for saving (save_model refuses it).
  std::map<const onnx::AttributeProto*, std::string_view> mapped_strings;
  std::shared_ptr<const MappedFile> mapped_model;  // keeps them mapped
  // A string attribute's bytes, in the proto or in the mapping.
  std::string_view string_bytes(const onnx::AttributeProto& a) const;
};

}  // namespace winml::model
