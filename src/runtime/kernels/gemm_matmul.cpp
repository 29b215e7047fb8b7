// Gemm and MatMul on the tiled, deterministic sgemm (float32); other numeric
// types use plain loops.
#include <cstring>

#include "runtime/gemm.h"
#include "runtime/kernels/common.h"
#include "runtime/kernels/register.h"

namespace winml::runtime::kernels {

namespace {

// C[m,n] = sum_k A[m,k] * B[k,n] for non-float32 types, row-major, no transposes.
template <typename T>
void naive_matmul(const T* a, const T* b, T* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      T acc = T(0);
      for (std::int64_t p = 0; p < k; ++p) acc = static_cast<T>(acc + a[i * k + p] * b[p * n + j]);
      c[i * n + j] = acc;
    }
}

class Gemm : public Kernel {
 public:
  explicit Gemm(const NodeContext& n)
      : alpha_(n.attr_float("alpha", 1.0f)),
        beta_(n.attr_float("beta", 1.0f)),
        trans_a_(n.attr_int("transA", 0) != 0),
        trans_b_(n.attr_int("transB", 0) != 0) {
    const Tensor* b = n.constant_input(1);
    if (b && b->dtype() == onnx::TensorProto::FLOAT && b->rank() == 2 && alpha_ == 1.0f)
      packed_ = pack_weights(PackedWeights::Side::kRight, b->data<float>(), b->dim(1), trans_b_,
                             trans_b_ ? b->dim(1) : b->dim(0), trans_b_ ? b->dim(0) : b->dim(1));
  }

  bool prepacked_input(int i) const override { return i == 1 && packed_; }

  void run(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    const Tensor* c = ctx.optional_input(2);
    if (a.rank() != 2 || b.rank() != 2)
      throw InputError("Gemm takes 2-D A and B, got " + shape_string(a.shape()) + " and " + shape_string(b.shape()));
    std::int64_t m = trans_a_ ? a.dim(1) : a.dim(0), k = trans_a_ ? a.dim(0) : a.dim(1);
    std::int64_t kb = trans_b_ ? b.dim(1) : b.dim(0), n = trans_b_ ? b.dim(0) : b.dim(1);
    if (k != kb)
      throw InputError("Gemm inner dimensions differ: " + shape_string(a.shape()) + " and " + shape_string(b.shape()));
    Shape shape{m, n};
    bool add_c = c && beta_ != 0.0f;
    if (add_c) broadcast_shapes(c->shape(), shape);  // C must broadcast to [M, N]
    if (a.dtype() != onnx::TensorProto::FLOAT) {
      run_other(ctx, a, b, c, m, n, k);
      return;
    }
    Tensor& y = ctx.allocate_output(0, a.dtype(), shape);
    float* py = y.mutable_data<float>();
    if (add_c) fill_c(*c, py, m, n);
    if (packed_ && packed_->k == k && packed_->extent == n) {
      sgemm_packed(*packed_, a.data<float>(), a.dim(1), trans_a_, m, py, n, add_c, ctx.pool());
      return;
    }
    GemmArgs g;
    g.a = a.data<float>();
    g.lda = a.dim(1);
    g.trans_a = trans_a_;
    g.b = b.data<float>();
    g.ldb = b.dim(1);
    g.trans_b = trans_b_;
    g.c = py;
    g.ldc = n;
    g.m = m;
    g.n = n;
    g.k = k;
    g.alpha = alpha_;
    g.accumulate = add_c;
    sgemm(g, ctx.pool());
  }

 private:
  // y = beta * C, broadcast to [m, n].
  void fill_c(const Tensor& c, float* y, std::int64_t m, std::int64_t n) const {
    const float* pc = c.data<float>();
    Shape cs = c.shape();
    while (cs.size() < 2) cs.insert(cs.begin(), 1);
    std::int64_t rs = cs[0] == 1 ? 0 : cs[1], cstride = cs[1] == 1 ? 0 : 1;
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) y[i * n + j] = beta_ * pc[i * rs + j * cstride];
  }

  void run_other(KernelContext& ctx, const Tensor& a, const Tensor& b, const Tensor* c, std::int64_t m, std::int64_t n,
                 std::int64_t k) const {
    dispatch_numeric(a.dtype(), [&]<typename T>() {
      Tensor& y = ctx.allocate_output(0, a.dtype(), {m, n});
      const T* pa = a.data<T>();
      const T* pb = b.data<T>();
      T* py = y.mutable_data<T>();
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
          T acc = T(0);
          for (std::int64_t p = 0; p < k; ++p) {
            T av = trans_a_ ? pa[p * m + i] : pa[i * k + p];
            T bv = trans_b_ ? pb[j * k + p] : pb[p * n + j];
            acc = static_cast<T>(acc + av * bv);
          }
          T v = static_cast<T>(T(alpha_) * acc);
          if (c && beta_ != 0.0f) {
            Shape cs = c->shape();
            while (cs.size() < 2) cs.insert(cs.begin(), 1);
            std::int64_t ci = (cs[0] == 1 ? 0 : i) * cs[1] + (cs[1] == 1 ? 0 : j);
            v = static_cast<T>(v + T(beta_) * c->data<T>()[ci]);
          }
          py[i * n + j] = v;
        }
    });
  }

  float alpha_, beta_;
  bool trans_a_, trans_b_;
  std::shared_ptr<const PackedWeights> packed_;
};

