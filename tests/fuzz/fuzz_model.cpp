// The ONNX model loader with external data: input = 4-byte little-endian
// length of the model, the model's bytes, then the bytes of
// model.onnx.data (the name a seed's tensors refer to).
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
  return 0;
}
