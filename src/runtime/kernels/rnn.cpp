// RNN, GRU and LSTM (forward, reverse, bidirectional; sequence_lens, clip,
// custom activations, peepholes, layout 0/1). The input projection of all
// time steps is one GEMM; each step then multiplies the hidden state by R.
#include <cmath>
#include <cstring>
#include <functional>

#include "runtime/gemm.h"
#include "runtime/kernels/common.h"
#include "runtime/kernels/register.h"

namespace winml::runtime::kernels {

namespace {

using Activation = std::function<float(float)>;

Activation make_activation(const NodeContext& n, const std::string& name, float alpha, float beta, bool has_alpha,
                           bool has_beta) {
  if (name == "Sigmoid")
    return [](float x) { return x >= 0 ? 1 / (1 + std::exp(-x)) : std::exp(x) / (1 + std::exp(x)); };
  if (name == "Tanh") return [](float x) { return std::tanh(x); };
  if (name == "Relu") return [](float x) { return x < 0 ? 0.0f : x; };
  if (name == "Affine") return [alpha, beta](float x) { return alpha * x + beta; };
  if (name == "LeakyRelu") {
    float a = has_alpha ? alpha : 0.01f;
    return [a](float x) { return x < 0 ? a * x : x; };
  }
  if (name == "ThresholdedRelu") {
    float a = has_alpha ? alpha : 1.0f;
    return [a](float x) { return x > a ? x : 0.0f; };
  }
  if (name == "ScaledTanh") return [alpha, beta](float x) { return alpha * std::tanh(beta * x); };
  if (name == "HardSigmoid") {
    float a = has_alpha ? alpha : 0.2f, b = has_beta ? beta : 0.5f;
    return [a, b](float x) { return std::max(0.0f, std::min(1.0f, a * x + b)); };
  }
  if (name == "Elu") {
    float a = has_alpha ? alpha : 1.0f;
    return [a](float x) { return x < 0 ? a * (std::exp(x) - 1) : x; };
  }
  if (name == "Softsign") return [](float x) { return x / (1 + std::fabs(x)); };
  if (name == "Softplus") return [](float x) { return std::log1p(std::exp(-std::fabs(x))) + std::max(x, 0.0f); };
  n.unsupported("activation '" + name + "' is not supported");
}

enum class Cell { kRnn, kGru, kLstm };

class Recurrent : public Kernel {
 public:
  Recurrent(const NodeContext& n, Cell cell)
      : cell_(cell),
        hidden_(n.required_int("hidden_size")),
        clip_(n.attr_float("clip", 0.0f)),
        layout_(n.attr_int("layout", 0)),
        linear_before_reset_(n.attr_int("linear_before_reset", 0) != 0),
        input_forget_(n.attr_int("input_forget", 0) != 0) {
    std::string dir = n.attr_string("direction", "forward");
    if (dir != "forward" && dir != "reverse" && dir != "bidirectional") n.fail("unknown direction '" + dir + "'");
    directions_ = dir == "bidirectional" ? 2 : 1;
    reverse_ = dir == "reverse";
    int per_dir = cell == Cell::kRnn ? 1 : cell == Cell::kGru ? 2 : 3;
    std::vector<std::string> names;
    if (const auto* a = n.attr("activations"))
      for (const auto& s : a->strings()) names.push_back(s);
    auto alphas = n.attr_floats("activation_alpha"), betas = n.attr_floats("activation_beta");
    if (names.empty()) {
      std::vector<std::string> defaults = cell == Cell::kRnn   ? std::vector<std::string>{"Tanh"}
                                          : cell == Cell::kGru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                               : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
      for (int d = 0; d < directions_; ++d) names.insert(names.end(), defaults.begin(), defaults.end());
    } else if (static_cast<int>(names.size()) == per_dir && directions_ == 2) {
      auto copy = names;
      names.insert(names.end(), copy.begin(), copy.end());
    }
    if (static_cast<int>(names.size()) != per_dir * directions_) n.fail("wrong number of activations");
    for (std::size_t i = 0; i < names.size(); ++i)
      acts_.push_back(make_activation(n, names[i], i < alphas.size() ? alphas[i] : 0.0f,
                                      i < betas.size() ? betas[i] : 0.0f, i < alphas.size(), i < betas.size()));
  }

