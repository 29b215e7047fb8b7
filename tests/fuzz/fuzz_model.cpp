// The ONNX model loader with external data: input = 4-byte little-endian
// length of the model, the model's bytes, then the bytes of
// model.onnx.data (the name a seed's tensors refer to). Loaded twice: as
// usual, and with embedded EPContext blobs left in the mapped file.
#include <cstring>

#include "fuzz_support.h"
#include "model/inspect.h"
#include "model/model_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace winml;
  if (size < 4) return 0;
  std::uint32_t model_bytes = 0;
  std::memcpy(&model_bytes, data, 4);
  const std::string_view rest(reinterpret_cast<const char*>(data) + 4, size - 4);
  const std::size_t split = std::min<std::size_t>(model_bytes, rest.size());
  const auto dir = fuzz::scratch();
  fuzz::write(dir / "model.onnx", rest.substr(0, split));
  fuzz::write(dir / "model.onnx.data", rest.substr(split));
  fuzz::expecting_only_our_errors([&] {
    auto m = model::load_model(dir / "model.onnx");
    model::inspect_model(m);
  });
  // Again with EPContext blobs read where they lie (model/mapped_blobs.h),
  // from the smallest size, so that every ep_cache_context goes that way.
  fuzz::expecting_only_our_errors([&] {
    auto m = model::load_model(dir / "model.onnx", {.map_blobs = true, .map_blobs_from = 1});
    model::inspect_model(m);
  });
  return 0;
}
