// NonMaxSuppression and Unique.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <numeric>

#include "runtime/kernels/common.h"
#include "runtime/kernels/register.h"

namespace winml::runtime::kernels {

namespace {

class NonMaxSuppression : public Kernel {
 public:
  explicit NonMaxSuppression(const NodeContext& n) : center_(n.attr_int("center_point_box", 0) != 0) {}
  void run(KernelContext& ctx) const override {
    const Tensor& boxes = ctx.input(0);
    const Tensor& scores = ctx.input(1);
    if (boxes.dtype() != onnx::TensorProto::FLOAT || scores.dtype() != onnx::TensorProto::FLOAT)
      unsupported_type(boxes.dtype(), "float32");
    std::int64_t max_out = ctx.has_input(2) && ctx.input(2).size() ? to_int64s(ctx.input(2))[0] : 0;
    float iou_threshold = ctx.has_input(3) && ctx.input(3).size() ? ctx.input(3).data<float>()[0] : 0.0f;
    bool use_score = ctx.has_input(4) && ctx.input(4).size();
    float score_threshold = use_score ? ctx.input(4).data<float>()[0] : 0.0f;
    std::int64_t B = boxes.dim(0), S = boxes.dim(1), C = scores.dim(1);
    if (scores.dim(0) != B || scores.dim(2) != S || boxes.dim(2) != 4)
      throw InputError("boxes and scores do not match");
    std::vector<std::int64_t> selected;
    for (std::int64_t b = 0; b < B; ++b) {
      const float* bx = boxes.data<float>() + b * S * 4;
      for (std::int64_t c = 0; c < C; ++c) {
        const float* sc = scores.data<float>() + (b * C + c) * S;
        std::vector<std::int64_t> order;
        for (std::int64_t i = 0; i < S; ++i)
          if (!use_score || sc[i] > score_threshold) order.push_back(i);
        std::stable_sort(order.begin(), order.end(), [&](std::int64_t x, std::int64_t y) { return sc[x] > sc[y]; });
        std::vector<std::int64_t> kept;
        for (std::int64_t i : order) {
          if (static_cast<std::int64_t>(kept.size()) >= max_out) break;
          bool keep = true;
          for (std::int64_t k : kept)
            if (iou(bx + i * 4, bx + k * 4) > iou_threshold) {
              keep = false;
              break;
            }
          if (keep) kept.push_back(i);
        }
        for (std::int64_t k : kept) selected.insert(selected.end(), {b, c, k});
      }
    }
    auto count = static_cast<std::int64_t>(selected.size() / 3);
    Tensor& y = ctx.allocate_output(0, onnx::TensorProto::INT64, {count, 3});
    if (!selected.empty()) std::memcpy(y.mutable_raw(), selected.data(), selected.size() * sizeof(std::int64_t));
  }

 private:
  // Corners as (y1, x1, y2, x2), in either order, or (xc, yc, w, h).
  void corners(const float* b, float& y1, float& x1, float& y2, float& x2) const {
    if (center_) {
      x1 = b[0] - b[2] / 2;
      x2 = b[0] + b[2] / 2;
      y1 = b[1] - b[3] / 2;
      y2 = b[1] + b[3] / 2;
    } else {
      y1 = std::min(b[0], b[2]);
      y2 = std::max(b[0], b[2]);
      x1 = std::min(b[1], b[3]);
      x2 = std::max(b[1], b[3]);
    }
  }
  float iou(const float* a, const float* b) const {
    float ay1, ax1, ay2, ax2, by1, bx1, by2, bx2;
    corners(a, ay1, ax1, ay2, ax2);
    corners(b, by1, bx1, by2, bx2);
    float ih = std::max(0.0f, std::min(ay2, by2) - std::max(ay1, by1));
    float iw = std::max(0.0f, std::min(ax2, bx2) - std::max(ax1, bx1));
    float inter = ih * iw;
    float uni = (ay2 - ay1) * (ax2 - ax1) + (by2 - by1) * (bx2 - bx1) - inter;
    return uni <= 0 ? 0.0f : inter / uni;
  }

