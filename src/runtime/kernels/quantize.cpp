// QuantizeLinear / DequantizeLinear (per tensor and per axis; 8- and 16-bit,
// ONNX and com.microsoft; DequantizeLinear also in blocks and from 4-bit
// integers, opset 21) and DynamicQuantizeLinear.
//   quantize:   q = saturate(round_half_even(x / scale) + zero_point)
//   dequantize: x = (q - zero_point) * scale
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

#include "model/tensor_data.h"
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

// Where each element's scale and zero point are in DequantizeLinear: one
// for all, one per index along `axis`, or (opset 21's block_size) one per
// block of indices along it, the parameters then shaped as the input with
// that axis divided into blocks.
struct ParamLayout {
  std::int64_t rows = 1;     // outer x axis length: rows of `inner` elements
  std::int64_t len = 1;      // the axis' length
  std::int64_t inner = 1;    // elements after the axis
  std::int64_t block = 0;    // block size along the axis (0: not blocked)
  std::int64_t blocks = 1;   // blocks along the axis
  bool per_axis = false;
  // Row r's first parameter, and the step from one element of it to the next.
  std::int64_t first(std::int64_t r) const {
    if (block) return ((r / len) * blocks + (r % len) / block) * inner;
    return per_axis ? r % len : 0;
  }
  std::int64_t step() const { return block ? 1 : 0; }
};

ParamLayout param_layout(const Tensor& x, const Tensor& scale, std::int64_t axis_attr, std::int64_t block) {
  ParamLayout p;
  p.inner = x.size();
  if (block == 0 && (scale.rank() == 0 || scale.size() == 1)) return p;
  const int axis = normalize_axis(axis_attr, x.rank());
  p.len = x.dim(axis);
  p.rows = dims_product(x.shape(), 0, axis + 1);
  p.inner = dims_product(x.shape(), axis + 1, x.rank());
  if (block == 0) {
    if (scale.rank() != 1)
      throw InputError("scale " + shape_string(scale.shape()) + " must be a scalar or 1-D without block_size");
    if (scale.size() != p.len)
      throw InputError("scale has " + std::to_string(scale.size()) + " values for an axis of " + std::to_string(p.len));
    p.per_axis = true;
    return p;
  }
  if (block < 0) throw InputError("block_size must be positive, got " + std::to_string(block));
  p.block = block;
  p.blocks = (p.len + block - 1) / block;
  Shape want = x.shape();
  want[static_cast<std::size_t>(axis)] = p.blocks;
  if (scale.shape() != want)
    throw InputError("scale " + shape_string(scale.shape()) + " of blocks of " + std::to_string(block) +
                     " along axis " + std::to_string(axis) + " of " + shape_string(x.shape()) + " must be " +
                     shape_string(want));
  return p;
}

// Element i of a tensor of integers, 4-bit types unpacked (low nibble first).
template <typename Q>
struct Codes {
  const Q* p;
  std::int32_t operator[](std::int64_t i) const { return static_cast<std::int32_t>(p[i]); }
};
struct Int4Codes {
  const std::uint8_t* p;
  bool is_signed;
  std::int32_t operator[](std::int64_t i) const {
    const std::int32_t v = (p[i / 2] >> (4 * (i % 2))) & 15;
    return is_signed ? (v ^ 8) - 8 : v;
  }
};

class DequantizeLinear : public Kernel {
 public:
  explicit DequantizeLinear(const NodeContext& n) : axis_(n.attr_int("axis", 1)), block_(n.attr_int("block_size", 0)) {
    if (block_ != 0 && n.opset() < 21 && canonical_domain(n.node().domain()).empty())
      n.fail("block_size needs opset 21");
  }
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& scale = ctx.input(1);
    const Tensor* zp = ctx.optional_input(2);
    if (scale.dtype() != onnx::TensorProto::FLOAT) unsupported_type(scale.dtype(), "float32");
    if (zp && zp->dtype() != x.dtype()) throw InputError("zero point and input types differ");
    if (zp && zp->shape() != scale.shape())
      throw InputError("zero point " + shape_string(zp->shape()) + " and scale " + shape_string(scale.shape()) +
                       " shapes differ");
    const ParamLayout pl = param_layout(x, scale, axis_, block_);
    Tensor& y = ctx.allocate_output(0, onnx::TensorProto::FLOAT, x.shape());
    if (model::is_four_bit(x.dtype())) {
      const bool is_signed = x.dtype() == model::kInt4;
      const Int4Codes codes{x.data<std::uint8_t>(), is_signed};
      if (zp) run_layout(ctx, pl, codes, Int4Codes{zp->data<std::uint8_t>(), is_signed}, scale, y);
      else run_layout(ctx, pl, codes, std::optional<Int4Codes>(), scale, y);
      return;
    }
    dispatch_quantized(x.dtype(), [&]<typename Q>() {
      if (sizeof(Q) < 4 && !pl.block) {
        run_narrow<Q>(ctx, x, scale, zp, y);
        return;
      }
      if (zp) run_layout(ctx, pl, Codes<Q>{x.data<Q>()}, Codes<Q>{zp->data<Q>()}, scale, y);
      else run_layout(ctx, pl, Codes<Q>{x.data<Q>()}, std::optional<Codes<Q>>(), scale, y);
    });
  }

 private:
  // 8- and 16-bit, per tensor or per axis: runs of one scale.
  template <typename Q>
  void run_narrow(KernelContext& ctx, const Tensor& x, const Tensor& scale, const Tensor* zp, Tensor& y) const {
    QuantAxis qa = quant_axis(x, scale, axis_);
    const Q* px = x.data<Q>();
    const float* ps = scale.data<float>();
    const Q* pz = zp ? zp->data<Q>() : nullptr;
    float* py = y.mutable_data<float>();
    parallel_ranges(ctx.pool(), x.size(), kElementwiseGrain, [&](std::int64_t b, std::int64_t e) {
      qa.for_each_run(b, e, [&](std::int64_t i0, std::int64_t end, std::int64_t p) {
        // (8- and 16-bit differences are exact in 32 bits, which vector code converts to float; the same values.)
        const std::int32_t z = pz ? static_cast<std::int32_t>(pz[p]) : 0;
        const float s = ps[p];
        for (std::int64_t i = i0; i < end; ++i) py[i] = static_cast<float>(static_cast<std::int32_t>(px[i]) - z) * s;
      });
    });
  }

  // Any layout, blocks and 4-bit codes included: (code - zero) * scale,
  // computed in 64 bits for int32 codes.
  template <typename C, typename Z>
  void run_layout(KernelContext& ctx, const ParamLayout& pl, const C& codes, const Z& zero, const Tensor& scale,
                  Tensor& y) const {
    const float* ps = scale.data<float>();
    float* py = y.mutable_data<float>();
    const std::int64_t grain = std::max<std::int64_t>(1, kElementwiseGrain / std::max<std::int64_t>(pl.inner, 1));
    parallel_ranges(ctx.pool(), pl.rows, grain, [&](std::int64_t r0, std::int64_t r1) {
      for (std::int64_t r = r0; r < r1; ++r) {
        const std::int64_t p0 = pl.first(r), dp = pl.step(), e0 = r * pl.inner;
        for (std::int64_t j = 0; j < pl.inner; ++j) {
          const std::int64_t p = p0 + j * dp;
          std::int64_t z = 0;
          if constexpr (!std::is_same_v<Z, std::optional<C>>) z = zero[p];
          py[e0 + j] = static_cast<float>(static_cast<std::int64_t>(codes[e0 + j]) - z) * ps[p];
        }
      }
    });
  }

  std::int64_t axis_, block_;
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
