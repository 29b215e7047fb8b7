#include "runtime/tensor.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "base/error.h"
#include "model/external_data.h"
#include "model/model.h"
#include "model/tensor_data.h"
#include "model/tensor_file.h"
#include "runtime/buffer_cache.h"
#include "runtime/errors.h"
#include "base/path_text.h"

namespace winml::runtime {

std::size_t dtype_size(DataType t) {
  if (t == onnx::TensorProto::STRING) return 0;
  return model::element_size(t);
}

std::string dtype_name(DataType t) { return model::data_type_name(t); }

std::int64_t shape_size(const Shape& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

std::string shape_string(const Shape& s) {
  std::string r = "[";
  for (std::size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}

namespace {

void check_storable(DataType dtype, const Shape& shape) {
  if (dtype == onnx::TensorProto::STRING || !model::has_fixed_size(dtype)) throw UnsupportedError("tensors of type " + dtype_name(dtype) + " are not supported");
  for (auto d : shape)
    if (d < 0) throw InputError("negative dimension in shape " + shape_string(shape));
}

}  // namespace

std::size_t Tensor::bytes() const {
  return static_cast<std::size_t>(model::storage_bytes(dtype_, static_cast<std::uint64_t>(size())));
}

Tensor Tensor::allocate(DataType dtype, Shape shape) {
  check_storable(dtype, shape);
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  auto buffer = cached_buffer(t.bytes());
  t.data_ = static_cast<std::byte*>(buffer.get());
  t.storage_ = std::move(buffer);
  t.writable_ = true;
  return t;
}

Tensor Tensor::zeros(DataType dtype, Shape shape) {
  Tensor t = allocate(dtype, std::move(shape));
  std::memset(t.data_, 0, t.bytes());
  return t;
}

Tensor Tensor::view(DataType dtype, Shape shape, const void* data, std::shared_ptr<const void> keepalive) {
  check_storable(dtype, shape);
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.data_ = const_cast<std::byte*>(static_cast<const std::byte*>(data));
  t.storage_ = std::move(keepalive);
  t.writable_ = false;
  return t;
}

Tensor Tensor::borrow(DataType dtype, Shape shape, void* data, std::shared_ptr<const void> keepalive) {
  Tensor t = view(dtype, std::move(shape), data, std::move(keepalive));
  t.writable_ = true;
  return t;
}

std::byte* Tensor::mutable_raw() {
  if (!writable_) throw std::logic_error("runtime: writing to a read-only tensor");
  return data_;
}

Tensor Tensor::reshaped(Shape shape) const {
  if (shape_size(shape) != size())
    throw InputError("cannot reshape " + shape_string(shape_) + " to " + shape_string(shape));
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

Tensor Tensor::clone() const {
  Tensor t = allocate(dtype_, shape_);
  if (bytes()) std::memcpy(t.data_, data_, bytes());
  return t;
}

bool Tensor::same_as(const Tensor& o) const {
  return dtype_ == o.dtype_ && shape_ == o.shape_ && (bytes() == 0 || std::memcmp(data_, o.data_, bytes()) == 0);
}

Tensor from_tensor_file(const model::TensorFile& f) {
  Tensor t = Tensor::allocate(f.dtype, f.shape);
  if (f.data.size() != t.bytes())
    throw InputError("tensor data has " + std::to_string(f.data.size()) + " bytes, shape " + shape_string(f.shape) +
                     " of " + dtype_name(f.dtype) + " needs " + std::to_string(t.bytes()));
  if (t.bytes()) std::memcpy(t.mutable_raw(), f.data.data(), t.bytes());
  return t;
}

model::TensorFile to_tensor_file(const Tensor& t) {
  model::TensorFile f;
  f.dtype = t.dtype();
  f.shape = t.shape();
  f.data.assign(t.raw(), t.raw() + t.bytes());
  return f;
}

namespace {

Shape proto_shape(const onnx::TensorProto& p) { return Shape(p.dims().begin(), p.dims().end()); }

// The external file's mapping, to keep it alive as long as views of it.
std::shared_ptr<const void> external_keepalive(const onnx::TensorProto& p, const model::Model& m) {
  auto ref = model::read_external_ref(p, to_utf8(m.path));
  auto it = m.external_files.find(ref.location);
  return it == m.external_files.end() ? nullptr : it->second;
}

}  // namespace

Tensor from_proto(const onnx::TensorProto& p, const model::Model* m) {
  Shape shape = proto_shape(p);
  DataType dtype = p.data_type();
  check_storable(dtype, shape);
  model::TensorBytes b;
  std::shared_ptr<const void> keepalive;
  if (model::is_external(p)) {
    if (!m) throw InputError("tensor '" + p.name() + "' uses external data but no model was given to resolve it");
    b = m->tensor_bytes(p);
    keepalive = external_keepalive(p, *m);
  } else {
    b = model::inline_tensor_bytes(p);
  }
  std::size_t want = static_cast<std::size_t>(model::storage_bytes(dtype, static_cast<std::uint64_t>(shape_size(shape))));
  if (b.bytes.size() != want)
    throw InputError("tensor '" + p.name() + "' has " + std::to_string(b.bytes.size()) + " bytes of data, shape " +
                     shape_string(shape) + " of " + dtype_name(dtype) + " needs " + std::to_string(want));
  if (!b.owned.empty()) {
    auto owned = std::make_shared<std::vector<std::byte>>(std::move(b.owned));
    return Tensor::view(dtype, shape, owned->data(), owned);
  }
  // Kernels read elements through typed pointers: misaligned bytes are copied.
  if (reinterpret_cast<std::uintptr_t>(b.bytes.data()) % std::max<std::size_t>(dtype_size(dtype), 1) != 0) {
    Tensor t = Tensor::allocate(dtype, shape);
    if (want) std::memcpy(t.mutable_raw(), b.bytes.data(), want);
    return t;
  }
  return Tensor::view(dtype, shape, b.bytes.data(), keepalive);
}

Tensor copy_from_proto(const onnx::TensorProto& p, const model::Model* m) { return from_proto(p, m).clone(); }

onnx::TensorProto to_proto(const Tensor& t, const std::string& name) {
  onnx::TensorProto p;
  p.set_name(name);
  p.set_data_type(t.dtype());
  for (auto d : t.shape()) p.add_dims(d);
  p.set_raw_data(t.raw(), t.bytes());
  return p;
}

float bfloat16_to_float(std::uint16_t b) {
  std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

std::uint16_t float_to_bfloat16(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40);  // quiet nan
  x += 0x7fffu + ((x >> 16) & 1);
  return static_cast<std::uint16_t>(x >> 16);
}

}  // namespace winml::runtime
