// How the quantizer executes models (calibration and the accuracy report),
// kept behind a small interface so the quant library does not depend on a
// particular executor's tensor types.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>

#include "model/model.h"
#include "model/tensor_file.h"

namespace winml::quant {

// A value produced while a model runs (valid only during the call).
struct ValueView {
  std::int32_t dtype = 0;  // ONNX element type
  std::span<const std::int64_t> shape;
  std::span<const std::byte> data;  // little-endian, row-major
};

// Sees every value as it is produced (graph inputs included).
using ValueObserver = std::function<void(const std::string& name, const ValueView& value)>;

using Feeds = std::map<std::string, model::TensorFile>;

class ModelRunner {
 public:
  virtual ~ModelRunner() = default;
  // Runs once; returns the graph outputs. `observer` may be empty.
  virtual std::map<std::string, model::TensorFile> run(const Feeds& feeds, const ValueObserver& observer) = 0;
};

// Creates a runner for a model (which outlives the runner). `observe` lists
// the values the caller's observer needs (others need not be reported).
using RunnerFactory =
    std::function<std::unique_ptr<ModelRunner>(const model::Model& model, const std::vector<std::string>& observe)>;

}  // namespace winml::quant
