// Little-endian encoding of the `ref` blob's metadata: fixed-width integers,
// length-prefixed strings and arrays. The reader checks every length against
// what is left, so a damaged or hostile blob fails with a message instead of
// reading out of bounds.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace winml::runtime::ref_blob {

class ByteWriter {
 public:
  void u8(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u32(std::uint32_t v);
  void i32(std::int32_t v) { u32(static_cast<std::uint32_t>(v)); }
  void u64(std::uint64_t v);
  void i64(std::int64_t v) { u64(static_cast<std::uint64_t>(v)); }
  void bytes(std::string_view s);  // u64 length + bytes
  void raw(std::string_view s) { out_.append(s); }
  void ints(const std::vector<int>& v);
  void i64s(const std::vector<std::int64_t>& v);
  void strings(const std::vector<std::string>& v);

  const std::string& data() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class ByteReader {
 public:
  // `what` names the data in errors ("<file>: ref blob metadata").
  ByteReader(std::string_view data, std::string what) : data_(data), what_(std::move(what)) {}

  std::uint8_t u8();
  std::uint32_t u32();
  std::int32_t i32() { return static_cast<std::int32_t>(u32()); }
  std::uint64_t u64();
  std::int64_t i64() { return static_cast<std::int64_t>(u64()); }
  std::string_view bytes();
  std::string string() { return std::string(bytes()); }
  std::vector<int> ints();
  std::vector<std::int64_t> i64s();
  std::vector<std::string> strings();
  // A count of items that each take at least `min_item_bytes`: refused when
  // the data left cannot hold that many (guards huge allocations).
  std::size_t count(std::size_t min_item_bytes);

  bool at_end() const { return pos_ == data_.size(); }
  [[noreturn]] void fail(const std::string& message) const;

 private:
  std::string_view take(std::size_t n);

  std::string_view data_;
  std::size_t pos_ = 0;
  std::string what_;
};

}  // namespace winml::runtime::ref_blob
