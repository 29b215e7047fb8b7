// What `clean` removes: the files the build records say this tool wrote
// (every stage's outputs and the two report files), then each model folder
// left empty. A file without a record stays, whatever its name: it may be
// the user's. Records of models no longer configured count too, so their
// folders are cleaned as well.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "pipeline/build_session.h"

namespace winml::pipeline {

struct CleanedModel {
  std::string name;
  fs::path dir;
  std::size_t files = 0;
  std::uint64_t bytes = 0;
  bool dir_removed = false;  // false: the folder still holds files this tool did not write
  std::string problem;       // why nothing was removed (records kept)
};

// Removes the recorded files of `models` (every recorded model when empty)
// and drops their records; saves the state.
std::vector<CleanedModel> clean_models(BuildSession& session, const std::set<std::string>& models);

}  // namespace winml::pipeline
