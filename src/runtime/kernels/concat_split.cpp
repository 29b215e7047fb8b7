// Concat and Split: block copies along one axis.
#include <cstring>

#include "runtime/kernels/common.h"
#include "runtime/kernels/register.h"

namespace winml::runtime::kernels {

namespace {

class Concat : public Kernel {
 public:
  explicit Concat(const NodeContext& n) : axis_(n.attr_int("axis", n.opset() < 4 ? 1 : 0)) {
    if (n.opset() >= 4 && !n.has_attr("axis")) n.fail("missing required attribute 'axis'");
  }
  void run(KernelContext& ctx) const override {
    const Tensor& first = ctx.input(0);
    int rank = first.rank();
    int axis = normalize_axis(axis_, rank);
    Shape out = first.shape();
    out[axis] = 0;
    for (int i = 0; i < ctx.input_count(); ++i) {
      const Tensor& t = ctx.input(i);
      if (t.dtype() != first.dtype() || t.rank() != rank) throw InputError("Concat inputs differ in type or rank");
      for (int d = 0; d < rank; ++d)
        if (d != axis && t.dim(d) != first.dim(d))
          throw InputError("Concat inputs differ outside the axis: " + shape_string(first.shape()) + " and " +
                           shape_string(t.shape()));
      out[axis] += t.dim(axis);
    }
    Tensor& y = ctx.allocate_output(0, first.dtype(), out);
    std::size_t es = dtype_size(first.dtype());
    std::int64_t outer = dims_product(out, 0, axis), inner = dims_product(out, axis + 1, rank);
    std::size_t out_row = static_cast<std::size_t>(out[axis] * inner) * es;
    std::byte* py = y.mutable_raw();
    parallel_ranges(ctx.pool(), outer,
                    std::max<std::int64_t>(1, kElementwiseGrain / std::max<std::int64_t>(out[axis] * inner, 1)),
                    [&](std::int64_t o0, std::int64_t o1) {
                      for (std::int64_t o = o0; o < o1; ++o) {
                        std::size_t pos = 0;
                        for (int i = 0; i < ctx.input_count(); ++i) {
                          const Tensor& t = ctx.input(i);
                          std::size_t len = static_cast<std::size_t>(t.dim(axis) * inner) * es;
                          if (len) std::memcpy(py + o * out_row + pos, t.raw() + o * len, len);
                          pos += len;
                        }
                      }
                    });
  }

 private:
  std::int64_t axis_;
};

class Split : public Kernel {
 public:
  explicit Split(const NodeContext& n)
      : axis_(n.attr_int("axis", 0)),
        split_attr_(n.attr_ints("split")),
        from_input_(n.opset() >= 13),
        num_outputs_(n.attr_int("num_outputs", 0)) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    int axis = normalize_axis(axis_, x.rank());
    std::int64_t len = x.dim(axis);
    int count = ctx.output_count();
    std::vector<std::int64_t> split = split_attr_;
    if (from_input_) split = ctx.has_input(1) ? to_int64s(ctx.input(1)) : std::vector<std::int64_t>{};
    if (split.empty()) {
      // Equal parts; with num_outputs (opset 18) the last one may be smaller.
      std::int64_t parts = num_outputs_ > 0 ? num_outputs_ : count;
      std::int64_t each = num_outputs_ > 0 ? (len + parts - 1) / parts : len / parts;
      if (num_outputs_ == 0 && len % parts)
        throw InputError("cannot split " + std::to_string(len) + " evenly into " + std::to_string(parts));
      for (std::int64_t i = 0; i < parts; ++i) split.push_back(std::min(each, len - i * each));
    }
    if (static_cast<int>(split.size()) != count)
      throw InputError("split has " + std::to_string(split.size()) + " parts for " + std::to_string(count) +
                       " outputs");
    std::int64_t total = 0;
    for (auto s : split) total += s;
    if (total != len) throw InputError("split sizes do not add up to the axis length");
    std::size_t es = dtype_size(x.dtype());
    std::int64_t outer = dims_product(x.shape(), 0, axis), inner = dims_product(x.shape(), axis + 1, x.rank());
    std::size_t in_row = static_cast<std::size_t>(len * inner) * es;
    std::size_t pos = 0;
    for (int i = 0; i < count; ++i) {
      Shape s = x.shape();
      s[axis] = split[i];
      std::size_t part = static_cast<std::size_t>(split[i] * inner) * es;
      if (ctx.output_wanted(i)) {
        Tensor& y = ctx.allocate_output(i, x.dtype(), s);
        std::byte* py = y.mutable_raw();
        for (std::int64_t o = 0; o < outer; ++o)
          if (part) std::memcpy(py + o * part, x.raw() + o * in_row + pos, part);
      }
      pos += part;
    }
  }

 private:
  std::int64_t axis_;
  std::vector<std::int64_t> split_attr_;
  bool from_input_;
  std::int64_t num_outputs_;
};

}  // namespace

void register_concat_split(KernelRegistry& r) {
  add(r, "Concat", 1, kMaxOnnxOpset, make<Concat>());
  add(r, "Split", 2, kMaxOnnxOpset, make<Split>());
}

}  // namespace winml::runtime::kernels
