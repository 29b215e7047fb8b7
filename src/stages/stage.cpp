#include "stages/stage.h"

#include "graph/runner.h"
#include "model/model_io.h"

namespace winml::stages {

model::SaveOptions StageContext::save_options() const {
  model::SaveOptions o;
  o.external_data_threshold = external_data_threshold;
  return o;
}

void StageContext::check_cancel() const {
  if (cancelled()) throw graph::Interrupted();
}

fs::path StageContext::project_path(const std::string& relative) const {
  fs::path p(relative);
  return p.is_absolute() ? p : project_dir / p;
}

}  // namespace winml::stages
