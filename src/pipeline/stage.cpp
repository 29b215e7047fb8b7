#include "pipeline/stage.h"

#include <fstream>

#include "graph/runner.h"
#include "base/path_text.h"

namespace winml::pipeline {

void StageContext::check_cancel() const {
  if (cancelled()) throw graph::Interrupted();
}

fs::path StageContext::project_path(const std::string& relative) const {
  fs::path p = from_utf8(relative);
  return p.is_absolute() ? p : project_dir / p;
}

std::function<void(const std::string&)> StageContext::start_log() const {
  if (log_file.empty()) return [](const std::string&) {};
  fs::create_directories(log_file.parent_path());
  std::ofstream(log_file, std::ios::trunc);
  return [path = log_file](const std::string& line) { std::ofstream(path, std::ios::app) << line << "\n"; };
}

}  // namespace winml::pipeline
