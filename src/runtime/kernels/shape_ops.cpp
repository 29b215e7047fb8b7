// Ops that change only shapes or produce constants: Reshape, Flatten,
// Squeeze, Unsqueeze, Identity, Dropout (inference), Shape, Size, Constant,
// ConstantOfShape, Range, Expand, EyeLike.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include "runtime/kernels/broadcast.h"
#include "runtime/kernels/common.h"
#include "runtime/kernels/register.h"

namespace winml::runtime::kernels {

namespace {

class Reshape : public Kernel {
 public:
  explicit Reshape(const NodeContext& n) : allow_zero_(n.attr_int("allowzero", 0) != 0) {
    if (n.opset() < 5) shape_attr_ = n.attr_ints("shape");
    legacy_ = n.opset() < 5;
  }
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    std::vector<std::int64_t> spec = legacy_ ? shape_attr_ : to_int64s(ctx.input(1));
    Shape out(spec.size());
    int infer = -1;
    std::int64_t known = 1;
    for (std::size_t i = 0; i < spec.size(); ++i) {
      std::int64_t v = spec[i];
      if (v == 0 && !allow_zero_) {
        if (i >= x.shape().size()) throw InputError("0 in the target shape refers past the input's rank");
        v = x.shape()[i];
      }
      if (v == -1) {
        if (infer >= 0) throw InputError("more than one -1 in the target shape");
        infer = static_cast<int>(i);
        continue;
      }
      if (v < 0) throw InputError("invalid dimension " + std::to_string(v) + " in the target shape");
      out[i] = v;
      known *= v;
    }
    if (infer >= 0) {
      if (known == 0 || x.size() % known != 0)
        throw InputError("cannot infer the -1 dimension reshaping " + shape_string(x.shape()) + " to " +
                         shape_string(Shape(spec.begin(), spec.end())));
      out[static_cast<std::size_t>(infer)] = x.size() / known;
    }
    if (shape_size(out) != x.size())
      throw InputError("cannot reshape " + shape_string(x.shape()) + " to " + shape_string(out));
    ctx.set_output(0, x.reshaped(out));
  }

 private:
  bool allow_zero_;
  bool legacy_ = false;
  std::vector<std::int64_t> shape_attr_;
};

class Flatten : public Kernel {
 public:
  explicit Flatten(const NodeContext& n) : axis_(n.attr_int("axis", 1)) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    int axis = axis_ == x.rank() ? x.rank() : normalize_axis(axis_, x.rank());
    ctx.set_output(0, x.reshaped({dims_product(x.shape(), 0, axis), dims_product(x.shape(), axis, x.rank())}));
  }

 private:
  std::int64_t axis_;
};

// Squeeze and Unsqueeze: axes from the attribute (opset < 13) or input 1.
class Squeeze : public Kernel {
 public:
  explicit Squeeze(const NodeContext& n) : from_attr_(n.opset() < 13), axes_(n.attr_ints("axes")) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    std::vector<std::int64_t> axes =
        from_attr_ ? axes_ : (ctx.has_input(1) ? to_int64s(ctx.input(1)) : std::vector<std::int64_t>{});
    std::set<int> drop;
    for (auto a : axes) {
      int ax = normalize_axis(a, x.rank());
      if (x.dim(ax) != 1)
        throw InputError("cannot squeeze axis " + std::to_string(a) + " of size " + std::to_string(x.dim(ax)));
      drop.insert(ax);
    }
    Shape out;
    for (int i = 0; i < x.rank(); ++i)
      if (axes.empty() ? x.dim(i) != 1 : !drop.count(i)) out.push_back(x.dim(i));
    ctx.set_output(0, x.reshaped(out));
  }

 private:
  bool from_attr_;
  std::vector<std::int64_t> axes_;
};

class Unsqueeze : public Kernel {
 public:
  explicit Unsqueeze(const NodeContext& n) : from_attr_(n.opset() < 13), axes_(n.attr_ints("axes")) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    std::vector<std::int64_t> axes = from_attr_ ? axes_ : to_int64s(ctx.input(1));
    int rank = x.rank() + static_cast<int>(axes.size());
    std::set<int> add;
    for (auto a : axes)
      if (!add.insert(normalize_axis(a, rank)).second) throw InputError("repeated axis in Unsqueeze");
    Shape out;
    int src = 0;
    for (int i = 0; i < rank; ++i) out.push_back(add.count(i) ? 1 : x.dim(src++));
    ctx.set_output(0, x.reshaped(out));
  }

 private:
  bool from_attr_;
  std::vector<std::int64_t> axes_;
};

