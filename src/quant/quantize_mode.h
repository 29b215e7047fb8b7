// A quantize mode: what quantize_model (quant/quantize.h) does between
// preparing the model and the accuracy pass. Each lives in its own file
// (mode_qdq.cpp, mode_nbits.cpp, mode_fp16.cpp) with the function below that
// reads its typed options from the config and writes its part of the report;
// quantize.cpp's table names them by the values of [quantize] mode.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "model/model.h"
#include "quant/calibration/samples.h"
#include "quant/model_runner.h"
#include "quant/quantize.h"

namespace winml::quant {

// Runs a step that runs the model, adding to its error the warning that open
// input dimensions were given sizes (the usual cause of such a failure: a
// pooling window larger than a 1x1 image).
class DimsHint {
 public:
  explicit DimsHint(std::string warning) : warning_(std::move(warning)) {}
  void run(const std::function<void()>& step) const;

 private:
  std::string warning_;
};

// The runners samples run on: `workers` at once, each from `factory`.
struct SampleRunners {
  RunnerFactory factory;
  int workers = 1;
};

// What a mode is handed. It quantizes `out` in place.
struct ModeCall {
  const config::QuantizeConfig& config;  // resolved (config schema)
  const QuantizeContext& context;
  model::Model& out;
  const model::Model& reference;  // the float model, with the names `out` has
  SampleSource& samples;
  const SampleRunners& runners;
  const DimsHint& dims_hint;
  nlohmann::json& report;
  nlohmann::json& warnings;  // every fallback the result hides
};

// The float model's outputs per sample, as calibration saw them (the
// accuracy pass reuses them; empty: it runs the float model itself).
using ReferenceOutputs = std::vector<std::optional<Feeds>>;

struct QuantizeMode {
  std::string_view name;
  ReferenceOutputs (*quantize)(const ModeCall& call);
  // Converts the model before it is quantized (an opset upgrade), saying so
  // in the log and the report; true when it changed the model. Optional.
  bool (*convert)(model::Model& out, const config::QuantizeConfig& config, const QuantizeContext& context,
                  const std::string& path, nlohmann::json& report) = nullptr;
};

// The mode of that name; BuildError for a name none has.
const QuantizeMode& quantize_mode_named(const std::string& name);

// A progress line (QuantizeContext::log).
void say(const QuantizeContext& context, const std::string& line);

ReferenceOutputs quantize_qdq(const ModeCall& call);  // mode_qdq.cpp
bool convert_for_qdq(model::Model& out, const config::QuantizeConfig& config, const QuantizeContext& context,
                     const std::string& path, nlohmann::json& report);
ReferenceOutputs quantize_nbits(const ModeCall& call);  // mode_nbits.cpp
ReferenceOutputs quantize_fp16(const ModeCall& call);   // mode_fp16.cpp

}  // namespace winml::quant
