// Validation of a compiled model: it is loaded in the runtime, fed the given
// inputs (the first calibration sample) and ones for the rest (symbolic
// dimensions from `dims`, else 1), and every output must be
// free of NaN and Inf (BuildError naming the output otherwise). `ref` blobs
// are checked in full first (header, version, plan and weight checksums).
//
// When the runtime cannot execute the model (blobs of a vendor's EP, or
// operators it has no kernel for), only the structure is checked -- the
// model loads, its EPContext references are safe and non-empty -- and the
// result says so ("mode": "structure", with the reason).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "model/model.h"
#include "model/tensor_file.h"

namespace winml::compile {

struct ValidateOptions {
  std::map<std::string, std::int64_t> dims;
  std::map<std::string, model::TensorFile> inputs;  // fed as given; the rest get ones
  std::string inputs_origin = "all-ones inputs";    // for messages
  int threads = 0;                                  // 0: one per core
};

nlohmann::json validate_compiled(const std::filesystem::path& model, const ValidateOptions& options);

// Checks every `ref` blob the model references, reading all their bytes
// (InputError naming the blob on a bad version or checksum). Returns how
// many were checked.
std::size_t verify_ref_blobs(const model::Model& model);

}  // namespace winml::compile
