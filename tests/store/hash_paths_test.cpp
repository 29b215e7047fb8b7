// A digest is a property of the bytes alone: not of the path that read them
// (buffered reads, a mapping, the measured choice between them) nor of the
// instruction set XXH3 ran on. Keys computed on one CI machine are looked up
// on another.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "store/digest.h"
#include "store/file_hash.h"
#include "support/temp_dir.h"
#include "store/xxh3_variants.h"

using namespace winml;

namespace {

std::string random_bytes(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

test::Xxh3Result as_pair(const store::Digest& d) { return {d.high, d.low}; }

}  // namespace

TEST(HashPaths, EveryReadPathGivesTheDigestOfTheBytes) {
  test::TempDir dir;
  // Empty, below a buffer, across the buffer and chunk sizes, and big enough
  // for kAuto to measure both paths before choosing.
  for (std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{(256 << 10) + 3}, std::size_t{4 << 20},
                           std::size_t{(4 << 20) + 1}, std::size_t{(40 << 20) + 12345}}) {
    const std::string bytes = random_bytes(size, static_cast<unsigned>(size));
    test::write_text(dir / "f", bytes);
    const store::Digest expected = store::digest_of(bytes);
    for (auto how : {store::ReadPath::kRead, store::ReadPath::kMap, store::ReadPath::kAuto}) {
      std::uint64_t hashed = 0;
      EXPECT_EQ(store::hash_file_via(dir / "f", how, &hashed), expected)
          << size << " bytes, path " << static_cast<int>(how);
      EXPECT_EQ(hashed, size);
    }
  }
}

TEST(HashPaths, XxhThreeGivesTheSameDigestOnEveryInstructionSet) {
  // Lengths that take each of XXH3's code paths (0, 1-3, 4-8, 9-16, 17-128,
  // 129-240, long input with and without a partial stripe and block).
  const std::string bytes = random_bytes(3 << 20, 7);
  for (std::size_t n : {0, 1, 3, 4, 8, 9, 16, 17, 128, 129, 240, 241, 1024, 1025, 65536 + 7, 3 << 20}) {
    const auto reference = test::xxh3_128_scalar(bytes.data(), n);
    EXPECT_EQ(as_pair(store::digest_of(std::string_view(bytes.data(), n))), reference) << n << " bytes: dispatched";
    EXPECT_EQ(test::xxh3_128_sse2(bytes.data(), n), reference) << n << " bytes: SSE2";
    if (__builtin_cpu_supports("avx2")) {
      EXPECT_EQ(test::xxh3_128_avx2(bytes.data(), n), reference) << n << " bytes: AVX2";
    }
    if (__builtin_cpu_supports("avx512f")) {
      EXPECT_EQ(test::xxh3_128_avx512(bytes.data(), n), reference) << n << " bytes: AVX-512";
    }
  }
  // And streamed in uneven pieces, as files are: pieces below and above the
  // size from which Hasher takes the dispatched path, in one stream.
  store::Hasher h;
  for (std::size_t off = 0, step = 1; off < bytes.size(); off += step, step = step * 3 + 1)
    h.update(bytes.data() + off, std::min(step, bytes.size() - off));
  EXPECT_EQ(as_pair(h.finish()), test::xxh3_128_scalar(bytes.data(), bytes.size()));
}
