#include "quant/nbits_quant.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "base/error.h"
#include "base/progress.h"
#include "model/epcontext.h"
#include "model/node_util.h"
#include "model/spill_file.h"
#include "model/tensor_data.h"
#include "model/tensor_values.h"
#include "model/walk.h"
#include "quant/graph_edit.h"
#include "quant/graph_info.h"
#include "quant/qparams.h"

namespace winml::quant {

namespace {

// The integer range codes are rounded into before the offset: symmetric
// [-(2^(b-1) - 1), 2^(b-1) - 1] around an implied 2^(b-1); asymmetric
// [0, 2^b - 1] with a zero point.
QRange nbits_range(const NBitsOptions& o) {
  const std::int32_t half = 1 << (o.bits - 1);
  return o.symmetric ? QRange{-(half - 1), half - 1} : QRange{0, 2 * half - 1};
}

void put_code(std::uint8_t* row, std::int64_t t, std::int64_t bits, std::uint32_t code) {
  const std::int64_t bit = t * bits;
  row[bit / 8] = static_cast<std::uint8_t>(row[bit / 8] | (code << (bit % 8)));
}

}  // namespace

NBitsWeight quantize_nbits_weight(const float* w, std::int64_t k, std::int64_t n, bool columns_first,
                                  const NBitsOptions& o) {
  const std::int64_t blocks = (k + o.block_size - 1) / o.block_size, blob = o.block_size * o.bits / 8;
  const std::int64_t zero_row = (blocks * o.bits + 7) / 8;
  const QRange range = nbits_range(o);
  const std::uint32_t offset = o.symmetric ? 1u << (o.bits - 1) : 0u;
  NBitsWeight out;
  out.codes.assign(static_cast<std::size_t>(n * blocks * blob), 0);
  out.scales.resize(static_cast<std::size_t>(n * blocks));
  if (!o.symmetric) out.zeros.assign(static_cast<std::size_t>(n * zero_row), 0);
  std::vector<QParams> params(static_cast<std::size_t>(n));
  std::vector<float> lo(static_cast<std::size_t>(n)), hi(static_cast<std::size_t>(n));
  // Block by block along K, every column at once: a row-major [K, N] weight
  // is read row by row (a column at a time would touch a page per element).
  for (std::int64_t blk = 0; blk < blocks; ++blk) {
    const std::int64_t k0 = blk * o.block_size, k1 = std::min(k, k0 + o.block_size);
    auto value = [&](std::int64_t kk, std::int64_t j) { return columns_first ? w[j * k + kk] : w[kk * n + j]; };
    std::fill(lo.begin(), lo.end(), 0.0f);  // (compute_qparams widens to 0 anyway)
    std::fill(hi.begin(), hi.end(), 0.0f);
    auto range_of = [&](std::int64_t kk, std::int64_t j) {
      const float v = value(kk, j);
      if (std::isnan(v)) return;
      lo[static_cast<std::size_t>(j)] = std::min(lo[static_cast<std::size_t>(j)], v);
      hi[static_cast<std::size_t>(j)] = std::max(hi[static_cast<std::size_t>(j)], v);
    };
    if (columns_first) {
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t kk = k0; kk < k1; ++kk) range_of(kk, j);
    } else {
      for (std::int64_t kk = k0; kk < k1; ++kk)
        for (std::int64_t j = 0; j < n; ++j) range_of(kk, j);
    }
    for (std::int64_t j = 0; j < n; ++j) {
      QParams& p = params[static_cast<std::size_t>(j)];
      p = compute_qparams(lo[static_cast<std::size_t>(j)], hi[static_cast<std::size_t>(j)], range, o.symmetric);
      out.scales[static_cast<std::size_t>(j * blocks + blk)] = p.scale;
      if (!o.symmetric)
        put_code(out.zeros.data() + j * zero_row, blk, o.bits, static_cast<std::uint32_t>(p.zero_point));
    }
    auto encode = [&](std::int64_t kk, std::int64_t j) {
      const std::uint32_t code =
          static_cast<std::uint32_t>(quantize_value(value(kk, j), params[static_cast<std::size_t>(j)], range)) +
          offset;
      put_code(out.codes.data() + (j * blocks + blk) * blob, kk - k0, o.bits, code);
    };
    if (columns_first) {
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t kk = k0; kk < k1; ++kk) encode(kk, j);
    } else {
      for (std::int64_t kk = k0; kk < k1; ++kk)
        for (std::int64_t j = 0; j < n; ++j) encode(kk, j);
    }
  }
  return out;
}

