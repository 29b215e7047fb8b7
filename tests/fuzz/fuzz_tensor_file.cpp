// Calibration sample readers: .npy (the header's dict and shape) and
// serialized TensorProto files. The first input byte picks the format.
#include "fuzz_support.h"
#include "model/tensor_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace winml;
  if (size < 1) return 0;
  const auto file = fuzz::scratch() / (data[0] & 1 ? "sample.pb" : "sample.npy");
  fuzz::write(file, std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  fuzz::expecting_only_our_errors([&] { model::read_tensor_file(file); });
  return 0;
}
