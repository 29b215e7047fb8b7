// How a stage saves models: the model I/O half of the stage interface
// (pipeline/stage.h), kept here so that the engine never links model I/O.
#pragma once

#include "model/model_io.h"
#include "pipeline/stage.h"

namespace winml::stages {

// [build] external_data_threshold_mib as save options. Only for a stage that
// declared writes_models (the threshold is in its key): std::logic_error
// otherwise.
model::SaveOptions save_options(const pipeline::StageContext& ctx);

}  // namespace winml::stages
