// Slice (attributes before opset 10, inputs after), Pad (constant, reflect,
// edge, wrap) and Tile.
#include <algorithm>
#include <cstring>
#include <limits>

#include "runtime/kernels/common.h"
#include "runtime/kernels/register.h"

namespace winml::runtime::kernels {

namespace {

// Copies elements of x at (start + i * step) per dim into a dense output.
template <typename T>
void strided_copy(const T* x, const Shape& in, const std::vector<std::int64_t>& start,
                  const std::vector<std::int64_t>& step, const Shape& out, T* y) {
  int rank = static_cast<int>(in.size());
  auto st = strides_of(in);
  std::int64_t n = shape_size(out);
  if (n == 0) return;
  if (rank == 0) {
    y[0] = x[0];
    return;
  }
  std::int64_t inner = out.back(), inner_step = step.back() * st.back();
  std::vector<std::int64_t> idx(static_cast<std::size_t>(rank), 0);
  for (std::int64_t row = 0; row < n / inner; ++row) {
    std::int64_t off = 0;
    for (int d = 0; d < rank; ++d) off += (start[d] + idx[d] * step[d]) * st[d];
    T* dst = y + row * inner;
    if (inner_step == 1) std::memcpy(dst, x + off, sizeof(T) * static_cast<std::size_t>(inner));
    else
      for (std::int64_t i = 0; i < inner; ++i) dst[i] = x[off + i * inner_step];
    for (int d = rank - 2; d >= 0; --d) {
      if (++idx[d] < out[d]) break;
      idx[d] = 0;
    }
  }
}

class Slice : public Kernel {
 public:
  explicit Slice(const NodeContext& n) : legacy_(n.opset() < 10) {
    if (legacy_) {
      starts_ = n.attr_ints("starts");
      ends_ = n.attr_ints("ends");
      axes_ = n.attr_ints("axes");
    }
  }
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    std::vector<std::int64_t> starts = starts_, ends = ends_, axes = axes_, steps;
    if (!legacy_) {
      starts = to_int64s(ctx.input(1));
      ends = to_int64s(ctx.input(2));
      if (ctx.has_input(3)) axes = to_int64s(ctx.input(3));
      if (ctx.has_input(4)) steps = to_int64s(ctx.input(4));
    }
    if (starts.size() != ends.size()) throw InputError("starts and ends differ in length");
    if (axes.empty())
      for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (axes.size() != starts.size() || steps.size() != starts.size())
      throw InputError("axes/steps do not match starts");
    int rank = x.rank();
    std::vector<std::int64_t> start(rank, 0), step(rank, 1);
    Shape out = x.shape();
    std::vector<bool> seen(static_cast<std::size_t>(rank), false);
    for (std::size_t i = 0; i < axes.size(); ++i) {
      int a = normalize_axis(axes[i], rank);
      if (seen[a]) throw InputError("Slice repeats an axis");
      seen[a] = true;
      std::int64_t dim = x.dim(a), s = starts[i], e = ends[i], k = steps[i];
      if (k == 0) throw InputError("Slice step is zero");
      if (s < 0) s += dim;
      if (e < 0) e += dim;
      if (k > 0) {
        s = std::clamp<std::int64_t>(s, 0, dim);
        e = std::clamp<std::int64_t>(e, 0, dim);
        out[a] = e > s ? (e - s + k - 1) / k : 0;
      } else {
        s = std::clamp<std::int64_t>(s, dim > 0 ? 0 : -1, dim - 1);
        e = std::clamp<std::int64_t>(e, -1, dim - 1);
        out[a] = s > e ? (s - e + (-k) - 1) / (-k) : 0;
      }
      start[a] = s;
      step[a] = k;
    }
    dispatch_by_size(x.dtype(), [&]<typename T>() {
      Tensor& y = ctx.allocate_output(0, x.dtype(), out);
      strided_copy(x.data<T>(), x.shape(), start, step, out, y.mutable_data<T>());
    });
  }

