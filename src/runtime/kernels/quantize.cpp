// QuantizeLinear / DequantizeLinear (per tensor and per axis; 8- and 16-bit,
// ONNX and com.microsoft) and DynamicQuantizeLinear.
//   quantize:   q = saturate(round_half_even(x / scale) + zero_point)
//   dequantize: x = (q - zero_point) * scale
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "runtime/kernels/common.h"
#include "runtime/kernels/register.h"
#include "runtime/vector_math.h"

namespace winml::runtime::kernels {

namespace {

// Scale/zero point index for element i: per tensor, or per slice along `axis`.
struct QuantAxis {
  bool per_axis = false;
  std::int64_t len = 1, inner = 1;
  std::int64_t param(std::int64_t i) const { return per_axis ? (i / inner) % len : 0; }
  // fn(begin, end, param) over [b, e) in runs of one scale: the whole range
  // per tensor, slices of `inner` values per axis (so the loops inside run
  // without an index division per value).
  template <typename F>
  void for_each_run(std::int64_t b, std::int64_t e, F&& fn) const {
    for (std::int64_t i = b; i < e;) {
      const std::int64_t end = per_axis ? std::min(e, (i / inner + 1) * inner) : e;
      fn(i, end, param(i));
      i = end;
    }
  }
};

QuantAxis quant_axis(const Tensor& x, const Tensor& scale, std::int64_t axis_attr) {
  QuantAxis q;
  if (scale.rank() == 0 || scale.size() == 1) return q;
  if (scale.rank() != 1) throw UnsupportedError("blocked quantization (scale of rank > 1) is not supported");
  int axis = normalize_axis(axis_attr, x.rank());
  if (scale.size() != x.dim(axis))
    throw InputError("scale has " + std::to_string(scale.size()) + " values for an axis of " +
                     std::to_string(x.dim(axis)));
  q.per_axis = true;
  q.len = x.dim(axis);
  q.inner = dims_product(x.shape(), axis + 1, x.rank());
  return q;
}

template <typename Q>
Q saturate_round(float v) {
  float r = std::nearbyint(v);  // ties to even
  if (!(r >= static_cast<float>(std::numeric_limits<Q>::lowest()))) return std::numeric_limits<Q>::lowest();
  if (r > static_cast<float>(std::numeric_limits<Q>::max())) return std::numeric_limits<Q>::max();
  return static_cast<Q>(r);
}

template <typename F>
decltype(auto) dispatch_quantized(DataType t, F&& f) {
  switch (t) {
    case onnx::TensorProto::INT8: return f.template operator()<std::int8_t>();
    case onnx::TensorProto::UINT8: return f.template operator()<std::uint8_t>();
    case onnx::TensorProto::INT16: return f.template operator()<std::int16_t>();
    case onnx::TensorProto::UINT16: return f.template operator()<std::uint16_t>();
    case onnx::TensorProto::INT32: return f.template operator()<std::int32_t>();
    default: unsupported_type(t, "int8, uint8, int16, uint16 or int32");
  }
}

class QuantizeLinear : public Kernel {
 public:
  explicit QuantizeLinear(const NodeContext& n)
      : axis_(n.attr_int("axis", 1)), output_dtype_(static_cast<DataType>(n.attr_int("output_dtype", 0))) {
    if (n.attr_int("block_size", 0) != 0) n.unsupported("blocked quantization is not supported");
  }
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& scale = ctx.input(1);
    const Tensor* zp = ctx.optional_input(2);
    if (x.dtype() != onnx::TensorProto::FLOAT || scale.dtype() != onnx::TensorProto::FLOAT)
      unsupported_type(x.dtype() != onnx::TensorProto::FLOAT ? x.dtype() : scale.dtype(), "float32");
    DataType qt = zp ? zp->dtype() : (output_dtype_ ? output_dtype_ : onnx::TensorProto::UINT8);
    QuantAxis qa = quant_axis(x, scale, axis_);
    dispatch_quantized(qt, [&]<typename Q>() {
      Tensor& y = ctx.allocate_output(0, qt, x.shape());
      const float* px = x.data<float>();
      const float* ps = scale.data<float>();
      const Q* pz = zp ? zp->data<Q>() : nullptr;
      Q* py = y.mutable_data<Q>();
      parallel_ranges(ctx.pool(), x.size(), kElementwiseGrain, [&](std::int64_t b, std::int64_t e) {
        qa.for_each_run(b, e, [&](std::int64_t i, std::int64_t end, std::int64_t p) {
          // saturate(round_half_even(x / scale) + zero), NaN to the lowest.
          constexpr Q lo = std::numeric_limits<Q>::lowest(), hi = std::numeric_limits<Q>::max();
          vmath::quantize(px + i, end - i, ps[p], pz ? static_cast<float>(pz[p]) : 0.0f, lo, hi, lo, py + i);
        });
      });
    });
  }

