// float <-> float16 against the compiler's IEEE binary16 type.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "base/half.h"

namespace winml {
namespace {

std::uint16_t reference_half(float f) {
  _Float16 h = static_cast<_Float16>(f);
  std::uint16_t bits;
  std::memcpy(&bits, &h, 2);
  return bits;
}

TEST(Half, EveryHalfRoundTrips) {
  for (std::uint32_t h = 0; h < 65536; ++h) {
    float f = half_to_float(static_cast<std::uint16_t>(h));
    _Float16 r;
    std::uint16_t bits = static_cast<std::uint16_t>(h);
    std::memcpy(&r, &bits, 2);
    if (std::isnan(f)) {
      ASSERT_TRUE(std::isnan(static_cast<float>(r)));
      continue;
    }
    ASSERT_EQ(f, static_cast<float>(r)) << h;
    ASSERT_EQ(float_to_half(f), h) << h;
  }
}

TEST(Half, FloatsRoundToNearestEvenLikeTheCompiler) {
  // A stride through every float bit pattern, plus the neighbourhoods of the
  // rounding boundaries (subnormals, overflow).
  for (std::uint64_t x = 0; x <= 0xffffffffull; x += 9973) {
    std::uint32_t bits = static_cast<std::uint32_t>(x);
    float f;
    std::memcpy(&f, &bits, 4);
    if (std::isnan(f)) continue;
    ASSERT_EQ(float_to_half(f), reference_half(f)) << std::hex << bits;
  }
  for (float f : {65504.0f, 65519.99f, 65520.0f, 5.96e-8f, 2.98e-8f, 2.9802322e-8f, 6.1e-5f, 1e-7f, -0.0f})
    EXPECT_EQ(float_to_half(f), reference_half(f)) << f;
}

}  // namespace
}  // namespace winml