 private:
  bool legacy_;
  std::vector<std::int64_t> starts_, ends_, axes_;
};

class Pad : public Kernel {
 public:
  explicit Pad(const NodeContext& n) : legacy_(n.opset() < 11), mode_(n.attr_string("mode", "constant")) {
    if (mode_ != "constant" && mode_ != "reflect" && mode_ != "edge" && mode_ != "wrap")
      n.fail("unknown mode '" + mode_ + "'");
    if (legacy_) {
      pads_ = n.attr_ints(n.opset() < 2 ? "paddings" : "pads");
      value_ = n.attr_float("value", 0.0f);
    }
  }
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    int rank = x.rank();
    std::vector<std::int64_t> pads = pads_;
    if (!legacy_) {
      std::vector<std::int64_t> given = to_int64s(ctx.input(1));
      if (ctx.has_input(3)) {  // opset 18: pads for the listed axes only
        auto axes = to_int64s(ctx.input(3));
        pads.assign(2 * rank, 0);
        if (given.size() != 2 * axes.size()) throw InputError("pads does not match axes");
        for (std::size_t i = 0; i < axes.size(); ++i) {
          int a = normalize_axis(axes[i], rank);
          pads[a] = given[i];
          pads[a + rank] = given[i + axes.size()];
        }
      } else {
        pads = given;
      }
    }
    if (static_cast<int>(pads.size()) != 2 * rank) throw InputError("pads must have 2 * rank values");
    Shape out(rank);
    for (int d = 0; d < rank; ++d) {
      out[d] = x.dim(d) + pads[d] + pads[d + rank];
      if (out[d] < 0) throw InputError("negative output dimension after Pad");
      if (mode_ != "constant" && x.dim(d) == 0 && out[d] > 0) throw InputError(mode_ + " padding of an empty axis");
    }
    dispatch_all(x.dtype(), [&]<typename T>() {
      T value = static_cast<T>(value_);
      if (!legacy_ && ctx.has_input(2) && ctx.input(2).size() > 0) value = ctx.input(2).data<T>()[0];
      Tensor& y = ctx.allocate_output(0, x.dtype(), out);
      const T* px = x.data<T>();
      T* py = y.mutable_data<T>();
      auto in_strides = strides_of(x.shape());
      std::vector<std::int64_t> idx(rank, 0);
      for (std::int64_t i = 0; i < y.size(); ++i) {
        std::int64_t off = 0;
        bool inside = true;
        for (int d = 0; d < rank && inside; ++d) {
          std::int64_t p = idx[d] - pads[d], n = x.dim(d);
          if (p < 0 || p >= n) {
            if (mode_ == "constant") inside = false;
            else if (mode_ == "edge") p = std::clamp<std::int64_t>(p, 0, n - 1);
            else if (mode_ == "wrap") p = ((p % n) + n) % n;
            else {  // reflect without repeating the edge
              if (n == 1) p = 0;
              else {
                std::int64_t period = 2 * (n - 1);
                p = ((p % period) + period) % period;
                if (p >= n) p = period - p;
              }
            }
          }
          off += p * in_strides[d];
        }
        py[i] = inside ? px[off] : value;
        for (int d = rank - 1; d >= 0; --d) {
          if (++idx[d] < out[d]) break;
          idx[d] = 0;
        }
      }
    });
  }

 private:
  bool legacy_;
  std::string mode_;
  std::vector<std::int64_t> pads_;
  float value_ = 0.0f;
};

class Tile : public Kernel {
 public:
  explicit Tile(const NodeContext&) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    auto repeats = to_int64s(ctx.input(1));
    if (static_cast<int>(repeats.size()) != x.rank()) throw InputError("repeats must have one value per dimension");
    Shape out = x.shape();
    for (int d = 0; d < x.rank(); ++d) out[d] *= repeats[d];
    dispatch_by_size(x.dtype(), [&]<typename T>() {
      Tensor& y = ctx.allocate_output(0, x.dtype(), out);
      const T* px = x.data<T>();
      T* py = y.mutable_data<T>();
      auto st = strides_of(x.shape());
      std::vector<std::int64_t> idx(x.rank(), 0);
      for (std::int64_t i = 0; i < y.size(); ++i) {
        std::int64_t off = 0;
        for (int d = 0; d < x.rank(); ++d) off += (idx[d] % x.dim(d)) * st[d];
        py[i] = px[off];
        for (int d = x.rank() - 1; d >= 0; --d) {
          if (++idx[d] < out[d]) break;
          idx[d] = 0;
        }
      }
    });
  }
};

}  // namespace

void register_slice_pad_tile(KernelRegistry& r) {
  const auto top = kMaxOnnxOpset;
  add(r, "Slice", 1, top, make<Slice>());
  add(r, "Pad", 2, top, make<Pad>());
  add(r, "Tile", 6, top, make<Tile>());
}

}  // namespace winml::runtime::kernels
