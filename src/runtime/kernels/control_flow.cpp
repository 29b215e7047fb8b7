// If, Loop and Scan: subgraphs planned once when the node's kernel is
// created (so unsupported ops inside them are reported up front) and run
// through KernelContext::run_subgraph, which supplies outer-scope values.
#include <cstring>

#include "runtime/kernels/common.h"
#include "runtime/kernels/register.h"
#include "runtime/kernels/transpose.h"
#include "runtime/plan.h"

namespace winml::runtime::kernels {

namespace {

std::shared_ptr<const Plan> required_subgraph(const NodeContext& n, const char* name) {
  const onnx::GraphProto* g = n.attr_graph(name);
  if (!g) n.fail(std::string("missing subgraph attribute '") + name + "'");
  return n.subgraph_plan(*g);
}

bool truthy(const Tensor& t) {
  if (t.size() != 1) throw InputError("condition must have one element, got shape " + shape_string(t.shape()));
  return scalar_value(t) != 0.0;
}

class If : public Kernel {
 public:
  explicit If(const NodeContext& n)
      : then_(required_subgraph(n, "then_branch")), else_(required_subgraph(n, "else_branch")) {}
  void run(KernelContext& ctx) const override {
    const Plan& branch = truthy(ctx.input(0)) ? *then_ : *else_;
    std::vector<Tensor> outs = ctx.run_subgraph(branch, {});
    if (static_cast<int>(outs.size()) != ctx.output_count())
      throw InputError("branch produced " + std::to_string(outs.size()) + " outputs, the node has " +
                       std::to_string(ctx.output_count()));
    for (std::size_t i = 0; i < outs.size(); ++i) ctx.set_output(static_cast<int>(i), std::move(outs[i]));
  }

 private:
  std::shared_ptr<const Plan> then_, else_;
};

// Stacks same-shaped tensors along a new leading axis.
Tensor stack(const std::vector<Tensor>& parts) {
  if (parts.empty()) return Tensor::allocate(onnx::TensorProto::FLOAT, {0});
  Shape shape = parts[0].shape();
  shape.insert(shape.begin(), static_cast<std::int64_t>(parts.size()));
  Tensor out = Tensor::allocate(parts[0].dtype(), shape);
  std::size_t each = parts[0].bytes();
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].shape() != parts[0].shape() || parts[i].dtype() != parts[0].dtype())
      throw InputError("scan outputs change shape or type between iterations");
    if (each) std::memcpy(out.mutable_raw() + i * each, parts[i].raw(), each);
  }
  return out;
}

class Loop : public Kernel {
 public:
  explicit Loop(const NodeContext& n) : body_(required_subgraph(n, "body")) {}
  void run(KernelContext& ctx) const override {
    const Tensor* max_trips = ctx.optional_input(0);
    const Tensor* cond_in = ctx.optional_input(1);
    std::int64_t limit = max_trips ? static_cast<std::int64_t>(scalar_value(*max_trips)) : INT64_MAX;
    bool cond = cond_in ? truthy(*cond_in) : true;
    std::vector<Tensor> carried;
    for (int i = 2; i < ctx.input_count(); ++i) carried.push_back(ctx.input(i));
    std::size_t n_carried = carried.size();
    std::size_t n_scan = static_cast<std::size_t>(ctx.output_count()) - n_carried;
    if (body_->outputs.size() != 1 + n_carried + n_scan)
      throw InputError("the loop body has " + std::to_string(body_->outputs.size()) + " outputs, expected " +
                       std::to_string(1 + n_carried + n_scan));
    std::vector<std::vector<Tensor>> scans(n_scan);
    for (std::int64_t trip = 0; trip < limit && cond; ++trip) {
      std::vector<Tensor> in;
      in.push_back(Tensor::from_vector<std::int64_t>(onnx::TensorProto::INT64, {}, {trip}));
      in.push_back(Tensor::from_vector<bool>(onnx::TensorProto::BOOL, {}, {cond}));
      for (auto& c : carried) in.push_back(c);
      std::vector<Tensor> out = ctx.run_subgraph(*body_, std::move(in));
      cond = truthy(out[0]);
      for (std::size_t i = 0; i < n_carried; ++i) carried[i] = std::move(out[1 + i]);
      for (std::size_t i = 0; i < n_scan; ++i) scans[i].push_back(std::move(out[1 + n_carried + i]));
    }
    for (std::size_t i = 0; i < n_carried; ++i) ctx.set_output(static_cast<int>(i), carried[i]);
    for (std::size_t i = 0; i < n_scan; ++i) ctx.set_output(static_cast<int>(n_carried + i), stack(scans[i]));
  }

 private:
  std::shared_ptr<const Plan> body_;
};