class Identity : public Kernel {
 public:
  explicit Identity(const NodeContext&) {}
  void run(KernelContext& ctx) const override { ctx.set_output(0, ctx.input(0)); }
};

class Dropout : public Kernel {
 public:
  explicit Dropout(const NodeContext& n) : opset_(n.opset()) {
    if (opset_ < 7 && n.attr_int("is_test", 0) == 0) n.unsupported("Dropout in training mode (is_test=0)");
    ratio_attr_ = n.attr_float("ratio", 0.5f);
  }
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (opset_ >= 12 && ctx.has_input(2) && scalar_value(ctx.input(2)) != 0.0) {
      double ratio = ctx.has_input(1) ? scalar_value(ctx.input(1)) : 0.5;
      if (ratio != 0.0) throw UnsupportedError("Dropout in training mode (random masks) is not supported");
    }
    ctx.set_output(0, x);
    if (ctx.output_count() > 1 && ctx.output_wanted(1)) {
      Tensor& mask = ctx.allocate_output(1, onnx::TensorProto::BOOL, x.shape());
      std::memset(mask.mutable_raw(), 1, mask.bytes());
    }
  }

 private:
  std::int64_t opset_;
  float ratio_attr_;
};

class ShapeOp : public Kernel {
 public:
  explicit ShapeOp(const NodeContext& n) : start_(n.attr_int("start", 0)), end_(n.attr_int("end", INT64_MAX)) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    std::int64_t r = x.rank();
    auto clamp = [r](std::int64_t v) { return std::clamp<std::int64_t>(v < 0 ? v + r : v, 0, r); };
    std::int64_t s = clamp(start_), e = clamp(end_);
    std::int64_t n = std::max<std::int64_t>(0, e - s);
    Tensor& y = ctx.allocate_output(0, onnx::TensorProto::INT64, {n});
    for (std::int64_t i = 0; i < n; ++i) y.mutable_data<std::int64_t>()[i] = x.dim(static_cast<int>(s + i));
  }

 private:
  std::int64_t start_, end_;
};

class Size : public Kernel {
 public:
  explicit Size(const NodeContext&) {}
  void run(KernelContext& ctx) const override {
    Tensor& y = ctx.allocate_output(0, onnx::TensorProto::INT64, {});
    y.mutable_data<std::int64_t>()[0] = ctx.input(0).size();
  }
};

class Constant : public Kernel {
 public:
  explicit Constant(const NodeContext& n) {
    if (n.has_attr("value")) {
      value_ = n.attr_tensor("value");
    } else if (n.has_attr("value_float")) {
      value_ = Tensor::from_vector<float>(onnx::TensorProto::FLOAT, {}, {n.attr_float("value_float", 0)});
    } else if (n.has_attr("value_floats")) {
      auto v = n.attr_floats("value_floats");
      value_ = Tensor::from_vector<float>(onnx::TensorProto::FLOAT, {static_cast<std::int64_t>(v.size())}, v);
    } else if (n.has_attr("value_int")) {
      value_ = Tensor::from_vector<std::int64_t>(onnx::TensorProto::INT64, {}, {n.attr_int("value_int", 0)});
    } else if (n.has_attr("value_ints")) {
      auto v = n.attr_ints("value_ints");
      value_ = Tensor::from_vector<std::int64_t>(onnx::TensorProto::INT64, {static_cast<std::int64_t>(v.size())}, v);
    } else if (n.has_attr("sparse_value") || n.has_attr("value_string") || n.has_attr("value_strings")) {
      n.unsupported("string and sparse constants are not supported");
    } else {
      n.fail("Constant has no value attribute");
    }
  }
  void run(KernelContext& ctx) const override { ctx.set_output(0, value_); }

 private:
  Tensor value_;
};

