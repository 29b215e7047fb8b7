// Integer model inputs that index a table (token and position ids): the
// samples generated for them are drawn over the table's rows, since values
// from [quantize] value_range (0 and 1 by default) would calibrate a decoder
// on two tokens and leave its outputs nearly constant.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "model/onnx.h"

namespace winml::quant {

// For each integer graph input that reaches the indices of a Gather whose
// data is an initializer (directly or through Cast, Reshape, Unsqueeze,
// Squeeze, Flatten or Identity), the number of rows along the Gather's axis;
// the smallest where it reaches several.
std::map<std::string, std::int64_t> index_input_rows(const onnx::GraphProto& graph);

}  // namespace winml::quant
