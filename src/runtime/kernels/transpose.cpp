// Transpose, DepthToSpace, SpaceToDepth.
#include "runtime/kernels/transpose.h"

#include <cstring>
#include <numeric>

#include "runtime/kernels/common.h"
#include "runtime/kernels/register.h"

namespace winml::runtime::kernels {

Shape permuted_shape(const Shape& s, const std::vector<int>& perm) {
  Shape out(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) out[i] = s[static_cast<std::size_t>(perm[i])];
  return out;
}

void transpose_into(const Tensor& x, const std::vector<int>& perm, Tensor& out, ThreadPool& pool) {
  int rank = x.rank();
  auto in_strides = strides_of(x.shape());
  // Output dims with their input strides, merging runs that stay contiguous.
  std::vector<std::int64_t> dims, strides;
  for (int i = 0; i < rank; ++i) {
    std::int64_t d = x.dim(perm[i]), s = in_strides[perm[i]];
    if (d == 1) continue;
    if (!dims.empty() && strides.back() == s * d) {
      dims.back() *= d;
      strides.back() = s;
    } else {
      dims.push_back(d);
      strides.push_back(s);
    }
  }
  std::int64_t n = x.size();
  if (dims.size() <= 1) {  // the data order does not change
    if (n) std::memcpy(out.mutable_raw(), x.raw(), x.bytes());
    return;
  }
  int r = static_cast<int>(dims.size());
  dispatch_by_size(x.dtype(), [&]<typename T>() {
    const T* px = x.data<T>();
    T* py = out.mutable_data<T>();
    std::int64_t inner = dims.back(), inner_stride = strides.back();
    std::int64_t rows = n / inner;
    parallel_ranges(pool, rows, std::max<std::int64_t>(1, kElementwiseGrain / inner),
                    [&](std::int64_t r0, std::int64_t r1) {
                      std::vector<std::int64_t> idx(static_cast<std::size_t>(r - 1));
                      std::int64_t rest = r0, off = 0;
                      for (int d = r - 2; d >= 0; --d) {
                        idx[d] = rest % dims[d];
                        rest /= dims[d];
                        off += idx[d] * strides[d];
                      }
                      for (std::int64_t row = r0; row < r1; ++row) {
                        T* dst = py + row * inner;
                        const T* src = px + off;
                        if (inner_stride == 1) std::memcpy(dst, src, sizeof(T) * static_cast<std::size_t>(inner));
                        else
                          for (std::int64_t i = 0; i < inner; ++i) dst[i] = src[i * inner_stride];
                        for (int d = r - 2; d >= 0; --d) {
                          off += strides[d];
                          if (++idx[d] < dims[d]) break;
                          off -= strides[d] * dims[d];
                          idx[d] = 0;
                        }
                      }
                    });
  });
}

namespace {

class Transpose : public Kernel {
 public:
  explicit Transpose(const NodeContext& n) : perm_(n.attr_ints("perm")) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    std::vector<int> perm(static_cast<std::size_t>(x.rank()));
    if (perm_.empty()) {
      for (int i = 0; i < x.rank(); ++i) perm[i] = x.rank() - 1 - i;
    } else {
      if (static_cast<int>(perm_.size()) != x.rank()) throw InputError("perm does not match the input's rank");
      std::vector<bool> seen(perm.size(), false);
      for (std::size_t i = 0; i < perm.size(); ++i) {
        perm[i] = normalize_axis(perm_[i], x.rank());
        if (seen[perm[i]]) throw InputError("perm repeats an axis");
        seen[perm[i]] = true;
      }
    }
    Tensor& y = ctx.allocate_output(0, x.dtype(), permuted_shape(x.shape(), perm));
    transpose_into(x, perm, y, ctx.pool());
  }

 private:
  std::vector<std::int64_t> perm_;
};

// DepthToSpace (DCR / CRD) and SpaceToDepth as reshape + transpose + reshape.
class DepthToSpace : public Kernel {
 public:
  explicit DepthToSpace(const NodeContext& n)
      : block_(n.required_int("blocksize")), crd_(n.attr_string("mode", "DCR") == "CRD") {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() != 4) throw InputError("DepthToSpace takes a 4-D input");
    std::int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3), b = block_;
    if (C % (b * b)) throw InputError("channels are not divisible by blocksize^2");
    Tensor view = crd_ ? x.reshaped({N, C / (b * b), b, b, H, W}) : x.reshaped({N, b, b, C / (b * b), H, W});
    std::vector<int> perm = crd_ ? std::vector<int>{0, 1, 4, 2, 5, 3} : std::vector<int>{0, 3, 4, 1, 5, 2};
    Tensor& y = ctx.allocate_output(0, x.dtype(), {N, C / (b * b), H * b, W * b});
    Tensor y6 = y.reshaped(permuted_shape(view.shape(), perm));
    transpose_into(view, perm, y6, ctx.pool());
  }

 private:
  std::int64_t block_;
  bool crd_;
};

class SpaceToDepth : public Kernel {
 public:
  explicit SpaceToDepth(const NodeContext& n) : block_(n.required_int("blocksize")) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() != 4) throw InputError("SpaceToDepth takes a 4-D input");
    std::int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3), b = block_;
    if (H % b || W % b) throw InputError("spatial dims are not divisible by blocksize");
    Tensor view = x.reshaped({N, C, H / b, b, W / b, b});
    std::vector<int> perm{0, 3, 5, 1, 2, 4};
    Tensor& y = ctx.allocate_output(0, x.dtype(), {N, C * b * b, H / b, W / b});
    Tensor y6 = y.reshaped(permuted_shape(view.shape(), perm));
    transpose_into(view, perm, y6, ctx.pool());
  }

 private:
  std::int64_t block_;
};

}  // namespace

void register_transpose(KernelRegistry& r) {
  const auto top = kMaxOnnxOpset;
  add(r, "Transpose", 1, top, make<Transpose>());
  add(r, "DepthToSpace", 1, top, make<DepthToSpace>());
  add(r, "SpaceToDepth", 1, top, make<SpaceToDepth>());
}

}  // namespace winml::runtime::kernels
