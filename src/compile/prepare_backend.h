// Compile for EPs that ONNX Runtime runs without ahead-of-time compilation
// (`aot_compile = false`: cpu, dml): the result is the prepared model, still
// plain ONNX. It is checked with ONNX's checker, gets inferred shapes
// (value_info; symbolic dimensions stay symbolic, so it accepts what its
// input accepted), and is refused when it holds anything ONNX Runtime could
// not load: operators of domains ONNX Runtime does not implement.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "ep/ep_table.h"
#include "model/model.h"
#include "model/model_io.h"

namespace winml::compile {

struct PrepareOptions {
  std::uint64_t external_data_threshold = model::kDefaultExternalDataThreshold;
};

nlohmann::json prepare_model(model::Model in, const std::filesystem::path& out, const ep::EpTable& ep_table,
                             const PrepareOptions& options);

}  // namespace winml::compile