  void run(KernelContext& ctx) const override {
    const Tensor& x_in = ctx.input(0);
    const Tensor& w = ctx.input(1);
    const Tensor& r = ctx.input(2);
    if (x_in.dtype() != onnx::TensorProto::FLOAT) unsupported_type(x_in.dtype(), "float32");
    if (x_in.rank() != 3) throw InputError("X must be 3-D");
    std::int64_t gates = cell_ == Cell::kRnn ? 1 : cell_ == Cell::kGru ? 3 : 4;
    std::int64_t H = hidden_;
    // Work in [seq, batch, input].
    Tensor x = layout_ == 0 ? x_in : swap01(x_in);
    std::int64_t S = x.dim(0), Bt = x.dim(1), I = x.dim(2);
    if (w.dim(0) != directions_ || w.dim(1) != gates * H || w.dim(2) != I)
      throw InputError("W has the wrong shape " + shape_string(w.shape()));
    if (r.dim(1) != gates * H || r.dim(2) != H) throw InputError("R has the wrong shape " + shape_string(r.shape()));
    const Tensor* bias = ctx.optional_input(3);
    const Tensor* lens_t = ctx.optional_input(4);
    const Tensor* h0 = ctx.optional_input(5);
    const Tensor* c0 = cell_ == Cell::kLstm ? ctx.optional_input(6) : nullptr;
    const Tensor* peep = cell_ == Cell::kLstm ? ctx.optional_input(7) : nullptr;
    std::vector<std::int64_t> lens(static_cast<std::size_t>(Bt), S);
    if (lens_t) lens = to_int64s(*lens_t);

    Tensor y = Tensor::zeros(onnx::TensorProto::FLOAT, {S, directions_, Bt, H});
    Tensor yh = Tensor::zeros(onnx::TensorProto::FLOAT, {directions_, Bt, H});
    Tensor yc = Tensor::zeros(onnx::TensorProto::FLOAT, {directions_, Bt, H});
    std::vector<float> xw(static_cast<std::size_t>(S * Bt * gates * H)), hr(static_cast<std::size_t>(Bt * gates * H));
    for (std::int64_t d = 0; d < directions_; ++d) {
      bool backward = reverse_ || d == 1;
      const float* wd = w.data<float>() + d * gates * H * I;
      const float* rd = r.data<float>() + d * gates * H * H;
      const float* wb = bias ? bias->data<float>() + d * 2 * gates * H : nullptr;
      const float* rb = wb ? wb + gates * H : nullptr;
      const float* pd = peep ? peep->data<float>() + d * 3 * H : nullptr;
      // xw[t*B + b, :] = x[t, b, :] W^T
      GemmArgs g;
      g.a = x.data<float>();
      g.lda = I;
      g.b = wd;
      g.ldb = I;
      g.trans_b = true;
      g.c = xw.data();
      g.ldc = gates * H;
      g.m = S * Bt;
      g.n = gates * H;
      g.k = I;
      sgemm(g, ctx.pool());
      std::vector<float> h(static_cast<std::size_t>(Bt * H), 0.0f), c(static_cast<std::size_t>(Bt * H), 0.0f);
      if (h0) std::memcpy(h.data(), h0->data<float>() + d * Bt * H, sizeof(float) * h.size());
      if (c0) std::memcpy(c.data(), c0->data<float>() + d * Bt * H, sizeof(float) * c.size());
      const Activation* act = &acts_[static_cast<std::size_t>(d * (cell_ == Cell::kRnn   ? 1
                                                                   : cell_ == Cell::kGru ? 2
                                                                                         : 3))];
      for (std::int64_t step = 0; step < S; ++step) {
        std::int64_t t = backward ? S - 1 - step : step;
        // hr = h R^T (the GRU's candidate gate may need r applied first: see below)
        GemmArgs gr;
        gr.a = h.data();
        gr.lda = H;
        gr.b = rd;
        gr.ldb = H;
        gr.trans_b = true;
        gr.c = hr.data();
        gr.ldc = gates * H;
        gr.m = Bt;
        gr.n = gates * H;
        gr.k = H;
        sgemm_serial(gr);
        for (std::int64_t b = 0; b < Bt; ++b) {
          bool active = t < lens[b];
          if (backward && t >= lens[b]) active = false;
          if (!active) continue;
          const float* xg = xw.data() + (t * Bt + b) * gates * H;
          const float* hg = hr.data() + b * gates * H;
          float* hb = h.data() + b * H;
          float* cb = c.data() + b * H;
          step_cell(act, xg, hg, wb, rb, pd, rd, hb, cb, H);
          std::memcpy(y.mutable_data<float>() + ((t * directions_ + d) * Bt + b) * H, hb, sizeof(float) * H);
        }
      }
      std::memcpy(yh.mutable_data<float>() + d * Bt * H, h.data(), sizeof(float) * h.size());
      std::memcpy(yc.mutable_data<float>() + d * Bt * H, c.data(), sizeof(float) * c.size());
    }
    if (ctx.output_count() > 0 && ctx.output_wanted(0)) ctx.set_output(0, layout_ == 0 ? y : to_batch_first(y));
    if (ctx.output_count() > 1 && ctx.output_wanted(1)) ctx.set_output(1, layout_ == 0 ? yh : swap01(yh));
    if (ctx.output_count() > 2 && ctx.output_wanted(2)) ctx.set_output(2, layout_ == 0 ? yc : swap01(yc));
  }

 private:
  float clipped(float v) const { return clip_ > 0 ? std::max(-clip_, std::min(clip_, v)) : v; }