namespace {

class NBitsRewriter {
 public:
  NBitsRewriter(model::Model& m, const NBitsOptions& o) : m_(m), g_(*m.proto.mutable_graph()), o_(o), names_(g_) {
    for (const auto& t : g_.initializer()) initializers_[t.name()] = &t;
    for (int i = 0; i < g_.node_size(); ++i)
      for (const auto& out : g_.node(i).output()) producer_[out] = i;
    for (const auto& out : g_.output()) graph_outputs_.insert(out.name());
  }

  NBitsResult run() {
    std::vector<onnx::NodeProto> nodes;
    std::set<int> dropped;
    std::uint64_t matmuls = 0, seen = 0;
    for (const auto& n : g_.node()) matmuls += model::is_op(n, "MatMul");
    for (int i = 0; i < g_.node_size(); ++i) {
      const onnx::NodeProto& n = g_.node(i);
      if (!model::is_op(n, "MatMul")) continue;
      progress::report("weights", seen++, matmuls, "MatMuls");
      std::string why;
      if (!rewrite(i, why, dropped)) {
        ++result_.skipped;
        result_.skip_reasons.push_back((n.name().empty() ? n.output(0) : n.name()) + ": " + why);
      }
    }
    progress::report("weights", matmuls, matmuls, "MatMuls");
    for (int i = 0; i < g_.node_size(); ++i) {
      if (dropped.count(i)) continue;
      auto r = replacements_.find(i);
      nodes.push_back(r == replacements_.end() ? g_.node(i) : r->second);
    }
    g_.clear_node();
    for (auto& n : nodes) *g_.add_node() = std::move(n);
    for (auto& t : new_initializers_) *g_.add_initializer() = std::move(t);
    remove_unused_initializers(g_, replaced_);
    model::for_each_graph(g_, [&](const onnx::GraphProto& sub, int depth) {
      if (depth == 0) return;
      for (const auto& n : sub.node())
        if (model::is_op(n, "MatMul")) {
          ++result_.skipped;
          result_.skip_reasons.push_back((n.name().empty() ? n.output(0) : n.name()) +
                                         ": inside a control-flow body (bodies stay float)");
        }
    });
    if (result_.quantized) model::ensure_opset(m_.proto, model::kMicrosoftDomain, 1);
    return result_;
  }

 private:
  const onnx::TensorProto* float_matrix(const std::string& name) const {
    auto it = initializers_.find(name);
    if (it == initializers_.end()) return nullptr;
    const onnx::TensorProto* t = it->second;
    return t->data_type() == onnx::TensorProto::FLOAT && t->dims_size() == 2 ? t : nullptr;
  }

  std::size_t readers(const std::string& value) const {
    return count_consumers(g_, value) + (graph_outputs_.count(value) ? 1 : 0);
  }

  // The Add right after `value` (its only reader) adding a constant [n]: its index and bias, or -1.
  std::pair<int, std::string> following_bias(const std::string& value, std::int64_t n) const {
    if (readers(value) != 1) return {-1, ""};
    for (int i = 0; i < g_.node_size(); ++i) {
      const auto& add = g_.node(i);
      if (!model::is_op(add, "Add") || add.input_size() != 2) continue;
      const int k = add.input(0) == value ? 1 : add.input(1) == value ? 0 : -1;
      if (k < 0) continue;
      auto it = initializers_.find(add.input(k));
      if (it == initializers_.end()) return {-1, ""};
      const onnx::TensorProto* b = it->second;
      if (b->data_type() != onnx::TensorProto::FLOAT || b->dims_size() != 1 || b->dims(0) != n) return {-1, ""};
      return {i, b->name()};
    }
    return {-1, ""};
  }

