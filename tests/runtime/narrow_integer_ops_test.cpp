// Binary ops on integers narrower than 32 bits, and uint32, run on widened
// inputs and narrow their results back. Every pair of edge values of each
// such type must give what the op computes in the type itself.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "base/error.h"
#include "runtime/dispatch.h"
#include "runtime/evaluate.h"

using namespace winml;
using runtime::Tensor;

namespace {

template <typename T>
std::vector<T> edge_values() {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {L::max(), static_cast<T>(L::max() - 1), static_cast<T>(L::max() / 2),
                      static_cast<T>(L::max() / 2 + 1), 0, 1, 2, 3, 7};
  if constexpr (L::is_signed) {
    for (T x : {L::min(), static_cast<T>(L::min() + 1), static_cast<T>(-1), static_cast<T>(-2), static_cast<T>(-7)})
      v.push_back(x);
  }
  return v;
}

// Every (a, b) pair of edge values, as two flat tensors.
template <typename T>
std::pair<std::vector<T>, std::vector<T>> all_pairs() {
  const auto v = edge_values<T>();
  std::vector<T> a, b;
  for (T x : v)
    for (T y : v) a.push_back(x), b.push_back(y);
  return {a, b};
}

template <typename R, typename T>
std::vector<R> run(const std::string& op, const std::vector<std::vector<T>>& inputs, std::int64_t fmod = -1) {
  onnx::NodeProto n;
  n.set_op_type(op);
  std::vector<Tensor> tensors;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    n.add_input("x" + std::to_string(i));
    tensors.push_back(Tensor::from_vector<T>(runtime::dtype_of<T>,
                                             {static_cast<std::int64_t>(inputs[i].size())}, inputs[i]));
  }
  n.add_output("y");
  if (fmod >= 0) {
    auto* a = n.add_attribute();
    a->set_name("fmod");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(fmod);
  }
  auto out = runtime::evaluate_node(n, 17, tensors);
  EXPECT_EQ(out.at(0).dtype(), runtime::dtype_of<R>) << op;
  const R* p = out.at(0).template data<R>();
  return std::vector<R>(p, p + out.at(0).size());  // (not braces: vector<bool> would take two bools)
}

template <typename R, typename T>
std::vector<R> expected(const std::vector<T>& a, const std::vector<T>& b, const std::function<R(T, T)>& f) {
  std::vector<R> r;
  for (std::size_t i = 0; i < a.size(); ++i) r.push_back(f(a[i], b[i]));
  return r;
}

template <typename T>
void check_type() {
  SCOPED_TRACE(runtime::dtype_name(runtime::dtype_of<T>));
  const auto pairs = all_pairs<T>();  // (not a structured binding: clang 14's lambdas cannot capture one)
  const std::vector<T>& a = pairs.first;
  const std::vector<T>& b = pairs.second;
  using W = std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>;
  const auto same = [&](const std::string& op, const std::function<T(T, T)>& f, std::int64_t fmod = -1) {
    EXPECT_EQ((run<T, T>(op, {a, b}, fmod)), (expected<T, T>(a, b, f))) << op;
  };
  same("Add", [](T x, T y) { return static_cast<T>(W(x) + W(y)); });
  same("Sub", [](T x, T y) { return static_cast<T>(W(x) - W(y)); });
  same("Mul", [](T x, T y) { return static_cast<T>(W(x) * W(y)); });
  same("Div", [](T x, T y) { return y == 0 ? T(0) : static_cast<T>(W(x) / W(y)); });
  same("Mod", [](T x, T y) { return y == 0 ? T(0) : static_cast<T>(W(x) % W(y)); }, 1);
  same("Mod", [](T x, T y) {
    if (y == 0) return T(0);
    W r = W(x) % W(y);
    if (std::is_signed_v<T> && r != 0 && ((r < 0) != (W(y) < 0))) r += W(y);
    return static_cast<T>(r);
  }, 0);
  same("Max", [](T x, T y) { return x < y ? y : x; });
  same("Min", [](T x, T y) { return y < x ? y : x; });
  same("PRelu", [](T x, T s) { return std::is_signed_v<T> && x < 0 ? static_cast<T>(W(s) * W(x)) : x; });
  EXPECT_EQ((run<T, T>("Sum", {a, b, a})), (expected<T, T>(a, b, [](T x, T y) {
              return static_cast<T>(W(static_cast<T>(W(x) + W(y))) + W(x));
            })));
  const auto compare = [&](const std::string& op, const std::function<bool(T, T)>& f) {
    EXPECT_EQ((run<bool, T>(op, {a, b})), (expected<bool, T>(a, b, f))) << op;
  };
  compare("Equal", [](T x, T y) { return x == y; });
  compare("Less", [](T x, T y) { return x < y; });
  compare("Greater", [](T x, T y) { return x > y; });
  compare("LessOrEqual", [](T x, T y) { return x <= y; });
  compare("GreaterOrEqual", [](T x, T y) { return x >= y; });
}

}  // namespace

TEST(NarrowIntegerOps, EveryEdgePairGivesTheResultOfTheTypeItself) {
  check_type<std::int8_t>();
  check_type<std::uint8_t>();
  check_type<std::int16_t>();
  check_type<std::uint16_t>();
  check_type<std::uint32_t>();
  check_type<std::int32_t>();  // (computed as it is: the reference itself)
}

TEST(NarrowIntegerOps, BroadcastAndMismatchedTypesBehaveAsForWideTypes) {
  onnx::NodeProto n;
  n.set_op_type("Sub");
  n.add_input("a");
  n.add_input("b");
  n.add_output("y");
  auto a = Tensor::from_vector<std::uint8_t>(onnx::TensorProto::UINT8, {2, 3}, {0, 1, 2, 250, 251, 252});
  auto b = Tensor::from_vector<std::uint8_t>(onnx::TensorProto::UINT8, {1}, {2});
  auto y = runtime::evaluate_node(n, 17, {a, b}).at(0);
  EXPECT_EQ(y.shape(), (runtime::Shape{2, 3}));
  const std::uint8_t* p = y.data<std::uint8_t>();
  EXPECT_EQ(std::vector<std::uint8_t>(p, p + 6), (std::vector<std::uint8_t>{254, 255, 0, 248, 249, 250}));
  auto c = Tensor::from_vector<std::int8_t>(onnx::TensorProto::INT8, {1}, {2});
  EXPECT_THROW(runtime::evaluate_node(n, 17, {a, c}), winml::InputError);
}

// Neg and Abs of the minimum wrap around to the minimum (as in ONNX
// Runtime), without a signed overflow (the sanitizer build checks).
TEST(NarrowIntegerOps, NegAndAbsOfTheMinimumWrapAround) {
  auto check = [](auto min) {
    using T = decltype(min);
    const T max = std::numeric_limits<T>::max();
    const std::vector<T> in = {min, static_cast<T>(min + 1), static_cast<T>(-1), 0, 5};
    EXPECT_EQ((run<T, T>("Neg", {in})), (std::vector<T>{min, max, 1, 0, static_cast<T>(-5)}));
    EXPECT_EQ((run<T, T>("Abs", {in})), (std::vector<T>{min, max, 1, 0, 5}));
  };
  check(std::numeric_limits<std::int8_t>::min());
  check(std::numeric_limits<std::int32_t>::min());
  check(std::numeric_limits<std::int64_t>::min());
}