// Scan (opset 9+): states carried across iterations over slices of the scan inputs.
class Scan : public Kernel {
 public:
  explicit Scan(const NodeContext& n)
      : body_(required_subgraph(n, "body")),
        num_scan_inputs_(n.required_int("num_scan_inputs")),
        in_axes_(n.attr_ints("scan_input_axes")),
        in_dirs_(n.attr_ints("scan_input_directions")),
        out_axes_(n.attr_ints("scan_output_axes")),
        out_dirs_(n.attr_ints("scan_output_directions")) {}

  void run(KernelContext& ctx) const override {
    std::int64_t m = num_scan_inputs_;
    std::int64_t n_states = ctx.input_count() - m;
    std::int64_t n_scan_out = ctx.output_count() - n_states;
    std::vector<Tensor> states;
    for (std::int64_t i = 0; i < n_states; ++i) states.push_back(ctx.input(static_cast<int>(i)));
    // Scan inputs with their scan axis moved to the front.
    std::vector<Tensor> inputs;
    std::int64_t length = -1;
    for (std::int64_t j = 0; j < m; ++j) {
      const Tensor& t = ctx.input(static_cast<int>(n_states + j));
      int axis = normalize_axis(j < static_cast<std::int64_t>(in_axes_.size()) ? in_axes_[j] : 0, t.rank());
      inputs.push_back(move_axis_to_front(t, axis, ctx));
      if (length >= 0 && inputs.back().dim(0) != length) throw InputError("scan inputs differ in length");
      length = inputs.back().dim(0);
    }
    std::vector<std::vector<Tensor>> outs(static_cast<std::size_t>(n_scan_out));
    for (std::int64_t it = 0; it < length; ++it) {
      std::vector<Tensor> in = states;
      for (std::int64_t j = 0; j < m; ++j) {
        bool reverse = j < static_cast<std::int64_t>(in_dirs_.size()) && in_dirs_[j] == 1;
        in.push_back(slice_front(inputs[j], reverse ? length - 1 - it : it));
      }
      std::vector<Tensor> out = ctx.run_subgraph(*body_, std::move(in));
      for (std::int64_t i = 0; i < n_states; ++i) states[i] = std::move(out[i]);
      for (std::int64_t k = 0; k < n_scan_out; ++k) outs[k].push_back(std::move(out[n_states + k]));
    }
    for (std::int64_t i = 0; i < n_states; ++i) ctx.set_output(static_cast<int>(i), states[i]);
    for (std::int64_t k = 0; k < n_scan_out; ++k) {
      bool reverse = k < static_cast<std::int64_t>(out_dirs_.size()) && out_dirs_[k] == 1;
      if (reverse) std::reverse(outs[k].begin(), outs[k].end());
      Tensor stacked = stack(outs[k]);
      int axis = normalize_axis(k < static_cast<std::int64_t>(out_axes_.size()) ? out_axes_[k] : 0, stacked.rank());
      if (axis != 0) {
        std::vector<int> perm;
        for (int d = 1; d <= axis; ++d) perm.push_back(d);
        perm.insert(perm.begin() + axis, 0);
        for (int d = axis + 1; d < stacked.rank(); ++d) perm.push_back(d);
        Tensor moved = Tensor::allocate(stacked.dtype(), permuted_shape(stacked.shape(), perm));
        transpose_into(stacked, perm, moved, ctx.pool());
        stacked = moved;
      }
      ctx.set_output(static_cast<int>(n_states + k), stacked);
    }
  }

 private:
  static Tensor move_axis_to_front(const Tensor& t, int axis, KernelContext& ctx) {
    if (axis == 0) return t;
    std::vector<int> perm{axis};
    for (int d = 0; d < t.rank(); ++d)
      if (d != axis) perm.push_back(d);
    Tensor out = Tensor::allocate(t.dtype(), permuted_shape(t.shape(), perm));
    transpose_into(t, perm, out, ctx.pool());
    return out;
  }
  static Tensor slice_front(const Tensor& t, std::int64_t i) {
    Shape s(t.shape().begin() + 1, t.shape().end());
    Tensor out = Tensor::allocate(t.dtype(), s);
    if (out.bytes()) std::memcpy(out.mutable_raw(), t.raw() + static_cast<std::size_t>(i) * out.bytes(), out.bytes());
    return out;
  }

  std::shared_ptr<const Plan> body_;
  std::int64_t num_scan_inputs_;
  std::vector<std::int64_t> in_axes_, in_dirs_, out_axes_, out_dirs_;
};

}  // namespace

void register_control_flow(KernelRegistry& r) {
  add(r, "If", 1, kMaxOnnxOpset, make<If>());
  add(r, "Loop", 1, kMaxOnnxOpset, make<Loop>());
  add(r, "Scan", 9, kMaxOnnxOpset, make<Scan>());
}

}  // namespace winml::runtime::kernels
