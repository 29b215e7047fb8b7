// runtime::Tensor: an ONNX element type, a shape and contiguous row-major
// storage, either owned (64-byte aligned) or a read-only view of bytes someone
// else keeps alive (an initializer inside the model or its memory-mapped
// external data file). Copying a Tensor shares its storage.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/onnx.h"

namespace winml::model {
class Model;
struct TensorFile;
}  // namespace winml::model

namespace winml::runtime {

using DataType = std::int32_t;  // onnx::TensorProto::DataType
using Shape = std::vector<std::int64_t>;

std::size_t dtype_size(DataType t);  // 0 for STRING/UNDEFINED and the 4-bit types (two to a byte)
std::string dtype_name(DataType t);  // "float32", "int64", ...
std::int64_t shape_size(const Shape& s);
std::string shape_string(const Shape& s);  // "[1,3,224,224]"

class Tensor {
 public:
  Tensor() = default;  // undefined: an absent optional value

  // Owned storage, 64-byte aligned; contents uninitialized / zero-filled.
  static Tensor allocate(DataType dtype, Shape shape);
  static Tensor zeros(DataType dtype, Shape shape);
  // Read-only view of `data`; `keepalive` (may be null) owns the bytes.
  static Tensor view(DataType dtype, Shape shape, const void* data, std::shared_ptr<const void> keepalive);
  // Writable storage owned elsewhere (a run's memory arena).
  static Tensor borrow(DataType dtype, Shape shape, void* data, std::shared_ptr<const void> keepalive);
  // Scalars and small vectors (tests, kernels).
  template <typename T>
  static Tensor from_vector(DataType dtype, Shape shape, const std::vector<T>& values);

  bool defined() const { return dtype_ != 0; }
  DataType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  std::int64_t dim(int axis) const { return shape_[static_cast<std::size_t>(axis)]; }
  std::int64_t size() const { return shape_size(shape_); }
  std::size_t bytes() const;  // 4-bit types packed two to a byte
  bool writable() const { return writable_; }

  const std::byte* raw() const { return data_; }
  std::byte* mutable_raw();  // throws for read-only views
  template <typename T>
  const T* data() const {
    return reinterpret_cast<const T*>(data_);
  }
  template <typename T>
  T* mutable_data() {
    return reinterpret_cast<T*>(mutable_raw());
  }

  // Same storage, another shape of equal element count.
  Tensor reshaped(Shape shape) const;
  // An owned, writable deep copy.
  Tensor clone() const;
  // True when both tensors have the same type, shape and bytes.
  bool same_as(const Tensor& other) const;

 private:
  DataType dtype_ = 0;
  Shape shape_;
  std::byte* data_ = nullptr;
  bool writable_ = false;
  std::shared_ptr<const void> storage_;
};

// Conversions. Views are used where the bytes allow it (suitably aligned
// raw_data or external data); otherwise the payload is copied.
Tensor from_tensor_file(const model::TensorFile& f);
model::TensorFile to_tensor_file(const Tensor& t);
// `model` resolves external data; it (and its mappings) must outlive the view.
Tensor from_proto(const onnx::TensorProto& t, const model::Model* model = nullptr);
Tensor copy_from_proto(const onnx::TensorProto& t, const model::Model* model = nullptr);
onnx::TensorProto to_proto(const Tensor& t, const std::string& name);

// float <-> bfloat16 (round to nearest even); float16 is base/half.h.
float bfloat16_to_float(std::uint16_t b);
std::uint16_t float_to_bfloat16(float f);

}  // namespace winml::runtime

namespace winml::runtime {
template <typename T>
Tensor Tensor::from_vector(DataType dtype, Shape shape, const std::vector<T>& values) {
  Tensor t = allocate(dtype, std::move(shape));
  T* out = t.mutable_data<T>();
  for (std::size_t i = 0; i < values.size() && static_cast<std::int64_t>(i) < t.size(); ++i) out[i] = values[i];
  return t;
}
}  // namespace winml::runtime
