// What a build gave, per model: the final artifact with its sidecars and
// sizes, and each stage's headline (pipeline::kHeadline: quantize's SQNR per
// output and nodes quantized, compile's validation), read without knowing
// any stage's metrics. One line per model, then one per warning a stage
// reported ("    warning: quantize: ...").
#pragma once

#include <string>
#include <vector>

#include "graph/builder.h"

namespace winml::cli {

// "  net: build/net/model.onnx 1.2 KiB + model_ref.bin 318.0 KiB; quantized 12
// nodes (3 skipped), SQNR y 35.2 dB; validated" (beyond four files, "+ 53
// more files 16.8 KiB"). Models with a failed or
// unbuilt stage get none; in a project of more than 8 models, only those
// this build changed. `dir_prefix` is how the output dir is shown.
std::vector<std::string> artifact_summary(const graph::Graph& graph, const std::vector<graph::NodeResult>& results,
                                          const std::string& dir_prefix);

}  // namespace winml::cli
