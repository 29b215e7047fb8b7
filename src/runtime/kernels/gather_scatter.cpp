// Gather, GatherElements, GatherND, ScatterElements (and the older Scatter),
// ScatterND, OneHot, NonZero, Compress. Negative indices count from the end;
// out-of-range indices are an InputError.
#include <cstring>

#include "runtime/kernels/common.h"
#include "runtime/kernels/register.h"

namespace winml::runtime::kernels {

namespace {

std::int64_t fix_index(std::int64_t i, std::int64_t dim) {
  if (i < -dim || i >= dim)
    throw InputError("index " + std::to_string(i) + " is out of range for a dimension of " + std::to_string(dim));
  return i < 0 ? i + dim : i;
}

class Gather : public Kernel {
 public:
  explicit Gather(const NodeContext& n) : axis_(n.attr_int("axis", 0)) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& idx = ctx.input(1);
    int axis = normalize_axis(axis_, x.rank());
    auto indices = to_int64s(idx);
    std::int64_t dim = x.dim(axis);
    for (auto& i : indices) i = fix_index(i, dim);
    Shape out(x.shape().begin(), x.shape().begin() + axis);
    out.insert(out.end(), idx.shape().begin(), idx.shape().end());
    out.insert(out.end(), x.shape().begin() + axis + 1, x.shape().end());
    Tensor& y = ctx.allocate_output(0, x.dtype(), out);
    std::size_t es = dtype_size(x.dtype());
    std::int64_t outer = dims_product(x.shape(), 0, axis), inner = dims_product(x.shape(), axis + 1, x.rank());
    std::size_t block = static_cast<std::size_t>(inner) * es;
    std::int64_t n = static_cast<std::int64_t>(indices.size());
    std::byte* py = y.mutable_raw();
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t k = 0; k < n; ++k)
        if (block) std::memcpy(py + (o * n + k) * block, x.raw() + (o * dim + indices[k]) * block, block);
  }

 private:
  std::int64_t axis_;
};

class GatherElements : public Kernel {
 public:
  explicit GatherElements(const NodeContext& n) : axis_(n.attr_int("axis", 0)) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& idx = ctx.input(1);
    int axis = normalize_axis(axis_, x.rank());
    if (idx.rank() != x.rank()) throw InputError("indices must have the data's rank");
    auto indices = to_int64s(idx);
    auto xs = strides_of(x.shape());
    dispatch_by_size(x.dtype(), [&]<typename T>() {
      Tensor& y = ctx.allocate_output(0, x.dtype(), idx.shape());
      const T* px = x.data<T>();
      T* py = y.mutable_data<T>();
      std::vector<std::int64_t> pos(x.rank(), 0);
      for (std::int64_t i = 0; i < idx.size(); ++i) {
        std::int64_t off = 0;
        for (int d = 0; d < x.rank(); ++d) off += (d == axis ? fix_index(indices[i], x.dim(axis)) : pos[d]) * xs[d];
        py[i] = px[off];
        for (int d = x.rank() - 1; d >= 0; --d) {
          if (++pos[d] < idx.dim(d)) break;
          pos[d] = 0;
        }
      }
    });
  }

 private:
  std::int64_t axis_;
};

class GatherND : public Kernel {
 public:
  explicit GatherND(const NodeContext& n) : batch_dims_(n.attr_int("batch_dims", 0)) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& idx = ctx.input(1);
    auto indices = to_int64s(idx);
    int b = static_cast<int>(batch_dims_);
    std::int64_t k = idx.dim(idx.rank() - 1);
    if (b + k > x.rank()) throw InputError("index tuples are longer than the data's rank");
    Shape out(idx.shape().begin(), idx.shape().end() - 1);
    out.insert(out.end(), x.shape().begin() + b + k, x.shape().end());
    std::int64_t batch = dims_product(x.shape(), 0, b);
    std::int64_t tuples_per_batch = dims_product(idx.shape(), b, idx.rank() - 1);
    std::int64_t slice = dims_product(x.shape(), b + static_cast<int>(k), x.rank());
    std::int64_t batch_stride = dims_product(x.shape(), b, x.rank());
    auto xs = strides_of(x.shape());
    Tensor& y = ctx.allocate_output(0, x.dtype(), out);
    std::size_t es = dtype_size(x.dtype());
    for (std::int64_t bi = 0; bi < batch; ++bi)
      for (std::int64_t t = 0; t < tuples_per_batch; ++t) {
        const std::int64_t* tuple = indices.data() + (bi * tuples_per_batch + t) * k;
        std::int64_t off = bi * batch_stride;
        for (std::int64_t j = 0; j < k; ++j) off += fix_index(tuple[j], x.dim(b + static_cast<int>(j))) * xs[b + j];
        std::memcpy(y.mutable_raw() + (bi * tuples_per_batch + t) * slice * es, x.raw() + off * es,
                    static_cast<std::size_t>(slice) * es);
      }
  }

 private:
  std::int64_t batch_dims_;
};

