// Window geometry shared by Conv, ConvTranspose and the pools: kernel size,
// strides, dilations, pads (explicit or auto_pad) and output sizes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/kernel.h"

namespace winml::runtime::kernels {

struct WindowAttrs {
  std::vector<std::int64_t> kernel;     // may be empty: taken from the weights
  std::vector<std::int64_t> strides;    // empty: all 1
  std::vector<std::int64_t> dilations;  // empty: all 1
  std::vector<std::int64_t> pads;       // begins then ends; empty: all 0
  std::string auto_pad = "NOTSET";
  bool ceil_mode = false;

  static WindowAttrs from_node(const NodeContext& n);
};

struct Window {
  std::vector<std::int64_t> in, out, kernel, strides, dilations, pad_begin, pad_end;
  int dims() const { return static_cast<int>(in.size()); }
  std::int64_t out_size() const;
  std::int64_t kernel_size() const;
};

// Geometry of a forward window (Conv, pools) over `in` spatial dims.
Window forward_window(const WindowAttrs& attrs, const std::vector<std::int64_t>& in,
                      const std::vector<std::int64_t>& kernel);

}  // namespace winml::runtime::kernels
