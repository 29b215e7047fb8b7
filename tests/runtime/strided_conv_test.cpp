// Strided Conv (im2col, whole or in column blocks, with its stride-2 column
// copy) against a double-precision direct convolution: widths that leave
// every remainder of the four-column groups, pads on either side, strides 2
// and 3, kernels 1, 3 and 7.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "runtime/evaluate.h"
#include "runtime/tensor.h"
#include "support/model_builder.h"

using namespace winml;
using runtime::Tensor;

namespace {

struct StridedCase {
  std::int64_t c, m, h, w, kernel, stride, pad_begin, pad_end;
};

void add_int_list(onnx::NodeProto& n, const std::string& name, std::vector<std::int64_t> values) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (auto v : values) a->add_ints(v);
}

// The largest error relative to the sum of the magnitudes of the terms.
double strided_worst_error(const StridedCase& p) {
  const std::int64_t oh = (p.h + p.pad_begin + p.pad_end - p.kernel) / p.stride + 1;
  const std::int64_t ow = (p.w + p.pad_begin + p.pad_end - p.kernel) / p.stride + 1;
  const auto x = test::random_floats(static_cast<std::size_t>(p.c * p.h * p.w), 21);
  const auto w = test::random_floats(static_cast<std::size_t>(p.m * p.c * p.kernel * p.kernel), 22);
  const auto b = test::random_floats(static_cast<std::size_t>(p.m), 23);
  onnx::NodeProto n;
  n.set_op_type("Conv");
  n.add_input("x");
  n.add_input("w");
  n.add_input("b");
  n.add_output("y");
  add_int_list(n, "strides", {p.stride, p.stride});
  add_int_list(n, "pads", {p.pad_begin, p.pad_begin, p.pad_end, p.pad_end});
  add_int_list(n, "kernel_shape", {p.kernel, p.kernel});
  const auto out = runtime::evaluate_node(
      n, 17,
      {Tensor::from_vector<float>(onnx::TensorProto::FLOAT, {1, p.c, p.h, p.w}, x),
       Tensor::from_vector<float>(onnx::TensorProto::FLOAT, {p.m, p.c, p.kernel, p.kernel}, w),
       Tensor::from_vector<float>(onnx::TensorProto::FLOAT, {p.m}, b)});
  EXPECT_EQ(out.at(0).shape(), (runtime::Shape{1, p.m, oh, ow}));
  const float* y = out.at(0).data<float>();
  double worst = 0;
  for (std::int64_t m = 0; m < p.m; ++m)
    for (std::int64_t i = 0; i < oh; ++i)
      for (std::int64_t j = 0; j < ow; ++j) {
        double sum = b[m], magnitude = std::fabs(b[m]);
        for (std::int64_t c = 0; c < p.c; ++c)
          for (std::int64_t u = 0; u < p.kernel; ++u)
            for (std::int64_t v = 0; v < p.kernel; ++v) {
              const std::int64_t iy = i * p.stride - p.pad_begin + u, ix = j * p.stride - p.pad_begin + v;
              if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w) continue;
              const double term = double(w[((m * p.c + c) * p.kernel + u) * p.kernel + v]) *
                                  double(x[(c * p.h + iy) * p.w + ix]);
              sum += term;
              magnitude += std::fabs(term);
            }
        worst = std::max(worst, std::fabs(y[(m * oh + i) * ow + j] - sum) / magnitude);
      }
  return worst;
}

TEST(StridedConv, MatchesADoublePrecisionDirectConvolution) {
  std::vector<StridedCase> cases;
  // Output widths 1-13 (every remainder of four, and several groups) at
  // stride 2, without and with pads, 3x3 and 1x1 kernels.
  for (std::int64_t w = 2; w <= 27; w += 1) {
    cases.push_back({3, 5, 9, w, 3, 2, 1, 1});
    cases.push_back({2, 4, 5, w, 1, 2, 0, 0});
  }
  // Wide enough for im2col in column blocks (a stem-like 7x7), a pad only
  // after, stride 3 (the scalar copy).
  cases.push_back({3, 8, 121, 122, 7, 2, 3, 3});
  cases.push_back({4, 6, 33, 30, 3, 2, 0, 1});
  cases.push_back({4, 6, 31, 29, 3, 3, 1, 1});
  for (const auto& p : cases) {
    SCOPED_TRACE("c " + std::to_string(p.c) + " h " + std::to_string(p.h) + " w " + std::to_string(p.w) +
                 " kernel " + std::to_string(p.kernel) + " stride " + std::to_string(p.stride) + " pads " +
                 std::to_string(p.pad_begin) + "/" + std::to_string(p.pad_end));
    EXPECT_LT(strided_worst_error(p), 1e-5);
  }
}

}  // namespace
