// One check the tests of real models share: a model compiled with the `ref`
// plugin through ORT's compile API (blobs embedded and in a .bin sidecar;
// unless `compile_with_ort` is false), and any models compiled elsewhere,
// run in stock ONNX Runtime 1.29 and 1.30 with the plugin and compute what
// ORT's CPU EP computes on the uncompiled model, within `tolerance` of each
// output's span.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "model/tensor_file.h"
#include "ort_ep/harness.h"

namespace winml::test {

void expect_plugin_matches_cpu(const std::filesystem::path& model, const std::filesystem::path& work,
                               const std::map<std::string, model::TensorFile>& feeds, double tolerance,
                               const std::vector<std::filesystem::path>& compiled_elsewhere = {},
                               const HarnessOptions& plugin = {}, bool compile_with_ort = true);

}  // namespace winml::test
