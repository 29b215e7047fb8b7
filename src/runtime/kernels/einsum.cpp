// Einsum by direct summation over every label (with "..." broadcasting,
// repeated labels for diagonals, and implicit output). Straightforward
// rather than fast: each output element sums over the contracted labels.
#include <algorithm>
#include <map>

#include "runtime/kernels/common.h"
#include "runtime/kernels/register.h"

namespace winml::runtime::kernels {

namespace {

struct Term {
  std::string labels;  // letters, with '.' for the ellipsis
  bool has_ellipsis = false;
};

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

class Einsum : public Kernel {
 public:
  explicit Einsum(const NodeContext& n) : equation_(n.attr_string("equation", "")) {
    if (equation_.empty()) n.fail("missing required attribute 'equation'");
  }

  void run(KernelContext& ctx) const override {
    std::string eq = equation_;
    std::string lhs = eq, rhs;
    bool explicit_out = false;
    if (auto arrow = eq.find("->"); arrow != std::string::npos) {
      lhs = eq.substr(0, arrow);
      rhs = eq.substr(arrow + 2);
      rhs.erase(std::remove(rhs.begin(), rhs.end(), ' '), rhs.end());
      explicit_out = true;
    }
    std::vector<std::string> terms = split(lhs, ',');
    int n = ctx.input_count();
    if (static_cast<int>(terms.size()) != n)
      throw InputError("equation has " + std::to_string(terms.size()) + " terms for " + std::to_string(n) + " inputs");
    DataType dt = ctx.input(0).dtype();

    // Label ids: letters, then ellipsis dims as ids 256+.
    std::map<int, std::int64_t> size;
    std::vector<std::vector<int>> axes(n);
    int ellipsis_rank = 0;
    for (int i = 0; i < n; ++i) {
      const Tensor& t = ctx.input(i);
      if (t.dtype() != dt) throw InputError("Einsum inputs differ in type");
      std::string term = terms[i];
      auto dots = term.find("...");
      int named = static_cast<int>(term.size()) - (dots == std::string::npos ? 0 : 3);
      int ell = dots == std::string::npos ? 0 : t.rank() - named;
      if (ell < 0 || (dots == std::string::npos && named != t.rank()))
        throw InputError("term '" + term + "' does not match input rank " + std::to_string(t.rank()));
      ellipsis_rank = std::max(ellipsis_rank, ell);
      int axis = 0;
      for (std::size_t c = 0; c < term.size(); ++c) {
        if (term[c] == '.') {
          for (int e = 0; e < ell; ++e) axes[i].push_back(256 + (ell - 1 - e));  // right-aligned ids
          c += 2;
          axis += ell;
          continue;
        }
        axes[i].push_back(static_cast<unsigned char>(term[c]));
        ++axis;
      }
      for (int a = 0; a < t.rank(); ++a) {
        int id = axes[i][a];
        std::int64_t d = t.dim(a);
        auto it = size.find(id);
        if (it == size.end() || it->second == 1) size[id] = d;
        else if (d != 1 && d != it->second) throw InputError("label dimensions differ in Einsum");
      }
    }
    std::vector<int> out_ids;
    if (explicit_out) {
      for (std::size_t c = 0; c < rhs.size(); ++c) {
        if (rhs[c] == '.') {
          for (int e = ellipsis_rank - 1; e >= 0; --e) out_ids.push_back(256 + e);
          c += 2;
        } else {
          out_ids.push_back(static_cast<unsigned char>(rhs[c]));
        }
      }
    } else {
      for (int e = ellipsis_rank - 1; e >= 0; --e) out_ids.push_back(256 + e);
      std::map<int, int> count;
      for (auto& a : axes)
        for (int id : a)
          if (id < 256) ++count[id];
      for (auto [id, c] : count)
        if (c == 1) out_ids.push_back(id);
    }
    std::vector<int> all = out_ids;
    for (auto& [id, s] : size)
      if (std::find(all.begin(), all.end(), id) == all.end()) all.push_back(id);
    std::size_t n_out = out_ids.size();
    Shape out_shape;
    for (int id : out_ids) {
      if (!size.count(id)) throw InputError("output label not found among the inputs");
      out_shape.push_back(size[id]);
    }
    // Per input, the stride of each label in `all` (0 when absent or broadcast).
    std::vector<std::vector<std::int64_t>> stride(n, std::vector<std::int64_t>(all.size(), 0));
    for (int i = 0; i < n; ++i) {
      auto st = strides_of(ctx.input(i).shape());
      for (std::size_t a = 0; a < axes[i].size(); ++a) {
        if (ctx.input(i).dim(static_cast<int>(a)) == 1) continue;
        auto pos = std::find(all.begin(), all.end(), axes[i][a]) - all.begin();
        stride[i][pos] += st[a];
      }
    }
    std::vector<std::int64_t> dims;
    for (int id : all) dims.push_back(size[id]);
    std::int64_t summed = 1;
    for (std::size_t a = n_out; a < all.size(); ++a) summed *= dims[a];

    dispatch_numeric(dt, [&]<typename T>() {
      using Acc = std::conditional_t<std::is_floating_point_v<T>, double, T>;
      T* py = ctx.allocate_output(0, dt, out_shape).template mutable_data<T>();
      std::int64_t total_out = shape_size(out_shape);
      std::vector<std::int64_t> idx(all.size(), 0);
      for (std::int64_t o = 0; o < total_out; ++o) {
        std::int64_t rest = o;
        for (std::size_t a = n_out; a-- > 0;) {
          idx[a] = rest % dims[a];
          rest /= dims[a];
        }
        Acc acc = Acc(0);
        for (std::size_t a = n_out; a < all.size(); ++a) idx[a] = 0;
        for (std::int64_t s = 0; s < summed; ++s) {
          Acc prod = Acc(1);
          for (int i = 0; i < n; ++i) {
            std::int64_t off = 0;
            for (std::size_t a = 0; a < all.size(); ++a) off += idx[a] * stride[i][a];
            prod = static_cast<Acc>(prod * static_cast<Acc>(ctx.input(i).data<T>()[off]));
          }
          acc = static_cast<Acc>(acc + prod);
          for (std::size_t a = all.size(); a-- > n_out;) {
            if (++idx[a] < dims[a]) break;
            idx[a] = 0;
          }
        }
        py[o] = static_cast<T>(acc);
      }
    });
  }

 private:
  std::string equation_;
};

}  // namespace

void register_einsum(KernelRegistry& r) { add(r, "Einsum", 12, kMaxOnnxOpset, make<Einsum>(), kFloatCompute); }

}  // namespace winml::runtime::kernels