enum class ScatterReduce { kNone, kAdd, kMul, kMax, kMin };

ScatterReduce parse_reduction(const NodeContext& n) {
  std::string r = n.attr_string("reduction", "none");
  if (r == "none") return ScatterReduce::kNone;
  if (r == "add") return ScatterReduce::kAdd;
  if (r == "mul") return ScatterReduce::kMul;
  if (r == "max") return ScatterReduce::kMax;
  if (r == "min") return ScatterReduce::kMin;
  n.fail("unknown reduction '" + r + "'");
}

template <typename T>
void combine(T& dst, T v, ScatterReduce r) {
  switch (r) {
    case ScatterReduce::kNone: dst = v; break;
    case ScatterReduce::kAdd: dst = static_cast<T>(dst + v); break;
    case ScatterReduce::kMul: dst = static_cast<T>(dst * v); break;
    case ScatterReduce::kMax: dst = dst < v ? v : dst; break;
    case ScatterReduce::kMin: dst = v < dst ? v : dst; break;
  }
}

// Updates are applied in index order, so duplicates resolve deterministically.
class ScatterElements : public Kernel {
 public:
  explicit ScatterElements(const NodeContext& n) : axis_(n.attr_int("axis", 0)), reduction_(parse_reduction(n)) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& idx = ctx.input(1);
    const Tensor& upd = ctx.input(2);
    int axis = normalize_axis(axis_, x.rank());
    auto indices = to_int64s(idx);
    auto xs = strides_of(x.shape());
    dispatch_all(x.dtype(), [&]<typename T>() {
      Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
      std::memcpy(y.mutable_raw(), x.raw(), x.bytes());
      T* py = y.mutable_data<T>();
      const T* pu = upd.data<T>();
      std::vector<std::int64_t> pos(x.rank(), 0);
      for (std::int64_t i = 0; i < idx.size(); ++i) {
        std::int64_t off = 0;
        for (int d = 0; d < x.rank(); ++d) off += (d == axis ? fix_index(indices[i], x.dim(axis)) : pos[d]) * xs[d];
        combine(py[off], pu[i], reduction_);
        for (int d = x.rank() - 1; d >= 0; --d) {
          if (++pos[d] < idx.dim(d)) break;
          pos[d] = 0;
        }
      }
    });
  }

 private:
  std::int64_t axis_;
  ScatterReduce reduction_;
};

class ScatterND : public Kernel {
 public:
  explicit ScatterND(const NodeContext& n) : reduction_(parse_reduction(n)) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& idx = ctx.input(1);
    const Tensor& upd = ctx.input(2);
    auto indices = to_int64s(idx);
    std::int64_t k = idx.dim(idx.rank() - 1);
    std::int64_t tuples = idx.size() / std::max<std::int64_t>(k, 1);
    std::int64_t slice = dims_product(x.shape(), static_cast<int>(k), x.rank());
    auto xs = strides_of(x.shape());
    dispatch_all(x.dtype(), [&]<typename T>() {
      Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
      std::memcpy(y.mutable_raw(), x.raw(), x.bytes());
      T* py = y.mutable_data<T>();
      const T* pu = upd.data<T>();
      for (std::int64_t t = 0; t < tuples; ++t) {
        std::int64_t off = 0;
        for (std::int64_t j = 0; j < k; ++j) off += fix_index(indices[t * k + j], x.dim(static_cast<int>(j))) * xs[j];
        for (std::int64_t e = 0; e < slice; ++e) combine(py[off + e], pu[t * slice + e], reduction_);
      }
    });
  }

 private:
  ScatterReduce reduction_;
};

