// One instruction set's XXH3-128 (see xxh3_variants.h). CMake compiles this
// file once per set with WINML_XXH_VECTOR (xxHash's XXH_VECTOR value),
// WINML_XXH_FUNCTION and the matching -m flags.
#define XXH_INLINE_ALL
#define XXH_VECTOR WINML_XXH_VECTOR
#include <xxhash.h>

#include "store/xxh3_variants.h"

namespace winml::test {

Xxh3Result WINML_XXH_FUNCTION(const void* data, std::size_t size) {
  const XXH128_hash_t h = XXH3_128bits(data, size);
  return {h.high64, h.low64};
}

}  // namespace winml::test
