// float32 -> float16 conversion (ONNX Runtime's float16 converter's rules):
// nodes the target runs in float16 compute in float16; the others (blocked,
// or without a float16 kernel on ORT's CPU provider, or holding subgraphs)
// stay float32 with explicit Casts around them. A constant stays float32 when
// only float32 nodes read it; converted constants are clipped into float16's
// usable range first. With keep_io_types the model's inputs and outputs stay
// float32 and Casts sit at the boundary.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>

#include "model/model.h"

namespace winml::quant {

struct Fp16Options {
  bool keep_io_types = true;
  std::set<std::string> op_block_list;
  std::string ep = "cpu";
  float min_positive = 1e-7f;  // smaller non-zero magnitudes become +-min_positive
  float max_finite = 1e4f;     // larger magnitudes are clipped to +-max_finite
};

struct Fp16Result {
  std::size_t fp16_nodes = 0;
  std::size_t float_nodes = 0;  // float nodes that touch floating point values
  std::size_t casts = 0;
  std::size_t converted_constants = 0;
  std::map<std::string, std::size_t> float_op_types;  // why: op type -> count
};

Fp16Result convert_to_fp16(model::Model& m, const Fp16Options& options);

}  // namespace winml::quant
