// Compile-time evaluation: nodes of a partition whose inputs are all
// constants run once, here, with the runtime's own kernels, and their outputs
// become constants of the blob (so a session neither creates their kernels
// nor runs them). Weights that no node reads afterwards are dropped.
// Skipped: non-default domains, random and training-mode ops, subgraphs, and
// results much larger than their inputs (an Expand to a huge constant would
// bloat the blob).
#pragma once

#include "model/model.h"
#include "runtime/kernel.h"

namespace winml::compile {

// Folds in `model.proto.graph()` (topologically sorted); returns how many
// nodes were folded.
int fold_constants(model::Model& model, const runtime::Opsets& opsets);

}  // namespace winml::compile
