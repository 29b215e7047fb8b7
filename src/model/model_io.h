// Loading and saving ONNX models with their external data.
//
// Saving is deterministic: the same model gives the same bytes on every run
// and machine (deterministic protobuf serialization, tensors laid out in
// graph order at fixed alignments).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "model/model.h"

namespace winml::model {

inline constexpr std::uint64_t kMiB = 1024ull * 1024ull;
inline constexpr std::uint64_t kDefaultExternalDataThreshold = 100 * kMiB;

struct LoadOptions {
  bool validate = true;  // structural checks (validate.h)
  // Embedded EPContext blobs of at least `map_blobs_from` bytes stay in the
  // mapped file (Model::string_bytes) instead of being copied into protobuf:
  // for models that are run, never saved.
  bool map_blobs = false;
  std::uint64_t map_blobs_from = 64 * 1024;
};

// Loads `path` and maps its external data files. Every `location` and
// EPContext blob reference is checked by path_safety; bounds and lengths are
// verified. InputError naming the file on any problem.
Model load_model(const std::filesystem::path& path, const LoadOptions& options = {});

enum class ExternalData { kAuto, kAlways, kNever };

struct SaveOptions {
  // kAuto: weights go to "<file name>.data" once the serialized model would
  // reach `external_data_threshold` bytes.
  ExternalData external = ExternalData::kAuto;
  std::uint64_t external_data_threshold = kDefaultExternalDataThreshold;
  // Smaller initializers stay inline even in an external-data model.
  std::uint64_t min_external_tensor_bytes = 1024;
  // Embedded EPContext blobs (of at least 64 KiB, in nodes with `notes`)
  // start at offsets of the file that are multiples of this (0: anywhere):
  // model/blob_alignment.h.
  std::uint64_t blob_alignment = 0;
};

// The sidecar name used for `model_path`: "<file name>.data".
std::string data_file_name(const std::filesystem::path& model_path);

// Writes `model` to `path` (atomically: temp + fsync + rename; the sidecar
// first, then the model). Afterwards `model` refers to the written files.
// A stale "<file name>.data" is removed when the model is saved inline.
void save_model(Model& model, const std::filesystem::path& path, const SaveOptions& options = {});

// Deterministic serialization of a proto (for in-memory use and hashing).
std::string serialize_deterministic(const google::protobuf::MessageLite& message);

// Serialized size the model would have with all its data inline.
std::uint64_t inline_size(const Model& model);

// The model's bytes with every external tensor's data inline (deterministic
// serialization), for a consumer that takes a model as bytes. BuildError
// when that reaches protobuf's 2 GiB limit.
std::string serialize_inline(const Model& model);

}  // namespace winml::model