  bool rewrite(int i, std::string& why, std::set<int>& dropped) {
    const onnx::NodeProto& n = g_.node(i);
    if (o_.nodes_to_exclude.count(n.name())) return why = "in nodes_to_exclude", false;
    if (n.input_size() != 2 || n.output_size() != 1) return why = "not a two-input MatMul", false;
    const std::string& b = n.input(1);
    const onnx::TensorProto* weight = float_matrix(b);
    bool columns_first = false;
    int transpose = -1;
    if (!weight) {
      // An LM head tied to the embedding: MatMul(x, Transpose(E)).
      auto p = producer_.find(b);
      if (p != producer_.end()) {
        const onnx::NodeProto& t = g_.node(p->second);
        const auto perm = model::attr_ints(t, "perm");
        if (model::is_op(t, "Transpose") && t.input_size() == 1 &&
            (!perm || *perm == std::vector<std::int64_t>{1, 0}) && float_matrix(t.input(0))) {
          weight = float_matrix(t.input(0));
          columns_first = true;
          transpose = p->second;
        }
      }
    }
    if (!weight) return why = "B is not a float constant matrix", false;
    const std::int64_t k = columns_first ? weight->dims(1) : weight->dims(0);
    const std::int64_t cols = columns_first ? weight->dims(0) : weight->dims(1);
    if (k < 1 || cols < 1) return why = "B is empty", false;

    const std::string key = weight->name() + (columns_first ? ":transposed" : "");
    auto done = quantized_.find(key);
    if (done == quantized_.end()) done = quantized_.emplace(key, quantize(*weight, k, cols, columns_first)).first;
    if (columns_first && readers(b) == 1) {
      dropped.insert(transpose);
      if (std::find(result_.tied.begin(), result_.tied.end(), weight->name()) == result_.tied.end())
        result_.tied.push_back(weight->name());
    }
    replaced_.insert(weight->name());

    std::vector<std::string> inputs = {n.input(0), done->second.codes, done->second.scales};
    inputs.push_back(done->second.zeros);  // "" when symmetric
    std::string output = n.output(0);
    if (auto [add, bias] = following_bias(output, cols); add >= 0) {
      inputs.push_back("");  // g_idx
      inputs.push_back(bias);
      output = g_.node(add).output(0);
      dropped.insert(add);
      ++result_.biases;
    }
    while (!inputs.empty() && inputs.back().empty()) inputs.pop_back();
    onnx::NodeProto q = model::make_node("MatMulNBits", inputs, {output},
                                         names_.unique((n.name().empty() ? "MatMul" : n.name()) + "_NBits"),
                                         model::kMicrosoftDomain);
    model::set_attr_int(q, "K", k);
    model::set_attr_int(q, "N", cols);
    model::set_attr_int(q, "bits", o_.bits);
    model::set_attr_int(q, "block_size", o_.block_size);
    if (o_.accuracy_level) model::set_attr_int(q, "accuracy_level", o_.accuracy_level);
    replacements_[i] = std::move(q);
    ++result_.quantized;
    return true;
  }

  struct Names {
    std::string codes, scales, zeros;
  };

  Names quantize(const onnx::TensorProto& weight, std::int64_t k, std::int64_t n, bool columns_first) {
    const NBitsWeight q = [&] {
      const std::vector<float> w = model::float32_values(m_, weight);
      model::release_tensor_pages(m_, weight);  // read once: the mapping need not keep it
      return quantize_nbits_weight(w.data(), k, n, columns_first, o_);
    }();
    const std::int64_t blocks = (k + o_.block_size - 1) / o_.block_size;
    const std::string base = weight.name() + (columns_first ? "_transposed" : "");
    Names names{names_.unique(base + "_Q" + std::to_string(o_.bits)), names_.unique(base + "_scales"), ""};
    new_initializers_.push_back(model::make_tensor(names.codes, onnx::TensorProto::UINT8,
                                                   {n, blocks, o_.block_size * o_.bits / 8},
                                                   std::as_bytes(std::span(q.codes))));
    model::spill_if_large(m_.spill.get(), new_initializers_.back());
    new_initializers_.push_back(model::make_floats(names.scales, {n, blocks}, q.scales));
    model::spill_if_large(m_.spill.get(), new_initializers_.back());
    if (!o_.symmetric) {
      names.zeros = names_.unique(base + "_zero_points");
      new_initializers_.push_back(model::make_tensor(names.zeros, onnx::TensorProto::UINT8,
                                                     {n, (blocks * o_.bits + 7) / 8},
                                                     std::as_bytes(std::span(q.zeros))));
      model::spill_if_large(m_.spill.get(), new_initializers_.back());
    }
    return names;
  }

  model::Model& m_;
  onnx::GraphProto& g_;
  const NBitsOptions& o_;
  NameGen names_;
  std::map<std::string, const onnx::TensorProto*> initializers_;
  std::map<std::string, int> producer_;
  std::set<std::string> graph_outputs_;
  std::map<std::string, Names> quantized_;
  std::map<int, onnx::NodeProto> replacements_;
  std::vector<onnx::TensorProto> new_initializers_;
  std::set<std::string> replaced_;
  NBitsResult result_;
};

}  // namespace

NBitsResult quantize_to_nbits(model::Model& m, const NBitsOptions& options) {
  if (options.bits != 4 && options.bits != 8)
    throw BuildError("MatMulNBits quantization takes 4 or 8 bits, not " + std::to_string(options.bits));
  if (options.block_size < 16 || (options.block_size & (options.block_size - 1)))
    throw BuildError("MatMulNBits block_size must be a power of two of at least 16, not " +
                     std::to_string(options.block_size));
  return NBitsRewriter(m, options).run();
}

}  // namespace winml::quant
