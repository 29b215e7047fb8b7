// Static memory assignment: values with a static shape that never leave a
// run (not graph inputs, outputs or constants, not handed to subgraphs) get
// an offset in one arena. Two values share bytes only if their lifetimes,
// from producing step to last reading step, are disjoint; values that alias
// each other (Reshape and friends) count as one lifetime.
#pragma once

#include "runtime/plan.h"

namespace winml::runtime {

void assign_arena(Plan& plan);

}  // namespace winml::runtime
