// Einsum by direct summation over every label (with "..." broadcasting,
// repeated labels for diagonals, and implicit output). Straightforward
// rather than fast: each output element sums over the contracted labels.
#include <algorithm>
#include <map>

#include "runtime/kernels/common.h"
#include "runtime/kernels/register.h"

namespace winml::runtime::kernels {

namespace {

// Label ids: a letter's own code; the ellipsis's dimensions 256 + their
// distance from the right (right-aligned across inputs).
constexpr int kEllipsisId = 256;

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      parts.push_back(cur);
      cur.clear();
    } else if (c != ' ') {
      cur += c;
    }
  }
  parts.push_back(cur);
  return parts;
}

// The equation as written: each input's term and the output's, if explicit.
struct Equation {
  std::vector<std::string> terms;  // letters, with "..." for the ellipsis
  bool explicit_output = false;
  std::string output;

  static Equation parse(const std::string& eq) {
    Equation e;
    std::string lhs = eq;
    if (auto arrow = eq.find("->"); arrow != std::string::npos) {
      lhs = eq.substr(0, arrow);
      e.output = eq.substr(arrow + 2);
      e.output.erase(std::remove(e.output.begin(), e.output.end(), ' '), e.output.end());
      e.explicit_output = true;
    }
    e.terms = split(lhs, ',');
    return e;
  }
};

// The equation bound to the inputs' shapes: each input's label per axis,
// each label's size, and the ellipsis's rank.
struct Binding {
  std::vector<std::vector<int>> axes;
  std::map<int, std::int64_t> size;
  int ellipsis_rank = 0;
};

// One term's label per axis of a rank-`rank` input.
std::vector<int> term_axes(const std::string& term, int rank, int& ellipsis) {
  const auto dots = term.find("...");
  const int named = static_cast<int>(term.size()) - (dots == std::string::npos ? 0 : 3);
  ellipsis = dots == std::string::npos ? 0 : rank - named;
  if (ellipsis < 0 || (dots == std::string::npos && named != rank))
    throw InputError("term '" + term + "' does not match input rank " + std::to_string(rank));
  std::vector<int> axes;
  for (std::size_t c = 0; c < term.size(); ++c) {
    if (term[c] == '.') {
      for (int e = 0; e < ellipsis; ++e) axes.push_back(kEllipsisId + (ellipsis - 1 - e));
      c += 2;
    } else {
      axes.push_back(static_cast<unsigned char>(term[c]));
    }
  }
  return axes;
}

Binding bind(const Equation& eq, KernelContext& ctx) {
  const int n = ctx.input_count();
  if (static_cast<int>(eq.terms.size()) != n)
    throw InputError("equation has " + std::to_string(eq.terms.size()) + " terms for " + std::to_string(n) + " inputs");
  Binding b;
  b.axes.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const Tensor& t = ctx.input(i);
    if (t.dtype() != ctx.input(0).dtype()) throw InputError("Einsum inputs differ in type");
    int ellipsis = 0;
    b.axes[i] = term_axes(eq.terms[i], t.rank(), ellipsis);
    b.ellipsis_rank = std::max(b.ellipsis_rank, ellipsis);
    for (int a = 0; a < t.rank(); ++a) {
      const int id = b.axes[i][a];
      const std::int64_t d = t.dim(a);
      auto it = b.size.find(id);
      if (it == b.size.end() || it->second == 1) b.size[id] = d;
      else if (d != 1 && d != it->second) throw InputError("label dimensions differ in Einsum");
    }
  }
  return b;
}

// The output's labels: as written, or (implicit) the ellipsis then every
// letter that appears once, in alphabetical order.
std::vector<int> output_labels(const Equation& eq, const Binding& b) {
  std::vector<int> out;
  if (eq.explicit_output) {
    for (std::size_t c = 0; c < eq.output.size(); ++c) {
      if (eq.output[c] == '.') {
        for (int e = b.ellipsis_rank - 1; e >= 0; --e) out.push_back(kEllipsisId + e);
        c += 2;
      } else {
        out.push_back(static_cast<unsigned char>(eq.output[c]));
      }
    }
    return out;
  }
  for (int e = b.ellipsis_rank - 1; e >= 0; --e) out.push_back(kEllipsisId + e);
  std::map<int, int> count;
  for (const auto& a : b.axes)
    for (int id : a)
      if (id < kEllipsisId) ++count[id];
  for (auto [id, c] : count)
    if (c == 1) out.push_back(id);
  return out;
}

