// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (reduction none /
// sum / mean, class weights, ignore_index), accumulated in double.
#include <cmath>
#include <limits>

#include "runtime/kernels/common.h"
#include "runtime/kernels/register.h"

namespace winml::runtime::kernels {

namespace {

enum class LossReduction { kNone, kSum, kMean };

LossReduction parse(const NodeContext& n) {
  std::string r = n.attr_string("reduction", "mean");
  if (r == "none") return LossReduction::kNone;
  if (r == "sum") return LossReduction::kSum;
  if (r == "mean") return LossReduction::kMean;
  n.fail("unknown reduction '" + r + "'");
}

// loss[n, d...] = -weight[t] * logp[n, t, d...] with t = target[n, d...].
template <typename T>
Tensor nll(const Tensor& logp, const Tensor& target, const Tensor* weight, LossReduction reduction, bool has_ignore,
           std::int64_t ignore) {
  std::int64_t N = logp.dim(0), C = logp.dim(1), D = dims_product(logp.shape(), 2, logp.rank());
  auto t = to_int64s(target);
  if (static_cast<std::int64_t>(t.size()) != N * D) throw InputError("target shape does not match the input");
  Shape loss_shape{N};
  loss_shape.insert(loss_shape.end(), logp.shape().begin() + 2, logp.shape().end());
  std::vector<double> loss(static_cast<std::size_t>(N * D)), w(static_cast<std::size_t>(N * D));
  const T* p = logp.data<T>();
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t d = 0; d < D; ++d) {
      std::int64_t cls = t[n * D + d];
      if (has_ignore && cls == ignore) continue;
      if (cls < 0 || cls >= C) throw InputError("target class " + std::to_string(cls) + " is out of range");
      double wt = weight ? static_cast<double>(weight->data<T>()[cls]) : 1.0;
      loss[n * D + d] = -static_cast<double>(p[(n * C + cls) * D + d]) * wt;
      w[n * D + d] = wt;
    }
  if (reduction == LossReduction::kNone) {
    Tensor out = Tensor::allocate(logp.dtype(), loss_shape);
    for (std::size_t i = 0; i < loss.size(); ++i) out.mutable_data<T>()[i] = static_cast<T>(loss[i]);
    return out;
  }
  double sum = 0, wsum = 0;
  for (std::size_t i = 0; i < loss.size(); ++i) {
    sum += loss[i];
    wsum += w[i];
  }
  Tensor out = Tensor::allocate(logp.dtype(), {});
  out.mutable_data<T>()[0] = static_cast<T>(reduction == LossReduction::kSum ? sum : (wsum == 0 ? 0.0 : sum / wsum));
  return out;
}

class NegativeLogLikelihoodLoss : public Kernel {
 public:
  explicit NegativeLogLikelihoodLoss(const NodeContext& n)
      : reduction_(parse(n)), has_ignore_(n.has_attr("ignore_index")), ignore_(n.attr_int("ignore_index", 0)) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 2) throw InputError("input must have rank >= 2");
    dispatch_float(x.dtype(), [&]<typename T>() {
      ctx.set_output(0, nll<T>(x, ctx.input(1), ctx.optional_input(2), reduction_, has_ignore_, ignore_));
    });
  }

 private:
  LossReduction reduction_;
  bool has_ignore_;
  std::int64_t ignore_;
};

class SoftmaxCrossEntropyLoss : public Kernel {
 public:
  explicit SoftmaxCrossEntropyLoss(const NodeContext& n)
      : reduction_(parse(n)), has_ignore_(n.has_attr("ignore_index")), ignore_(n.attr_int("ignore_index", 0)) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 2) throw InputError("scores must have rank >= 2");
    dispatch_float(x.dtype(), [&]<typename T>() {
      std::int64_t N = x.dim(0), C = x.dim(1), D = dims_product(x.shape(), 2, x.rank());
      Tensor logp = Tensor::allocate(x.dtype(), x.shape());
      const T* px = x.data<T>();
      T* pl = logp.mutable_data<T>();
      for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t d = 0; d < D; ++d) {
          double m = -std::numeric_limits<double>::infinity(), s = 0;
          for (std::int64_t c = 0; c < C; ++c) m = std::max(m, static_cast<double>(px[(n * C + c) * D + d]));
          for (std::int64_t c = 0; c < C; ++c) s += std::exp(static_cast<double>(px[(n * C + c) * D + d]) - m);
          double ls = std::log(s);
          for (std::int64_t c = 0; c < C; ++c)
            pl[(n * C + c) * D + d] = static_cast<T>(static_cast<double>(px[(n * C + c) * D + d]) - m - ls);
        }
      ctx.set_output(0, nll<T>(logp, ctx.input(1), ctx.optional_input(2), reduction_, has_ignore_, ignore_));
      if (ctx.output_count() > 1 && ctx.output_wanted(1)) ctx.set_output(1, logp);
    });
  }

 private:
  LossReduction reduction_;
  bool has_ignore_;
  std::int64_t ignore_;
};

}  // namespace

void register_losses(KernelRegistry& r) {
  add(r, "NegativeLogLikelihoodLoss", 12, kMaxOnnxOpset, make<NegativeLogLikelihoodLoss>(), kFloatCompute);
  add(r, "SoftmaxCrossEntropyLoss", 12, kMaxOnnxOpset, make<SoftmaxCrossEntropyLoss>(), kFloatCompute);
}

}  // namespace winml::runtime::kernels
