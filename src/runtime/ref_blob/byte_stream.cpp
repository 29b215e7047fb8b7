#include "runtime/ref_blob/byte_stream.h"

#include <bit>
#include <cstring>

#include "base/error.h"

namespace winml::runtime::ref_blob {

static_assert(std::endian::native == std::endian::little, "the ref blob format is little-endian");

void ByteWriter::u32(std::uint32_t v) { out_.append(reinterpret_cast<const char*>(&v), sizeof v); }
void ByteWriter::u64(std::uint64_t v) { out_.append(reinterpret_cast<const char*>(&v), sizeof v); }

void ByteWriter::bytes(std::string_view s) {
  u64(s.size());
  out_.append(s);
}

void ByteWriter::ints(const std::vector<int>& v) {
  u32(static_cast<std::uint32_t>(v.size()));
  for (int x : v) i32(x);
}

void ByteWriter::i64s(const std::vector<std::int64_t>& v) {
  u32(static_cast<std::uint32_t>(v.size()));
  for (auto x : v) i64(x);
}

void ByteWriter::strings(const std::vector<std::string>& v) {
  u32(static_cast<std::uint32_t>(v.size()));
  for (const auto& s : v) bytes(s);
}

void ByteReader::fail(const std::string& message) const {
  throw InputError(what_ + " is corrupt: " + message + " (at byte " + std::to_string(pos_) + ")");
}

std::string_view ByteReader::take(std::size_t n) {
  if (n > data_.size() - pos_)
    fail("needs " + std::to_string(n) + " more bytes, " + std::to_string(data_.size() - pos_) + " left");
  std::string_view s = data_.substr(pos_, n);
  pos_ += n;
  return s;
}

std::uint8_t ByteReader::u8() { return static_cast<std::uint8_t>(take(1)[0]); }

std::uint32_t ByteReader::u32() {
  std::uint32_t v;
  std::memcpy(&v, take(sizeof v).data(), sizeof v);
  return v;
}

std::uint64_t ByteReader::u64() {
  std::uint64_t v;
  std::memcpy(&v, take(sizeof v).data(), sizeof v);
  return v;
}

std::string_view ByteReader::bytes() {
  std::uint64_t n = u64();
  if (n > data_.size() - pos_) fail("a field of " + std::to_string(n) + " bytes overruns the data");
  return take(static_cast<std::size_t>(n));
}

std::size_t ByteReader::count(std::size_t min_item_bytes) {
  std::uint32_t n = u32();
  if (min_item_bytes && n > (data_.size() - pos_) / min_item_bytes)
    fail("a count of " + std::to_string(n) + " overruns the data");
  return n;
}

std::vector<int> ByteReader::ints() {
  std::vector<int> v(count(4));
  for (auto& x : v) x = i32();
  return v;
}

std::vector<std::int64_t> ByteReader::i64s() {
  std::vector<std::int64_t> v(count(8));
  for (auto& x : v) x = i64();
  return v;
}

std::vector<std::string> ByteReader::strings() {
  std::vector<std::string> v(count(8));
  for (auto& s : v) s = string();
  return v;
}

}  // namespace winml::runtime::ref_blob
