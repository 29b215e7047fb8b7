// What a build would do, without doing any of it: each node's status (up to
// date, would run, would fail) and why, every model on its own (one that
// would fail stops nothing else). `status` and `graph` show it; a build runs
// the same decisions (pipeline/build_run.h).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "graph/builder.h"
#include "pipeline/build_session.h"

namespace winml::pipeline {

// The nodes of `models`, decided; `explain`: each result's explanation filled. The
// session is open; `runner` is asked only what a stage would need, never
// to run one.
std::vector<graph::NodeResult> evaluate(BuildSession& session, const graph::ModelSelection& models, bool explain,
                                        graph::NodeRunner& runner);

}  // namespace winml::pipeline
