#include "model/tensor_data.h"

#include <cstring>
#include <map>

#include "base/error.h"

namespace winml::model {

using onnx::TensorProto;

std::size_t element_size(int32_t dt) {
  switch (dt) {
    case TensorProto::FLOAT:
    case TensorProto::INT32:
    case TensorProto::UINT32: return 4;
    case TensorProto::DOUBLE:
    case TensorProto::INT64:
    case TensorProto::UINT64:
    case TensorProto::COMPLEX64: return 8;
    case TensorProto::COMPLEX128: return 16;
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16:
    case TensorProto::INT16:
    case TensorProto::UINT16: return 2;
    case TensorProto::INT8:
    case TensorProto::UINT8:
    case TensorProto::BOOL: return 1;
    // FLOAT8 variants (IR 9): one byte each.
    case 17:
    case 18:
    case 19:
    case 20: return 1;
    default: return 0;
  }
}

bool is_four_bit(int32_t dt) { return dt == kInt4 || dt == kUint4; }

bool has_fixed_size(int32_t dt) { return element_size(dt) != 0 || is_four_bit(dt); }

std::uint64_t storage_bytes(int32_t dt, std::uint64_t count) {
  if (is_four_bit(dt)) return (count + 1) / 2;
  return count * element_size(dt);
}

namespace {
const std::map<int32_t, std::string>& type_names() {
  static const std::map<int32_t, std::string> m = {{TensorProto::FLOAT, "float32"},
                                                   {TensorProto::UINT8, "uint8"},
                                                   {TensorProto::INT8, "int8"},
                                                   {TensorProto::UINT16, "uint16"},
                                                   {TensorProto::INT16, "int16"},
                                                   {TensorProto::INT32, "int32"},
                                                   {TensorProto::INT64, "int64"},
                                                   {TensorProto::STRING, "string"},
                                                   {TensorProto::BOOL, "bool"},
                                                   {TensorProto::FLOAT16, "float16"},
                                                   {TensorProto::DOUBLE, "float64"},
                                                   {TensorProto::UINT32, "uint32"},
                                                   {TensorProto::UINT64, "uint64"},
                                                   {TensorProto::COMPLEX64, "complex64"},
                                                   {TensorProto::COMPLEX128, "complex128"},
                                                   {TensorProto::BFLOAT16, "bfloat16"},
                                                   {17, "float8e4m3fn"},
                                                   {18, "float8e4m3fnuz"},
                                                   {19, "float8e5m2"},
                                                   {20, "float8e5m2fnuz"},
                                                   {kUint4, "uint4"},
                                                   {kInt4, "int4"}};
  return m;
}
}  // namespace

std::string data_type_name(int32_t dt) {
  auto it = type_names().find(dt);
  return it == type_names().end() ? "type" + std::to_string(dt) : it->second;
}

int32_t data_type_from_name(const std::string& name) {
  for (const auto& [k, v] : type_names())
    if (v == name) return k;
  if (name == "float") return TensorProto::FLOAT;
  if (name == "double") return TensorProto::DOUBLE;
  return 0;
}

std::int64_t element_count(const TensorProto& t) {
  std::int64_t n = 1;
  for (auto d : t.dims()) n *= d;
  return n;
}

bool is_external(const TensorProto& t) { return t.data_location() == TensorProto::EXTERNAL; }

std::uint64_t payload_size(const TensorProto& t) {
  if (is_external(t)) {
    for (const auto& kv : t.external_data())
      if (kv.key() == "length") return std::stoull(kv.value());
    return storage_bytes(t.data_type(), static_cast<std::uint64_t>(element_count(t)));
  }
  if (t.has_raw_data()) return t.raw_data().size();
  if (t.data_type() == TensorProto::STRING) {
    std::uint64_t n = 0;
    for (const auto& s : t.string_data()) n += s.size();
    return n;
  }
  return storage_bytes(t.data_type(), static_cast<std::uint64_t>(element_count(t)));
}

namespace {
template <typename Dst, typename Field>
void convert_field(const Field& field, std::vector<std::byte>& out) {
  out.resize(static_cast<std::size_t>(field.size()) * sizeof(Dst));
  for (int i = 0; i < field.size(); ++i) {
    Dst v = static_cast<Dst>(field.Get(i));
    std::memcpy(out.data() + static_cast<std::size_t>(i) * sizeof(Dst), &v, sizeof(Dst));
  }
}
}  // namespace

TensorBytes inline_tensor_bytes(const TensorProto& t) {
  TensorBytes r;
  if (t.has_raw_data()) {
    r.bytes = std::as_bytes(std::span(t.raw_data().data(), t.raw_data().size()));
    return r;
  }
  switch (t.data_type()) {
    case TensorProto::FLOAT: convert_field<float>(t.float_data(), r.owned); break;
    case TensorProto::DOUBLE: convert_field<double>(t.double_data(), r.owned); break;
    case TensorProto::INT64: convert_field<int64_t>(t.int64_data(), r.owned); break;
    case TensorProto::UINT32: convert_field<uint32_t>(t.uint64_data(), r.owned); break;
    case TensorProto::UINT64: convert_field<uint64_t>(t.uint64_data(), r.owned); break;
    case TensorProto::INT32: convert_field<int32_t>(t.int32_data(), r.owned); break;
    case TensorProto::INT16: convert_field<int16_t>(t.int32_data(), r.owned); break;
    case TensorProto::UINT16:
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16: convert_field<uint16_t>(t.int32_data(), r.owned); break;
    case TensorProto::INT8: convert_field<int8_t>(t.int32_data(), r.owned); break;
    case TensorProto::UINT8:
    case TensorProto::BOOL:
    case 17:
    case 18:
    case 19:
    case 20: convert_field<uint8_t>(t.int32_data(), r.owned); break;
    case TensorProto::COMPLEX64: convert_field<float>(t.float_data(), r.owned); break;
    case TensorProto::COMPLEX128: convert_field<double>(t.double_data(), r.owned); break;
    default:
      throw InputError("tensor '" + t.name() + "' of type " + data_type_name(t.data_type()) +
                       " has no fixed-size byte representation");
  }
  r.bytes = std::span<const std::byte>(r.owned.data(), r.owned.size());
  return r;
}

}  // namespace winml::model
