// Sizes for the dimensions of graph inputs that the model leaves open, from
// `[model] dims` / `--dim`. A key names either a symbolic dimension
// ("batch", every input dimension called so) or one dimension of one input,
// by input name and index ("x.2": the third dimension of input x), which
// also reaches unnamed ones ("?"). The second is more specific and wins.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/onnx.h"

namespace winml::model {

using DimValues = std::map<std::string, std::int64_t>;

// "x.2".
std::string dim_key(const std::string& input, std::size_t index);

// The size of dimension `index` of `input`: its fixed size, else the value
// `dims` gives it, else nullopt.
std::optional<std::int64_t> input_dim(const onnx::ValueInfoProto& input, std::size_t index, const DimValues& dims);

// A dimension that no fixed size or `dims` entry sets.
struct OpenDim {
  std::string input;
  std::size_t index = 0;
  std::string name;  // the dim_param; empty for an unnamed dimension
};

// The open dimensions of the graph's inputs (initializers excluded).
std::vector<OpenDim> open_input_dims(const onnx::GraphProto& graph, const DimValues& dims);

// "input x dimension 2 (height)" / "input x dimension 2 (unnamed)".
std::string describe(const OpenDim& d);

// One line for open dimensions a stage set to `value`: what it did and how
// to choose (`[model] dims = { "x.2" = <size> }`, `--dim x.2=<size>`).
std::string defaulted_dims_warning(const std::vector<OpenDim>& open, std::int64_t value, const std::string& purpose);

}  // namespace winml::model
