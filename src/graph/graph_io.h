// A graph as checksummed text records (store/record_io.h), so that a build
// whose configuration did not change can skip parsing and resolving it (see
// pipeline/build_plan.h). Static ingredients are not stored: the ingredient log has
// them by static digest.
#pragma once

#include <string>

#include "graph/node.h"
#include "store/record_io.h"

namespace winml::graph {

void write_graph(const Graph& g, std::string& out);
// Reads what write_graph wrote, from the reader's position to the end.
bool read_graph(store::RecordReader& reader, Graph& g);

}  // namespace winml::graph
