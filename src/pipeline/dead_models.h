// Models whose outputs are still in the output directory although winml.toml
// no longer configures them (renamed or removed): `status` lists them and
// `clean --dead` removes what the build records say this tool wrote there.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pipeline/build_session.h"

namespace winml::pipeline {

struct DeadModel {
  std::string name;
  fs::path dir;
  std::size_t files = 0;  // recorded outputs
  std::uint64_t bytes = 0;
  // False for a folder with a build manifest but no build records (e.g. the
  // records were deleted): clean never removes what it has no record of.
  bool recorded = true;
};

// Sorted by name.
std::vector<DeadModel> dead_models(BuildSession& session);

}  // namespace winml::pipeline
