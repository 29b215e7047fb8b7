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
  bool dir_removed = false;         // the folder was there and is gone: it held nothing else
  std::vector<std::string> others;  // what keeps the folder: entries this tool did not write (sorted, at most 5)
  std::size_t other_count = 0;      // how many there are
  std::string problem;              // why nothing was removed (records kept)
};

// Removes the recorded files of `models` (every recorded or configured model
// when empty) and drops their records, then each of their folders left
// empty, recorded or not; saves the state. A model with neither records nor
// a folder is left out.
std::vector<CleanedModel> clean_models(BuildSession& session, const graph::ModelSelection& models);

}  // namespace winml::pipeline