  bool center_;
};

// Unique elements (or slices along `axis`), sorted or in order of first appearance.
class Unique : public Kernel {
 public:
  explicit Unique(const NodeContext& n)
      : sorted_(n.attr_int("sorted", 1) != 0), has_axis_(n.has_attr("axis")), axis_(n.attr_int("axis", 0)) {}
  void run(KernelContext& ctx) const override {
    const Tensor& x0 = ctx.input(0);
    Tensor x = has_axis_ ? x0 : x0.reshaped({x0.size()});
    int axis = has_axis_ ? normalize_axis(axis_, x.rank()) : 0;
    std::int64_t len = x.dim(axis), outer = dims_product(x.shape(), 0, axis),
                 inner = dims_product(x.shape(), axis + 1, x.rank());
    dispatch_all(x.dtype(), [&]<typename T>() {
      const T* p = x.data<T>();
      auto slice = [&](std::int64_t i) {
        std::vector<T> v;
        for (std::int64_t o = 0; o < outer; ++o)
          for (std::int64_t k = 0; k < inner; ++k) v.push_back(p[(o * len + i) * inner + k]);
        return v;
      };
      std::vector<std::vector<T>> uniques;
      std::vector<std::int64_t> first, inverse(static_cast<std::size_t>(len)), counts;
      // Element-wise lexicographic order (spelled out: GCC 12 misreads the
      // memcmp behind std::vector<unsigned char>'s operator<).
      auto less = [](const std::vector<T>& a, const std::vector<T>& b) {
        for (std::size_t k = 0; k < a.size() && k < b.size(); ++k)
          if (a[k] != b[k]) return a[k] < b[k];
        return a.size() < b.size();
      };
      std::map<std::vector<T>, std::int64_t, decltype(less)> index(less);
      for (std::int64_t i = 0; i < len; ++i) {
        auto s = slice(i);
        auto it = index.find(s);
        if (it == index.end()) {
          it = index.emplace(s, static_cast<std::int64_t>(uniques.size())).first;
          uniques.push_back(s);
          first.push_back(i);
          counts.push_back(0);
        }
        inverse[i] = it->second;
        ++counts[it->second];
      }
      std::vector<std::int64_t> order(uniques.size());
      std::iota(order.begin(), order.end(), 0);
      if (sorted_)
        std::sort(order.begin(), order.end(),
                  [&](std::int64_t a, std::int64_t b) { return less(uniques[a], uniques[b]); });
      std::vector<std::int64_t> rank(order.size());
      for (std::size_t r = 0; r < order.size(); ++r) rank[order[r]] = static_cast<std::int64_t>(r);
      auto u = static_cast<std::int64_t>(order.size());
      Shape ys = x.shape();
      ys[axis] = u;
      Tensor& y = ctx.allocate_output(0, x.dtype(), ys);
      for (std::int64_t r = 0; r < u; ++r) {
        const auto& s = uniques[order[r]];
        for (std::int64_t o = 0; o < outer; ++o)
          for (std::int64_t k = 0; k < inner; ++k) y.mutable_data<T>()[(o * u + r) * inner + k] = s[o * inner + k];
      }
      auto put = [&](int out, const std::vector<std::int64_t>& v) {
        if (ctx.output_count() <= out || !ctx.output_wanted(out)) return;
        Tensor& t = ctx.allocate_output(out, onnx::TensorProto::INT64, {static_cast<std::int64_t>(v.size())});
        if (!v.empty()) std::memcpy(t.mutable_raw(), v.data(), v.size() * sizeof(std::int64_t));
      };
      std::vector<std::int64_t> idx(static_cast<std::size_t>(u)), cnt(static_cast<std::size_t>(u)), inv(inverse.size());
      for (std::int64_t r = 0; r < u; ++r) {
        idx[r] = first[order[r]];
        cnt[r] = counts[order[r]];
      }
      for (std::size_t i = 0; i < inverse.size(); ++i) inv[i] = rank[inverse[i]];
      put(1, idx);
      put(2, inv);
      put(3, cnt);
    });
  }

 private:
  bool sorted_, has_axis_;
  std::int64_t axis_;
};

}  // namespace

void register_detection(KernelRegistry& r) {
  add(r, "NonMaxSuppression", 10, kMaxOnnxOpset, make<NonMaxSuppression>());
  add(r, "Unique", 11, kMaxOnnxOpset, make<Unique>());
}

}  // namespace winml::runtime::kernels
