// The EPContext blob loader of the ref backend: header and section bounds,
// checksums, the plan's metadata and kernel creation. The first input byte
// chooses: even, the blob as given (a mutated blob almost always fails its
// checksum); odd, the blob with its header checksum recomputed first, so
// that mutations reach the metadata decoder and the kernels behind it.
#include <cstring>

#include "fuzz_support.h"
#include "runtime/ref_blob/ref_blob.h"
#include "store/digest.h"

namespace {

// The layout blob.cpp writes: an 80-byte header whose bytes 64..79 hold
// XXH3-128 of bytes 0..63 and of the metadata section (offset 80, size at 24).
void seal(std::string& blob) {
  if (blob.size() < 80) return;
  std::uint64_t meta_bytes = 0;
  std::memcpy(&meta_bytes, blob.data() + 24, 8);
  if (meta_bytes > blob.size() - 80) return;
  winml::store::Hasher h;
  h.update(blob.data(), 64);
  h.update(blob.data() + 80, meta_bytes);
  const winml::store::Digest d = h.finish();
  std::memcpy(blob.data() + 64, &d.high, 8);
  std::memcpy(blob.data() + 72, &d.low, 8);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace winml;
  if (size < 1) return 0;
  std::string blob(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 1) seal(blob);
  fuzz::expecting_only_our_errors([&] { runtime::ref_blob::check_blob(blob, "fuzz.bin", true); });
  fuzz::expecting_only_our_errors([&] { runtime::ref_blob::load_plan(blob, nullptr, "fuzz.bin"); });
  return 0;
}
