#include "stages/save_options.h"

#include <stdexcept>

namespace winml::stages {

model::SaveOptions save_options(const pipeline::StageContext& ctx) {
  if (!ctx.writes_models) throw std::logic_error("a stage saves a model without declaring writes_models");
  model::SaveOptions o;
  o.external_data_threshold = static_cast<std::uint64_t>(ctx.config.build.external_data_threshold_mib) * model::kMiB;
  return o;
}

}  // namespace winml::stages
