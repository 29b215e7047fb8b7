#include "runtime/kernels/conv_geometry.h"

#include "base/error.h"
#include "runtime/tensor.h"

namespace winml::runtime::kernels {

WindowAttrs WindowAttrs::from_node(const NodeContext& n) {
  WindowAttrs a;
  a.kernel = n.attr_ints("kernel_shape");
  a.strides = n.attr_ints("strides");
  a.dilations = n.attr_ints("dilations");
  a.pads = n.attr_ints("pads");
  a.auto_pad = n.attr_string("auto_pad", "NOTSET");
  a.ceil_mode = n.attr_int("ceil_mode", 0) != 0;
  if (a.auto_pad != "NOTSET" && a.auto_pad != "VALID" && a.auto_pad != "SAME_UPPER" && a.auto_pad != "SAME_LOWER")
    n.fail("unknown auto_pad '" + a.auto_pad + "'");
  return a;
}

std::int64_t Window::out_size() const { return shape_size(out); }
std::int64_t Window::kernel_size() const { return shape_size(kernel); }

Window forward_window(const WindowAttrs& a, const std::vector<std::int64_t>& in,
                      const std::vector<std::int64_t>& kernel) {
  std::size_t d = in.size();
  Window w;
  w.in = in;
  w.kernel = kernel;
  auto pick = [&](const std::vector<std::int64_t>& v, const char* what) {
    if (v.empty()) return std::vector<std::int64_t>(d, 1);
    if (v.size() != d)
      throw InputError(std::string(what) + " has " + std::to_string(v.size()) + " values for " + std::to_string(d) +
                       " spatial dimensions");
    return v;
  };
  w.strides = pick(a.strides, "strides");
  w.dilations = pick(a.dilations, "dilations");
  if (kernel.size() != d) throw InputError("kernel_shape does not match the input's spatial dimensions");
  w.pad_begin.assign(d, 0);
  w.pad_end.assign(d, 0);
  if (a.auto_pad == "NOTSET" && !a.pads.empty()) {
    if (a.pads.size() != 2 * d)
      throw InputError("pads has " + std::to_string(a.pads.size()) + " values, expected " + std::to_string(2 * d));
    for (std::size_t i = 0; i < d; ++i) {
      w.pad_begin[i] = a.pads[i];
      w.pad_end[i] = a.pads[i + d];
    }
  }
  w.out.resize(d);
  for (std::size_t i = 0; i < d; ++i) {
    std::int64_t extent = w.dilations[i] * (kernel[i] - 1) + 1;
    std::int64_t s = w.strides[i];
    if (a.auto_pad == "SAME_UPPER" || a.auto_pad == "SAME_LOWER") {
      std::int64_t out = (in[i] + s - 1) / s;
      std::int64_t total = std::max<std::int64_t>(0, (out - 1) * s + extent - in[i]);
      w.pad_begin[i] = a.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      w.pad_end[i] = total - w.pad_begin[i];
      w.out[i] = out;
      continue;
    }
    std::int64_t span = in[i] + w.pad_begin[i] + w.pad_end[i] - extent;
    if (span < 0) throw InputError("the window is larger than the padded input");
    std::int64_t out = (a.ceil_mode ? (span + s - 1) / s : span / s) + 1;
    // With ceil_mode the last window must start inside the input or left padding.
    if (a.ceil_mode && (out - 1) * s >= in[i] + w.pad_begin[i]) --out;
    w.out[i] = out;
  }
  return w;
}

}  // namespace winml::runtime::kernels