 private:
  std::int64_t axis_;
  DataType output_dtype_;
};

class DequantizeLinear : public Kernel {
 public:
  explicit DequantizeLinear(const NodeContext& n) : axis_(n.attr_int("axis", 1)) {
    if (n.attr_int("block_size", 0) != 0) n.unsupported("blocked quantization is not supported");
  }
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& scale = ctx.input(1);
    const Tensor* zp = ctx.optional_input(2);
    if (scale.dtype() != onnx::TensorProto::FLOAT) unsupported_type(scale.dtype(), "float32");
    if (zp && zp->dtype() != x.dtype()) throw InputError("zero point and input types differ");
    QuantAxis qa = quant_axis(x, scale, axis_);
    dispatch_quantized(x.dtype(), [&]<typename Q>() {
      Tensor& y = ctx.allocate_output(0, onnx::TensorProto::FLOAT, x.shape());
      const Q* px = x.data<Q>();
      const float* ps = scale.data<float>();
      const Q* pz = zp ? zp->data<Q>() : nullptr;
      float* py = y.mutable_data<float>();
      parallel_ranges(ctx.pool(), x.size(), kElementwiseGrain, [&](std::int64_t b, std::int64_t e) {
        qa.for_each_run(b, e, [&](std::int64_t i0, std::int64_t end, std::int64_t p) {
          // (8- and 16-bit differences are exact in 32 bits, which vector code converts to float; the same values.)
          using Wide = std::conditional_t<(sizeof(Q) < 4), std::int32_t, std::int64_t>;
          const Wide z = pz ? static_cast<Wide>(pz[p]) : 0;
          const float s = ps[p];
          for (std::int64_t i = i0; i < end; ++i) py[i] = static_cast<float>(static_cast<Wide>(px[i]) - z) * s;
        });
      });
    });
  }

 private:
  std::int64_t axis_;
};

class DynamicQuantizeLinear : public Kernel {
 public:
  explicit DynamicQuantizeLinear(const NodeContext&) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != onnx::TensorProto::FLOAT) unsupported_type(x.dtype(), "float32");
    const float* px = x.data<float>();
    float lo = 0.0f, hi = 0.0f;  // the range always includes zero
    for (std::int64_t i = 0; i < x.size(); ++i) {
      lo = std::min(lo, px[i]);
      hi = std::max(hi, px[i]);
    }
    float scale = (hi - lo) / 255.0f;
    float divisor = scale == 0.0f ? 1.0f : scale;  // all zeros: everything maps to the zero point 0
    std::uint8_t zp = saturate_round<std::uint8_t>(0.0f - lo / divisor);
    std::uint8_t* py = ctx.allocate_output(0, onnx::TensorProto::UINT8, x.shape()).mutable_data<std::uint8_t>();
    for (std::int64_t i = 0; i < x.size(); ++i)
      py[i] = saturate_round<std::uint8_t>(std::nearbyint(px[i] / divisor) + zp);
    ctx.allocate_output(1, onnx::TensorProto::FLOAT, {}).mutable_data<float>()[0] = scale;
    ctx.allocate_output(2, onnx::TensorProto::UINT8, {}).mutable_data<std::uint8_t>()[0] = zp;
  }
};

}  // namespace

void register_quantize(KernelRegistry& r) {
  const auto top = kMaxOnnxOpset;
  add(r, "QuantizeLinear", 10, top, make<QuantizeLinear>(), kFloatCompute);
  add(r, "DequantizeLinear", 10, top, make<DequantizeLinear>(), kFloatCompute);
  add(r, "QuantizeLinear", 1, 1, make<QuantizeLinear>(), kFloatCompute, "com.microsoft");
  add(r, "DequantizeLinear", 1, 1, make<DequantizeLinear>(), kFloatCompute, "com.microsoft");
  add(r, "DynamicQuantizeLinear", 11, top, make<DynamicQuantizeLinear>(), kFloatCompute);
}

}  // namespace winml::runtime::kernels
