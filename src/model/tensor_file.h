// Tensor files: NumPy .npy (format 1.0/2.0/3.0, little-endian, C order) and
// serialized onnx.TensorProto (.pb, as in ONNX's test data). Used for
// calibration data, `winml-make run --input`, and test oracles.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "model/onnx.h"

namespace winml::model {

struct TensorFile {
  std::int32_t dtype = onnx::TensorProto::FLOAT;  // ONNX element type
  std::vector<std::int64_t> shape;
  std::vector<std::byte> data;  // little-endian, row-major

  std::int64_t element_count() const;
  template <typename T>
  const T* as() const {
    return reinterpret_cast<const T*>(data.data());
  }
};

// InputError naming the file on anything malformed or unsupported.
TensorFile read_npy(const std::filesystem::path& path);
void write_npy(const std::filesystem::path& path, const TensorFile& t);

TensorFile read_tensor_pb(const std::filesystem::path& path);
// .npy or .pb by extension.
TensorFile read_tensor_file(const std::filesystem::path& path);

TensorFile from_proto(const onnx::TensorProto& t);

}  // namespace winml::model
