// Resolving a node's declared extra inputs to files and digests.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "graph/node.h"
#include "graph/runner.h"
#include "store/build_state.h"

namespace winml::graph {

struct ResolvedInput {
  Ingredient ingredient;  // "file:<relative path>" or "model:<relative path>" -> content digest
  std::string path;
};

// Every file the declarations name, with its digest (through the stat cache).
// Throws InputError naming the file for a missing kFile/kTree/kModel.
std::vector<ResolvedInput> resolve_inputs(const std::vector<InputDecl>& decls, const fs::path& project_dir,
                                          store::BuildState& state, NodeRunner& runner);

}  // namespace winml::graph
