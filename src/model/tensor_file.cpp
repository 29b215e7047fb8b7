#include "model/tensor_file.h"

#include <charconv>
#include <cstring>
#include <map>

#include "base/atomic_file.h"
#include "base/checked_size.h"
#include "base/error.h"
#include "model/tensor_data.h"
#include "base/path_text.h"

namespace winml::model {

namespace fs = std::filesystem;

std::int64_t TensorFile::element_count() const {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

namespace {

const std::map<std::string, std::int32_t>& npy_types() {
  using T = onnx::TensorProto;
  static const std::map<std::string, std::int32_t> m = {
      {"f4", T::FLOAT},  {"f8", T::DOUBLE}, {"f2", T::FLOAT16}, {"i1", T::INT8},  {"u1", T::UINT8},  {"i2", T::INT16},
      {"u2", T::UINT16}, {"i4", T::INT32},  {"u4", T::UINT32},  {"i8", T::INT64}, {"u8", T::UINT64}, {"b1", T::BOOL}};
  return m;
}

// Value of `key` in the header dict: "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 3), }".
// The value of `key` in the header's Python dict literal, or "" when the
// key, its colon or its value's end is missing (a damaged header).
std::string dict_value(const std::string& header, const std::string& key) {
  const auto k = header.find("'" + key + "'");
  if (k == std::string::npos) return "";
  const auto colon = header.find(':', k);
  if (colon == std::string::npos) return "";
  const auto start = header.find_first_not_of(' ', colon + 1);
  if (start == std::string::npos) return "";
  auto until = [&](std::size_t from, const char* ends, std::size_t keep) -> std::string {
    const auto end = header.find_first_of(ends, from);
    return end == std::string::npos ? "" : header.substr(from - keep, end - from + keep + (keep ? 1 : 0));
  };
  if (header[start] == '(') return until(start + 1, ")", 1);
  if (header[start] == '\'') return until(start + 1, "'", 0);
  return until(start, ",}", 0);
}

}  // namespace

TensorFile read_npy(const fs::path& path) {
  std::string bytes = read_file(path);
  auto bad = [&](const std::string& why) {
    return InputError(file_error(to_utf8(path), "not a usable .npy file: " + why));
  };
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) throw bad("missing the NumPy magic");
  int major = static_cast<unsigned char>(bytes[6]);
  std::size_t header_len, offset;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    offset = 10;
  } else {
    if (bytes.size() < 12) throw bad("truncated header");
    header_len = 0;
    for (int i = 0; i < 4; ++i)
      header_len |= static_cast<std::size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    offset = 12;
  }
  if (offset + header_len > bytes.size()) throw bad("truncated header");
  std::string header = bytes.substr(offset, header_len);
  std::string descr = dict_value(header, "descr");
  if (dict_value(header, "fortran_order") != "False") throw bad("Fortran-ordered arrays are not supported");
  if (descr.size() != 3 || (descr[0] != '<' && descr[0] != '|'))
    throw bad("unsupported dtype '" + descr + "' (little-endian numeric only)");
  auto it = npy_types().find(descr.substr(1));
  if (it == npy_types().end()) throw bad("unsupported dtype '" + descr + "'");
  TensorFile t;
  t.dtype = it->second;
  std::string shape = dict_value(header, "shape");
  for (std::size_t i = 1; i < shape.size();) {
    std::size_t end = shape.find_first_of(",)", i);
    std::string num = shape.substr(i, end - i);
    num.erase(0, num.find_first_not_of(' '));
    if (!num.empty()) {
      std::int64_t d = 0;
      auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), d);
      if (ec != std::errc() || p != num.data() + num.size() || d < 0) throw bad("has a bad shape '" + shape + "'");
      t.shape.push_back(d);
    }
    if (end == std::string::npos) break;
    i = end + 1;
  }
  const auto size = checked_byte_size(t.shape, element_size(t.dtype));
  if (!size) throw bad("has a shape of more than 2^64 bytes");
  const std::size_t expected = *size;
  std::size_t data_at = offset + header_len;
  if (bytes.size() - data_at != expected)
    throw bad("holds " + std::to_string(bytes.size() - data_at) + " data bytes, its shape needs " +
              std::to_string(expected));
  t.data.resize(expected);
  if (expected) std::memcpy(t.data.data(), bytes.data() + data_at, expected);  // an empty tensor has no buffer
  return t;
}

void write_npy(const fs::path& path, const TensorFile& t) {
  std::string descr;
  for (const auto& [k, v] : npy_types())
    if (v == t.dtype) descr = (k[1] == '1' ? "|" : "<") + k;
  if (descr.empty())
    throw BuildError(file_error(to_utf8(path), "cannot write " + data_type_name(t.dtype) + " as .npy"));
  // Python tuple syntax: "()", "(3,)", "(1, 3)".
  std::string shape = "(";
  for (std::size_t i = 0; i < t.shape.size(); ++i) shape += (i ? ", " : "") + std::to_string(t.shape[i]);
  shape += t.shape.size() == 1 ? ",)" : ")";
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out.append(reinterpret_cast<const char*>(t.data.data()), t.data.size());
  write_file_atomic(path, out);
}

TensorFile from_proto(const onnx::TensorProto& p) {
  TensorFile t;
  t.dtype = p.data_type();
  t.shape.assign(p.dims().begin(), p.dims().end());
  TensorBytes b = inline_tensor_bytes(p);
  t.data.assign(b.bytes.begin(), b.bytes.end());
  return t;
}

TensorFile read_tensor_pb(const fs::path& path) {
  onnx::TensorProto p;
  std::string bytes = read_file(path);
  if (!p.ParseFromString(bytes)) throw InputError(file_error(to_utf8(path), "not a serialized onnx.TensorProto"));
  if (p.data_location() == onnx::TensorProto::EXTERNAL)
    throw InputError(file_error(to_utf8(path), "tensor files with external data are not supported"));
  if (element_size(p.data_type()) == 0)
    throw InputError(file_error(to_utf8(path), "unsupported element type " + data_type_name(p.data_type())));
  const auto size = checked_byte_size(p.dims(), element_size(p.data_type()));
  if (!size) throw InputError(file_error(to_utf8(path), "has a negative dimension or a shape of more than 2^64 bytes"));
  TensorFile t = from_proto(p);
  if (t.data.size() != *size) throw InputError(file_error(to_utf8(path), "tensor data does not match its shape"));
  return t;
}

TensorFile read_tensor_file(const fs::path& path) {
  if (path.extension() == ".npy") return read_npy(path);
  if (path.extension() == ".pb") return read_tensor_pb(path);
  throw InputError(file_error(to_utf8(path), "unknown tensor file type (expected .npy or .pb)"));
}

}  // namespace winml::model
