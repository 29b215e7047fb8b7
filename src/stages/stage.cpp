#include "stages/stage.h"

#include <fstream>

#include "graph/runner.h"
#include "model/model_io.h"

namespace winml::stages {

model::SaveOptions StageContext::save_options() const {
  // The threshold is in the key only for stages that declared writing models.
  if (!writes_models) throw std::logic_error("a stage saves a model without declaring writes_models");
  model::SaveOptions o;
  o.external_data_threshold = static_cast<std::uint64_t>(config.build.external_data_threshold_mib) * model::kMiB;
  return o;
}

void StageContext::check_cancel() const {
  if (cancelled()) throw graph::Interrupted();
}

fs::path StageContext::project_path(const std::string& relative) const {
  fs::path p(relative);
  return p.is_absolute() ? p : project_dir / p;
}

std::function<void(const std::string&)> StageContext::start_log() const {
  if (log_file.empty()) return [](const std::string&) {};
  fs::create_directories(log_file.parent_path());
  std::ofstream(log_file, std::ios::trunc);
  return [path = log_file](const std::string& line) { std::ofstream(path, std::ios::app) << line << "\n"; };
}

}  // namespace winml::stages