// The summation's index space: the output's labels first, then the
// contracted ones; each input's stride along each (0 where absent or
// broadcast).
struct Loops {
  std::vector<std::int64_t> dims;
  std::size_t outputs = 0;
  std::vector<std::vector<std::int64_t>> stride;
};

Loops loops_of(const Binding& b, const std::vector<int>& out_ids, KernelContext& ctx) {
  std::vector<int> all = out_ids;
  for (const auto& [id, s] : b.size)
    if (std::find(all.begin(), all.end(), id) == all.end()) all.push_back(id);
  Loops l{.outputs = out_ids.size()};
  for (int id : all) l.dims.push_back(b.size.at(id));
  const int n = ctx.input_count();
  l.stride.assign(static_cast<std::size_t>(n), std::vector<std::int64_t>(all.size(), 0));
  for (int i = 0; i < n; ++i) {
    const auto st = strides_of(ctx.input(i).shape());
    for (std::size_t a = 0; a < b.axes[i].size(); ++a) {
      if (ctx.input(i).dim(static_cast<int>(a)) == 1) continue;
      const auto pos = std::find(all.begin(), all.end(), b.axes[i][a]) - all.begin();
      l.stride[i][pos] += st[a];
    }
  }
  return l;
}

// Each output element: the sum over the contracted labels of the inputs'
// product (in double for floating types).
template <typename T>
void sum_products(const Loops& l, KernelContext& ctx, T* py, std::int64_t total_out) {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, T>;
  const int n = ctx.input_count();
  const std::size_t all = l.dims.size();
  std::int64_t summed = 1;
  for (std::size_t a = l.outputs; a < all; ++a) summed *= l.dims[a];
  std::vector<std::int64_t> idx(all, 0);
  for (std::int64_t o = 0; o < total_out; ++o) {
    std::int64_t rest = o;
    for (std::size_t a = l.outputs; a-- > 0;) {
      idx[a] = rest % l.dims[a];
      rest /= l.dims[a];
    }
    Acc acc = Acc(0);
    for (std::size_t a = l.outputs; a < all; ++a) idx[a] = 0;
    for (std::int64_t s = 0; s < summed; ++s) {
      Acc prod = Acc(1);
      for (int i = 0; i < n; ++i) {
        std::int64_t off = 0;
        for (std::size_t a = 0; a < all; ++a) off += idx[a] * l.stride[i][a];
        prod = static_cast<Acc>(prod * static_cast<Acc>(ctx.input(i).data<T>()[off]));
      }
      acc = static_cast<Acc>(acc + prod);
      for (std::size_t a = all; a-- > l.outputs;) {
        if (++idx[a] < l.dims[a]) break;
        idx[a] = 0;
      }
    }
    py[o] = static_cast<T>(acc);
  }
}

class Einsum : public Kernel {
 public:
  // The equation is parsed once, here; run binds it to the inputs' shapes.
  explicit Einsum(const NodeContext& n) {
    const std::string eq = n.attr_string("equation", "");
    if (eq.empty()) n.fail("missing required attribute 'equation'");
    equation_ = Equation::parse(eq);
  }

  void run(KernelContext& ctx) const override {
    const Binding b = bind(equation_, ctx);
    const std::vector<int> out_ids = output_labels(equation_, b);
    Shape out_shape;
    for (int id : out_ids) {
      if (!b.size.count(id)) throw InputError("output label not found among the inputs");
      out_shape.push_back(b.size.at(id));
    }
    const Loops l = loops_of(b, out_ids, ctx);
    const DataType dt = ctx.input(0).dtype();
    dispatch_numeric(dt, [&]<typename T>() {
      T* py = ctx.allocate_output(0, dt, out_shape).template mutable_data<T>();
      sum_products<T>(l, ctx, py, shape_size(out_shape));
    });
  }

 private:
  Equation equation_;
};

}  // namespace

void register_einsum(KernelRegistry& r) { add(r, "Einsum", 12, kMaxOnnxOpset, make<Einsum>(), kFloatCompute); }

}  // namespace winml::runtime::kernels