class OneHot : public Kernel {
 public:
  explicit OneHot(const NodeContext& n) : axis_(n.attr_int("axis", -1)) {}
  void run(KernelContext& ctx) const override {
    const Tensor& idx = ctx.input(0);
    std::int64_t depth = static_cast<std::int64_t>(scalar_value(ctx.input(1)));
    const Tensor& values = ctx.input(2);
    if (values.size() != 2) throw InputError("values must have two elements");
    std::vector<double> indices(static_cast<std::size_t>(idx.size()));
    dispatch_numeric(idx.dtype(), [&]<typename T>() {
      for (std::int64_t i = 0; i < idx.size(); ++i) indices[i] = static_cast<double>(idx.data<T>()[i]);
    });
    int rank = idx.rank() + 1;
    int axis = normalize_axis(axis_, rank);
    Shape out(idx.shape().begin(), idx.shape().begin() + axis);
    out.push_back(depth);
    out.insert(out.end(), idx.shape().begin() + axis, idx.shape().end());
    std::int64_t outer = dims_product(idx.shape(), 0, axis), inner = dims_product(idx.shape(), axis, idx.rank());
    dispatch_all(values.dtype(), [&]<typename T>() {
      Tensor& y = ctx.allocate_output(0, values.dtype(), out);
      T off = values.data<T>()[0], on = values.data<T>()[1];
      T* py = y.mutable_data<T>();
      for (std::int64_t i = 0; i < y.size(); ++i) py[i] = off;
      for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t i = 0; i < inner; ++i) {
          auto v = static_cast<std::int64_t>(indices[o * inner + i]);
          if (v < 0) v += depth;
          if (v >= 0 && v < depth) py[(o * depth + v) * inner + i] = on;
        }
    });
  }

 private:
  std::int64_t axis_;
};

class NonZero : public Kernel {
 public:
  explicit NonZero(const NodeContext&) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    std::vector<std::int64_t> hits;
    dispatch_all(x.dtype(), [&]<typename T>() {
      for (std::int64_t i = 0; i < x.size(); ++i)
        if (x.data<T>()[i] != T(0)) hits.push_back(i);
    });
    int rank = std::max(x.rank(), 1);
    std::int64_t count = static_cast<std::int64_t>(hits.size());
    Tensor& y = ctx.allocate_output(0, onnx::TensorProto::INT64, {x.rank() == 0 ? 1 : x.rank(), count});
    auto st = strides_of(x.shape());
    std::int64_t* py = y.mutable_data<std::int64_t>();
    for (std::int64_t j = 0; j < count; ++j)
      for (int d = 0; d < rank; ++d) py[d * count + j] = x.rank() == 0 ? 0 : (hits[j] / st[d]) % x.dim(d);
  }
};

class Compress : public Kernel {
 public:
  explicit Compress(const NodeContext& n) : has_axis_(n.has_attr("axis")), axis_(n.attr_int("axis", 0)) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x0 = ctx.input(0);
    const Tensor& cond = ctx.input(1);
    Tensor x = has_axis_ ? x0 : x0.reshaped({x0.size()});
    int axis = has_axis_ ? normalize_axis(axis_, x.rank()) : 0;
    std::vector<std::int64_t> keep;
    for (std::int64_t i = 0; i < std::min(cond.size(), x.dim(axis)); ++i)
      if (cond.data<bool>()[i]) keep.push_back(i);
    Shape out = x.shape();
    out[axis] = static_cast<std::int64_t>(keep.size());
    Tensor& y = ctx.allocate_output(0, x.dtype(), out);
    std::size_t es = dtype_size(x.dtype());
    std::int64_t outer = dims_product(x.shape(), 0, axis), inner = dims_product(x.shape(), axis + 1, x.rank());
    std::size_t block = static_cast<std::size_t>(inner) * es;
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::size_t k = 0; k < keep.size(); ++k)
        std::memcpy(y.mutable_raw() + (o * out[axis] + static_cast<std::int64_t>(k)) * block,
                    x.raw() + (o * x.dim(axis) + keep[k]) * block, block);
  }

 private:
  bool has_axis_;
  std::int64_t axis_;
};

}  // namespace

void register_gather_scatter(KernelRegistry& r) {
  const auto top = kMaxOnnxOpset;
  add(r, "Gather", 1, top, make<Gather>());
  add(r, "GatherElements", 11, top, make<GatherElements>());
  add(r, "GatherND", 11, top, make<GatherND>());
  add(r, "ScatterElements", 11, top, make<ScatterElements>());
  add(r, "Scatter", 9, 10, make<ScatterElements>());
  add(r, "ScatterND", 11, top, make<ScatterND>());
  add(r, "OneHot", 9, top, make<OneHot>());
  add(r, "NonZero", 9, top, make<NonZero>());
  add(r, "Compress", 9, top, make<Compress>());
}

}  // namespace winml::runtime::kernels
