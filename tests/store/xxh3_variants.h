// XXH3-128 compiled inline for one instruction set each (xxh3_variant.cpp,
// built once per set): keys must not depend on the CPU that computed them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

namespace winml::test {

using Xxh3Result = std::pair<std::uint64_t, std::uint64_t>;  // high, low

Xxh3Result xxh3_128_scalar(const void* data, std::size_t size);
Xxh3Result xxh3_128_sse2(const void* data, std::size_t size);
Xxh3Result xxh3_128_avx2(const void* data, std::size_t size);
Xxh3Result xxh3_128_avx512(const void* data, std::size_t size);

}  // namespace winml::test
