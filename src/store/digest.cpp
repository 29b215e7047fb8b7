#include "store/digest.h"

#include <array>
#include <cstdio>

// On x86-64, file contents go through libxxhash's run-time dispatch so the
// widest vector unit present (AVX2/AVX-512) is used: about twice the SSE2
// baseline. Its first call probes the CPU (CPUID, which traps to the
// hypervisor in a virtual machine: 1.7 % of a one-model no-op), so the few
// bytes of a key or a config field take the baseline, as fast at that size,
// and a no-op build, which hashes no file, never probes. Both fill the same
// XXH3 state: the digest does not depend on which one ran.
#if defined(__x86_64__) || defined(_M_X64)
#define XXH_DISPATCH_DISABLE_REPLACE
#include <xxh_x86dispatch.h>
#define WINML_XXH3_WIDE(fn) fn##_dispatch
#else
#define WINML_XXH3_WIDE(fn) fn
#endif

namespace winml::store {

std::string Digest::hex() const {
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(high),
                static_cast<unsigned long long>(low));
  return std::string(buf, 32);
}

std::optional<Digest> Digest::from_hex(std::string_view hex) {
  if (hex.size() != 32) return std::nullopt;
  static const auto table = [] {
    std::array<std::int8_t, 256> t{};
    t.fill(-1);
    for (int c = 0; c < 10; ++c) t['0' + c] = static_cast<std::int8_t>(c);
    for (int c = 0; c < 6; ++c) t['a' + c] = static_cast<std::int8_t>(10 + c);
    return t;
  }();
  // Branch-free: any character outside [0-9a-f] makes `bad` negative.
  auto parse = [](std::string_view s, std::uint64_t& out) {
    std::uint64_t v = 0;
    int bad = 0;
    for (char c : s) {
      const int digit = table[static_cast<unsigned char>(c)];
      bad |= digit;
      v = (v << 4) | static_cast<std::uint64_t>(digit & 15);
    }
    out = v;
    return bad >= 0;
  };
  Digest d;
  if (!parse(hex.substr(0, 16), d.high) || !parse(hex.substr(16), d.low)) return std::nullopt;
  return d;
}

Hasher::Hasher() : state_(XXH3_createState()) { XXH3_128bits_reset(state_); }
Hasher::~Hasher() { XXH3_freeState(state_); }

namespace {
constexpr std::size_t kWideFrom = 4096;  // bytes: below, the baseline is as fast
}  // namespace

void Hasher::update(const void* data, std::size_t size) {
  if (size >= kWideFrom) WINML_XXH3_WIDE(XXH3_128bits_update)(state_, data, size);
  else XXH3_128bits_update(state_, data, size);
}

void Hasher::update_field(std::string_view s) {
  std::uint64_t n = s.size();
  unsigned char len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<unsigned char>(n >> (8 * i));
  update(len, sizeof len);
  update(s);
}

void Hasher::update_digest(const Digest& d) {
  unsigned char b[16];
  for (int i = 0; i < 8; ++i) {
    b[i] = static_cast<unsigned char>(d.high >> (8 * i));
    b[8 + i] = static_cast<unsigned char>(d.low >> (8 * i));
  }
  update(b, sizeof b);
}

Digest Hasher::finish() const {
  XXH128_hash_t h = XXH3_128bits_digest(state_);
  return Digest{h.high64, h.low64};
}

Digest digest_of(std::string_view bytes) {
  const XXH128_hash_t h = bytes.size() >= kWideFrom ? WINML_XXH3_WIDE(XXH3_128bits)(bytes.data(), bytes.size())
                                                    : XXH3_128bits(bytes.data(), bytes.size());
  return Digest{h.high64, h.low64};
}

}  // namespace winml::store