class MatMul : public Kernel {
 public:
  explicit MatMul(const NodeContext& n) {
    const Tensor* b = n.constant_input(1);
    if (b && b->dtype() == onnx::TensorProto::FLOAT && b->rank() == 2)
      packed_ = pack_weights(PackedWeights::Side::kRight, b->data<float>(), b->dim(1), false, b->dim(0), b->dim(1));
  }

  bool prepacked_input(int i) const override { return i == 1 && packed_; }

  void run(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.dtype() != b.dtype()) throw InputError("input types differ");
    if (a.rank() == 0 || b.rank() == 0) throw InputError("MatMul inputs must have rank >= 1");
    // Numpy semantics: 1-D operands are promoted and the added dim dropped.
    Shape as = a.shape(), bs = b.shape();
    bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
    if (a_vec) as.insert(as.begin(), 1);
    if (b_vec) bs.push_back(1);
    std::int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
    if (bs[bs.size() - 2] != k)
      throw InputError("MatMul inner dimensions differ: " + shape_string(a.shape()) + " and " +
                       shape_string(b.shape()));
    Shape a_batch(as.begin(), as.end() - 2), b_batch(bs.begin(), bs.end() - 2);
    Shape batch = broadcast_shapes(a_batch, b_batch);
    Shape out = batch;
    if (!a_vec) out.push_back(m);
    if (!b_vec) out.push_back(n);

    std::int64_t batches = shape_size(batch);
    // Offsets of each output batch's A and B matrices under broadcasting.
    std::vector<std::int64_t> a_off(static_cast<std::size_t>(batches)), b_off(static_cast<std::size_t>(batches));
    batch_offsets(batch, a_batch, m * k, a_off);
    batch_offsets(batch, b_batch, k * n, b_off);

    if (a.dtype() != onnx::TensorProto::FLOAT) {
      dispatch_numeric(a.dtype(), [&]<typename T>() {
        Tensor& y = ctx.allocate_output(0, a.dtype(), out);
        for (std::int64_t i = 0; i < batches; ++i)
          naive_matmul(a.data<T>() + a_off[i], b.data<T>() + b_off[i], y.mutable_data<T>() + i * m * n, m, n, k);
      });
      return;
    }
    Tensor& y = ctx.allocate_output(0, a.dtype(), out);
    float* py = y.mutable_data<float>();
    // B shared by every batch and A contiguous: one tall product.
    bool b_shared = shape_size(b_batch) == 1;
    if (b_shared && shape_size(a_batch) == batches) {
      m *= batches;
      batches = 1;
      if (packed_ && packed_->k == k && packed_->extent == n) {
        sgemm_packed(*packed_, a.data<float>(), k, false, m, py, n, false, ctx.pool());
        return;
      }
    }
    auto args = [&](std::int64_t i) {
      GemmArgs g;
      g.a = a.data<float>() + a_off[static_cast<std::size_t>(i)];
      g.lda = k;
      g.b = b.data<float>() + b_off[static_cast<std::size_t>(i)];
      g.ldb = n;
      g.c = py + i * m * n;
      g.ldc = n;
      g.m = m;
      g.n = n;
      g.k = k;
      return g;
    };
    if (batches == 1) {
      sgemm(args(0), ctx.pool());
    } else {
      // Many small products: one per tile (sgemm_serial computes the same bits as sgemm).
      ctx.pool().parallel_for(batches, [&](std::int64_t i) { sgemm_serial(args(i)); });
    }
  }

 private:
  static void batch_offsets(const Shape& batch, const Shape& own, std::int64_t matrix, std::vector<std::int64_t>& out) {
    std::size_t rank = batch.size(), pad = rank - own.size();
    // No batch dimensions: one matrix at offset 0 (also keeps GCC 12 from a
    // false -Wfree-nonheap-object on the empty vectors below).
    if (rank == 0) {
      std::fill(out.begin(), out.end(), 0);
      return;
    }
    std::vector<std::int64_t> stride(rank, 0);
    std::int64_t acc = matrix;
    for (std::size_t d = rank; d-- > pad;) {
      std::int64_t dim = own[d - pad];
      stride[d] = dim == 1 ? 0 : acc;
      acc *= dim;
    }
    std::vector<std::int64_t> idx(rank, 0);
    for (std::size_t i = 0; i < out.size(); ++i) {
      std::int64_t off = 0;
      for (std::size_t d = 0; d < rank; ++d) off += idx[d] * stride[d];
      out[i] = off;
      for (std::size_t d = rank; d-- > 0;) {
        if (++idx[d] < batch[d]) break;
        idx[d] = 0;
      }
    }
  }

  std::shared_ptr<const PackedWeights> packed_;
};

}  // namespace

void register_gemm_matmul(KernelRegistry& r) {
  add(r, "Gemm", 7, kMaxOnnxOpset, make<Gemm>(), kFloatCompute);
  add(r, "MatMul", 1, kMaxOnnxOpset, make<MatMul>(), kFloatCompute);
}

}  // namespace winml::runtime::kernels
