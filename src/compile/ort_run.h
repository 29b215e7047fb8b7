// Models run in ONNX Runtime as winml-make runs them in its own runtime:
// inputs fed as given, the rest filled (ones, or seeded random values) at the
// input's shape, open dimensions from `[model] dims` / `--dim` (else 1).
// Used by compile's validation for backend = "ort" and `winml-make run
// --runtime ort`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "compile/ort_target.h"
#include "compile/validate.h"
#include "model/input_dims.h"
#include "model/tensor_file.h"
#include "ort/session.h"
#include "runtime/tensor_stats.h"

namespace winml::compile {

ort::Tensor to_ort(const model::TensorFile& t);
model::TensorFile from_ort(const ort::Tensor& t);

// A feed for every graph input of `model` that is not an initializer.
std::map<std::string, ort::Tensor> ort_feeds(const onnx::GraphProto& graph,
                                             const std::map<std::string, model::TensorFile>& given,
                                             const model::DimValues& dims, runtime::Fill fill, std::uint64_t seed);

// The session settings that run a model on `target`'s device.
ort::SessionSettings ort_session_settings(const OrtTarget& target,
                                          const std::map<std::string, std::string>& provider_options, int threads);

// Validation for backend = "ort": the compiled model loaded in ORT with the
// EP it was compiled for (ORT's CPU EP running the nodes the EP left), fed
// as validate.h feeds, every output free of NaN and Inf (BuildError naming
// the output otherwise). Floating-point outputs are compared with
// `uncompiled` run in the same ORT on its CPU EP: the largest difference per
// output and the output's span go to the result ("difference").
nlohmann::json validate_in_ort(const std::filesystem::path& compiled, const std::filesystem::path& uncompiled,
                               const OrtTarget& target, const std::map<std::string, std::string>& provider_options,
                               const ValidateOptions& options);

}  // namespace winml::compile