class ConstantOfShape : public Kernel {
 public:
  explicit ConstantOfShape(const NodeContext& n) : value_(n.attr_tensor("value")) {
    if (!value_.defined()) value_ = Tensor::from_vector<float>(onnx::TensorProto::FLOAT, {1}, {0.0f});
    if (value_.size() != 1) n.fail("value must have exactly one element");
  }
  void run(KernelContext& ctx) const override {
    auto dims = to_int64s(ctx.input(0));
    Tensor& y = ctx.allocate_output(0, value_.dtype(), Shape(dims.begin(), dims.end()));
    std::size_t es = dtype_size(value_.dtype());
    std::byte* out = y.mutable_raw();
    for (std::int64_t i = 0; i < y.size(); ++i) std::memcpy(out + i * es, value_.raw(), es);
  }

 private:
  Tensor value_;
};

class Range : public Kernel {
 public:
  explicit Range(const NodeContext&) {}
  void run(KernelContext& ctx) const override {
    const Tensor& start = ctx.input(0);
    dispatch_numeric(start.dtype(), [&]<typename T>() {
      T s = start.data<T>()[0], limit = ctx.input(1).data<T>()[0], delta = ctx.input(2).data<T>()[0];
      if (delta == T(0)) throw InputError("Range delta is zero");
      double count = std::ceil((static_cast<double>(limit) - static_cast<double>(s)) / static_cast<double>(delta));
      std::int64_t n = std::max<std::int64_t>(0, static_cast<std::int64_t>(count));
      Tensor& y = ctx.allocate_output(0, start.dtype(), {n});
      T* out = y.mutable_data<T>();
      for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(s + static_cast<T>(i) * delta);
    });
  }
};

class Expand : public Kernel {
 public:
  explicit Expand(const NodeContext&) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    auto dims = to_int64s(ctx.input(1));
    Shape shape = broadcast_shapes(x.shape(), Shape(dims.begin(), dims.end()));
    Broadcast<1> bc(shape, {&x.shape()});
    dispatch_by_size(x.dtype(), [&]<typename T>() {
      Tensor& y = ctx.allocate_output(0, x.dtype(), shape);
      const T* px = x.data<T>();
      T* py = y.mutable_data<T>();
      parallel_ranges(ctx.pool(), y.size(), kElementwiseGrain, [&](std::int64_t b, std::int64_t e) {
        bc.for_runs(b, e,
                    [&](std::int64_t o, const std::array<std::int64_t, 1>& off,
                        const std::array<std::int64_t, 1>& inner, std::int64_t len) {
                      if (inner[0]) std::memcpy(py + o, px + off[0], sizeof(T) * static_cast<std::size_t>(len));
                      else std::fill(py + o, py + o + len, px[off[0]]);
                    });
      });
    });
  }
};

class EyeLike : public Kernel {
 public:
  explicit EyeLike(const NodeContext& n)
      : k_(n.attr_int("k", 0)), dtype_(static_cast<DataType>(n.attr_int("dtype", 0))) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() != 2) throw InputError("EyeLike takes a 2-D input");
    DataType dt = dtype_ ? dtype_ : x.dtype();
    Tensor& y = ctx.allocate_output(0, dt, x.shape());
    std::memset(y.mutable_raw(), 0, y.bytes());
    dispatch_all(dt, [&]<typename T>() {
      T* py = y.mutable_data<T>();
      for (std::int64_t i = 0; i < x.dim(0); ++i) {
        std::int64_t j = i + k_;
        if (j >= 0 && j < x.dim(1)) py[i * x.dim(1) + j] = T(1);
      }
    });
  }

 private:
  std::int64_t k_;
  DataType dtype_;
};

}  // namespace

void register_shape_ops(KernelRegistry& r) {
  const auto top = kMaxOnnxOpset;
  add(r, "Reshape", 1, top, make<Reshape>(), kAlias);
  add(r, "Flatten", 1, top, make<Flatten>(), kAlias);
  add(r, "Squeeze", 1, top, make<Squeeze>(), kAlias);
  add(r, "Unsqueeze", 1, top, make<Unsqueeze>(), kAlias);
  add(r, "Identity", 1, top, make<Identity>(), kAlias);
  add(r, "Dropout", 1, top, make<Dropout>(), kAlias);
  add(r, "Shape", 1, top, make<ShapeOp>());
  add(r, "Size", 1, top, make<Size>());
  add(r, "Constant", 1, top, make<Constant>());
  add(r, "ConstantOfShape", 9, top, make<ConstantOfShape>());
  add(r, "Range", 11, top, make<Range>());
  add(r, "Expand", 8, top, make<Expand>());
  add(r, "EyeLike", 9, top, make<EyeLike>());
}

}  // namespace winml::runtime::kernels
