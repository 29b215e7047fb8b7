#include "passes/tensor_util.h"

#include <cstring>

#include "base/half.h"
#include "model/external_data.h"
#include "model/tensor_data.h"

namespace winml::passes {

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

std::optional<std::vector<float>> read_floats(const model::Model& m, const TensorProto& t) {
  auto dt = t.data_type();
  if (dt != TensorProto::FLOAT && dt != TensorProto::DOUBLE && dt != TensorProto::FLOAT16) return std::nullopt;
  auto bytes = m.tensor_bytes(t);
  std::size_t es = model::element_size(dt), n = bytes.bytes.size() / es;
  if (static_cast<std::int64_t>(n) != model::element_count(t)) return std::nullopt;
  std::vector<float> out(n);
  const std::byte* p = bytes.bytes.data();
  for (std::size_t i = 0; i < n; ++i) {
    if (dt == TensorProto::FLOAT) out[i] = load<float>(p + i * 4);
    else if (dt == TensorProto::DOUBLE) out[i] = static_cast<float>(load<double>(p + i * 8));
    else out[i] = half_to_float(load<std::uint16_t>(p + i * 2));
  }
  return out;
}

std::optional<std::vector<std::int64_t>> read_ints(const model::Model& m, const TensorProto& t) {
  auto dt = t.data_type();
  switch (dt) {
    case TensorProto::INT64: case TensorProto::INT32: case TensorProto::INT16: case TensorProto::INT8:
    case TensorProto::UINT64: case TensorProto::UINT32: case TensorProto::UINT16: case TensorProto::UINT8:
    case TensorProto::BOOL: break;
    default: return std::nullopt;
  }
  auto bytes = m.tensor_bytes(t);
  std::size_t es = model::element_size(dt), n = bytes.bytes.size() / es;
  if (static_cast<std::int64_t>(n) != model::element_count(t)) return std::nullopt;
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

std::optional<double> read_scalar(const model::Model& m, const TensorProto& t) {
  if (model::element_count(t) != 1) return std::nullopt;
  if (auto f = read_floats(m, t)) {
    // float64 keeps its precision for comparisons of constants.
    if (t.data_type() == TensorProto::DOUBLE) return load<double>(m.tensor_bytes(t).bytes.data());
    return (*f)[0];
  }
  if (auto i = read_ints(m, t)) return static_cast<double>((*i)[0]);
  return std::nullopt;
}

TensorProto make_tensor(const std::string& name, std::int32_t data_type, const std::vector<std::int64_t>& dims,
                        const void* data, std::size_t bytes) {
  TensorProto t;
  t.set_name(name);
  t.set_data_type(data_type);
  for (auto d : dims) t.add_dims(d);
  model::set_raw_data(t, data, bytes);
  return t;
}

TensorProto make_floats(const std::string& name, const std::vector<std::int64_t>& dims,
                        const std::vector<float>& values) {
  return make_tensor(name, TensorProto::FLOAT, dims, values.data(), values.size() * sizeof(float));
}

TensorProto make_int64s(const std::string& name, const std::vector<std::int64_t>& dims,
                        const std::vector<std::int64_t>& values) {
  return make_tensor(name, TensorProto::INT64, dims, values.data(), values.size() * sizeof(std::int64_t));
}

}  // namespace winml::passes