  void step_cell(const Activation* act, const float* xg, const float* hg, const float* wb, const float* rb,
                 const float* peep, const float* rd, float* h, float* c, std::int64_t H) const {
    auto bias = [&](std::int64_t gate, std::int64_t j) { return wb ? wb[gate * H + j] + rb[gate * H + j] : 0.0f; };
    if (cell_ == Cell::kRnn) {
      for (std::int64_t j = 0; j < H; ++j) h[j] = act[0](clipped(xg[j] + hg[j] + bias(0, j)));
    } else if (cell_ == Cell::kGru) {
      std::vector<float> z(H), rg(H), cand(H);
      for (std::int64_t j = 0; j < H; ++j) {
        z[j] = act[0](clipped(xg[j] + hg[j] + bias(0, j)));
        rg[j] = act[0](clipped(xg[H + j] + hg[H + j] + bias(1, j)));
      }
      if (linear_before_reset_) {
        for (std::int64_t j = 0; j < H; ++j) {
          float rh = hg[2 * H + j] + (rb ? rb[2 * H + j] : 0.0f);
          cand[j] = act[1](clipped(xg[2 * H + j] + rg[j] * rh + (wb ? wb[2 * H + j] : 0.0f)));
        }
      } else {
        // (r . h) R_h^T, one row of the hidden state.
        const float* rh = rd + 2 * H * H;
        for (std::int64_t j = 0; j < H; ++j) {
          float acc = 0;
          for (std::int64_t k = 0; k < H; ++k) acc += rg[k] * h[k] * rh[j * H + k];
          cand[j] = act[1](clipped(xg[2 * H + j] + acc + bias(2, j)));
        }
      }
      for (std::int64_t j = 0; j < H; ++j) h[j] = (1 - z[j]) * cand[j] + z[j] * h[j];
    } else {
      // Gate order i, o, f, c.
      for (std::int64_t j = 0; j < H; ++j) {
        float pi = peep ? peep[j] : 0.0f, po = peep ? peep[H + j] : 0.0f, pf = peep ? peep[2 * H + j] : 0.0f;
        float i = act[0](clipped(xg[j] + hg[j] + bias(0, j) + pi * c[j]));
        float f = input_forget_ ? 1 - i : act[0](clipped(xg[2 * H + j] + hg[2 * H + j] + bias(2, j) + pf * c[j]));
        float g = act[1](clipped(xg[3 * H + j] + hg[3 * H + j] + bias(3, j)));
        float cn = f * c[j] + i * g;
        float o = act[0](clipped(xg[H + j] + hg[H + j] + bias(1, j) + po * cn));
        c[j] = cn;
        h[j] = o * act[2](cn);
      }
    }
  }

  static Tensor swap01(const Tensor& t) {
    Shape s = t.shape();
    std::swap(s[0], s[1]);
    Tensor out = Tensor::allocate(t.dtype(), s);
    std::int64_t inner = dims_product(t.shape(), 2, t.rank());
    for (std::int64_t i = 0; i < t.dim(0); ++i)
      for (std::int64_t j = 0; j < t.dim(1); ++j)
        std::memcpy(out.mutable_data<float>() + (j * t.dim(0) + i) * inner,
                    t.data<float>() + (i * t.dim(1) + j) * inner, sizeof(float) * inner);
    return out;
  }
  // [seq, dirs, batch, hidden] -> [batch, seq, dirs, hidden]
  static Tensor to_batch_first(const Tensor& y) {
    std::int64_t S = y.dim(0), D = y.dim(1), B = y.dim(2), H = y.dim(3);
    Tensor out = Tensor::allocate(y.dtype(), {B, S, D, H});
    for (std::int64_t s = 0; s < S; ++s)
      for (std::int64_t d = 0; d < D; ++d)
        for (std::int64_t b = 0; b < B; ++b)
          std::memcpy(out.mutable_data<float>() + ((b * S + s) * D + d) * H,
                      y.data<float>() + ((s * D + d) * B + b) * H, sizeof(float) * H);
    return out;
  }

  Cell cell_;
  std::int64_t hidden_;
  float clip_;
  std::int64_t layout_;
  bool linear_before_reset_, input_forget_;
  std::int64_t directions_ = 1;
  bool reverse_ = false;
  std::vector<Activation> acts_;
};

template <Cell C>
class RecurrentOf : public Recurrent {
 public:
  explicit RecurrentOf(const NodeContext& n) : Recurrent(n, C) {}
};

}  // namespace

void register_rnn(KernelRegistry& r) {
  add(r, "RNN", 7, kMaxOnnxOpset, make<RecurrentOf<Cell::kRnn>>(), kFloatCompute);
  add(r, "GRU", 7, kMaxOnnxOpset, make<RecurrentOf<Cell::kGru>>(), kFloatCompute);
  add(r, "LSTM", 7, kMaxOnnxOpset, make<RecurrentOf<Cell::kLstm>>(), kFloatCompute);
}

}  // namespace winml::runtime::kernels
