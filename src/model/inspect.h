// A summary of a model for `winml-make inspect` (text and JSON).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "model/model.h"

namespace winml::model {

// Shape as JSON: numbers for fixed dims, strings for symbolic ones, null for unknown.
nlohmann::json shape_json(const onnx::TypeProto& type);

nlohmann::json inspect_model(const Model& m);
std::string format_inspection(const nlohmann::json& summary);

}  // namespace winml::model
