#include "model/tensor_values.h"

#include <cstring>

#include "base/error.h"
#include "base/half.h"
#include "model/external_data.h"
#include "model/tensor_data.h"

namespace winml::model {

using onnx::TensorProto;

std::optional<TensorProto> constant_node_tensor(const onnx::NodeProto& n) {
  for (const auto& a : n.attribute()) {
    if (a.name() == "value" && a.has_t()) return a.t();
    if (a.name() == "value_float") return make_floats("", {}, {a.f()});
    if (a.name() == "value_floats") return make_floats("", {a.floats_size()}, {a.floats().begin(), a.floats().end()});
    if (a.name() == "value_int") return make_int64s("", {}, {a.i()});
    if (a.name() == "value_ints") return make_int64s("", {a.ints_size()}, {a.ints().begin(), a.ints().end()});
  }
  return std::nullopt;
}

namespace {
template <typename T>
T load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
}  // namespace

std::optional<std::vector<float>> read_floats(const Model& m, const TensorProto& t) {
  auto dt = t.data_type();
  if (dt != TensorProto::FLOAT && dt != TensorProto::DOUBLE && dt != TensorProto::FLOAT16) return std::nullopt;
  auto bytes = m.tensor_bytes(t);
  std::size_t es = element_size(dt), n = bytes.bytes.size() / es;
  if (static_cast<std::int64_t>(n) != element_count(t)) return std::nullopt;
  std::vector<float> out(n);
  const std::byte* p = bytes.bytes.data();
  for (std::size_t i = 0; i < n; ++i) {
    if (dt == TensorProto::FLOAT) out[i] = load<float>(p + i * 4);
    else if (dt == TensorProto::DOUBLE) out[i] = static_cast<float>(load<double>(p + i * 8));
    else out[i] = half_to_float(load<std::uint16_t>(p + i * 2));
  }
  return out;
}

std::optional<std::vector<std::int64_t>> read_ints(const Model& m, const TensorProto& t) {
  auto dt = t.data_type();
  switch (dt) {
    case TensorProto::INT64:
    case TensorProto::INT32:
    case TensorProto::INT16:
    case TensorProto::INT8:
    case TensorProto::UINT64:
    case TensorProto::UINT32:
    case TensorProto::UINT16:
    case TensorProto::UINT8:
    case TensorProto::BOOL: break;
    default: return std::nullopt;
  }
  auto bytes = m.tensor_bytes(t);
  std::size_t es = element_size(dt), n = bytes.bytes.size() / es;
  if (static_cast<std::int64_t>(n) != element_count(t)) return std::nullopt;
  std::vector<std::int64_t> out(n);
  const std::byte* p = bytes.bytes.data();
  for (std::size_t i = 0; i < n; ++i) {
    const std::byte* e = p + i * es;
    switch (dt) {
      case TensorProto::INT64: out[i] = load<std::int64_t>(e); break;
      case TensorProto::INT32: out[i] = load<std::int32_t>(e); break;
      case TensorProto::INT16: out[i] = load<std::int16_t>(e); break;
      case TensorProto::INT8: out[i] = load<std::int8_t>(e); break;
      case TensorProto::UINT64: out[i] = static_cast<std::int64_t>(load<std::uint64_t>(e)); break;
      case TensorProto::UINT32: out[i] = load<std::uint32_t>(e); break;
      case TensorProto::UINT16: out[i] = load<std::uint16_t>(e); break;
      default: out[i] = load<std::uint8_t>(e); break;
    }
  }
  return out;
}

std::optional<double> read_scalar(const Model& m, const TensorProto& t) {
  if (element_count(t) != 1) return std::nullopt;
  if (auto f = read_floats(m, t)) {
    // float64 keeps its precision for comparisons of constants.
    if (t.data_type() == TensorProto::DOUBLE) return load<double>(m.tensor_bytes(t).bytes.data());
    return (*f)[0];
  }
  if (auto i = read_ints(m, t)) return static_cast<double>((*i)[0]);
  return std::nullopt;
}

std::vector<float> float32_values(const Model& m, const TensorProto& t) {
  if (t.data_type() != TensorProto::FLOAT)
    throw BuildError("tensor '" + t.name() + "' is " + data_type_name(t.data_type()) + ", not float32");
  TensorBytes b = m.tensor_bytes(t);
  auto n = static_cast<std::size_t>(element_count(t));
  if (b.bytes.size() != n * sizeof(float))
    throw BuildError("tensor '" + t.name() + "' holds " + std::to_string(b.bytes.size()) + " bytes for " +
                     std::to_string(n) + " floats");
  std::vector<float> v(n);
  if (n) std::memcpy(v.data(), b.bytes.data(), n * sizeof(float));
  return v;
}

TensorProto make_tensor(const std::string& name, std::int32_t data_type, const std::vector<std::int64_t>& dims,
                        std::span<const std::byte> data) {
  TensorProto t;
  t.set_name(name);
  t.set_data_type(data_type);
  for (auto d : dims) t.add_dims(d);
  set_raw_data(t, data.data(), data.size());
  return t;
}

TensorProto make_floats(const std::string& name, const std::vector<std::int64_t>& dims,
                        const std::vector<float>& values) {
  return make_tensor(name, TensorProto::FLOAT, dims, std::as_bytes(std::span(values)));
}

TensorProto make_int64s(const std::string& name, const std::vector<std::int64_t>& dims,
                        const std::vector<std::int64_t>& values) {
  return make_tensor(name, TensorProto::INT64, dims, std::as_bytes(std::span(values)));
}

TensorProto make_ints(const std::string& name, std::int32_t type, const std::vector<std::int64_t>& dims,
                      std::span<const std::int32_t> values) {
  if (is_four_bit(type)) {  // two to a byte, low nibble first
    std::vector<std::byte> packed((values.size() + 1) / 2, std::byte{0});
    for (std::size_t i = 0; i < values.size(); ++i)
      packed[i / 2] |= static_cast<std::byte>((values[i] & 15) << (4 * (i % 2)));
    return make_tensor(name, type, dims, packed);
  }
  std::size_t size = element_size(type);
  std::vector<std::byte> data(values.size() * size);
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::int32_t v = values[i];
    switch (type) {
      case TensorProto::UINT8: {
        auto x = static_cast<std::uint8_t>(v);
        std::memcpy(&data[i], &x, 1);
        break;
      }
      case TensorProto::INT8: {
        auto x = static_cast<std::int8_t>(v);
        std::memcpy(&data[i], &x, 1);
        break;
      }
      case TensorProto::UINT16: {
        auto x = static_cast<std::uint16_t>(v);
        std::memcpy(&data[2 * i], &x, 2);
        break;
      }
      case TensorProto::INT16: {
        auto x = static_cast<std::int16_t>(v);
        std::memcpy(&data[2 * i], &x, 2);
        break;
      }
      case TensorProto::INT32: std::memcpy(&data[4 * i], &v, 4); break;
      default: throw BuildError("cannot store integers as " + data_type_name(type));
    }
  }
  return make_tensor(name, type, dims, data);
}

}  // namespace winml::model
