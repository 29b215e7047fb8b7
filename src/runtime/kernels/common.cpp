#include "runtime/kernels/common.h"

namespace winml::runtime::kernels {

int normalize_axis(std::int64_t axis, int rank) {
  if (axis < -rank || axis >= rank && !(rank == 0 && axis == 0))
    throw InputError("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

std::vector<std::int64_t> to_int64s(const Tensor& t) {
  std::vector<std::int64_t> r(static_cast<std::size_t>(t.size()));
  if (t.dtype() == onnx::TensorProto::INT64) {
    for (std::size_t i = 0; i < r.size(); ++i) r[i] = t.data<std::int64_t>()[i];
  } else if (t.dtype() == onnx::TensorProto::INT32) {
    for (std::size_t i = 0; i < r.size(); ++i) r[i] = t.data<std::int32_t>()[i];
  } else {
    throw InputError("expected an int64 or int32 tensor, got " + dtype_name(t.dtype()));
  }
  return r;
}

double scalar_value(const Tensor& t) {
  if (t.size() != 1) throw InputError("expected a scalar, got shape " + shape_string(t.shape()));
  return dispatch_all(t.dtype(), [&]<typename T>() { return static_cast<double>(t.data<T>()[0]); });
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  std::size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    std::int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    std::int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      throw InputError("shapes " + shape_string(a) + " and " + shape_string(b) + " cannot be broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

std::vector<std::int64_t> strides_of(const Shape& s) {
  std::vector<std::int64_t> st(s.size(), 1);
  for (int i = static_cast<int>(s.size()) - 2; i >= 0; --i) st[i] = st[i + 1] * s[i + 1];
  return st;
}

std::int64_t dims_product(const Shape& s, int from, int to) {
  std::int64_t n = 1;
  for (int i = from; i < to; ++i) n *= s[static_cast<std::size_t>(i)];
  return n;
}

void parallel_ranges(ThreadPool& pool, std::int64_t n, std::int64_t grain,
                     const std::function<void(std::int64_t, std::int64_t)>& fn) {
  if (n <= 0) return;
  if (grain < 1) grain = 1;
  std::int64_t tiles = (n + grain - 1) / grain;
  if (tiles == 1) {
    fn(0, n);
    return;
  }
  pool.parallel_for(tiles, [&](std::int64_t t) { fn(t * grain, std::min(n, (t + 1) * grain)); });
}

}  // namespace winml::runtime::kernels
