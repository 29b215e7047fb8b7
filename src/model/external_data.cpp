#include "model/external_data.h"

#include <charconv>

#include "base/error.h"

namespace winml::model {

namespace {
std::uint64_t parse_u64(const std::string& value, const std::string& key, const onnx::TensorProto& t,
                        const std::string& model_path) {
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || p != value.data() + value.size())
    throw InputError(file_error(
        model_path, "tensor '" + t.name() + "' has a non-numeric external data " + key + " '" + value + "'"));
  return v;
}
}  // namespace

ExternalDataRef read_external_ref(const onnx::TensorProto& t, const std::string& model_path) {
  ExternalDataRef r;
  bool has_location = false;
  for (const auto& kv : t.external_data()) {
    if (kv.key() == "location") r.location = kv.value(), has_location = true;
    else if (kv.key() == "offset") r.offset = parse_u64(kv.value(), "offset", t, model_path);
    else if (kv.key() == "length") r.length = parse_u64(kv.value(), "length", t, model_path);
  }
  if (!has_location || r.location.empty())
    throw InputError(file_error(model_path, "tensor '" + t.name() + "' is external but has no location"));
  return r;
}

void set_external_ref(onnx::TensorProto& t, const std::string& location, std::uint64_t offset, std::uint64_t length) {
  t.clear_raw_data();
  t.clear_float_data();
  t.clear_int32_data();
  t.clear_int64_data();
  t.clear_double_data();
  t.clear_uint64_data();
  t.clear_external_data();
  t.set_data_location(onnx::TensorProto::EXTERNAL);
  auto add = [&](const char* k, const std::string& v) {
    auto* e = t.add_external_data();
    e->set_key(k);
    e->set_value(v);
  };
  add("location", location);
  add("offset", std::to_string(offset));
  add("length", std::to_string(length));
}

void set_raw_data(onnx::TensorProto& t, const void* data, std::size_t size) {
  t.clear_float_data();
  t.clear_int32_data();
  t.clear_int64_data();
  t.clear_double_data();
  t.clear_uint64_data();
  t.clear_external_data();
  t.clear_data_location();
  t.set_raw_data(data, size);
}

}  // namespace winml::model
