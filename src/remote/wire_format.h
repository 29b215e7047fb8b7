// Protocol Buffers' wire format, as much as an ActionResult needs: varints
// and length-delimited fields written in field-number order (the bytes
// libprotobuf writes for the same message), and a reader that walks any
// message, so fields a server adds are skipped, never refused. Hand-written
// so that the binary doing no-op builds never loads libprotobuf.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace winml::remote::wire {

enum class WireType : std::uint8_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

// Appends fields to a message. proto3: callers leave out fields holding
// their default (0, false, empty), as the generated code does.
class Writer {
 public:
  void varint(int field, std::uint64_t value);
  void bytes(int field, std::string_view value);
  const std::string& data() const { return out_; }

 private:
  void raw_varint(std::uint64_t v);
  std::string out_;
};

struct Field {
  int number = 0;
  WireType type = WireType::kVarint;
  std::uint64_t value = 0;  // varint and fixed types
  std::string_view bytes;   // length-delimited
};

// Walks the fields of one message. next() is false at the end and on
// malformed input; ok() then tells which.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  bool next(Field& f);
  bool ok() const { return ok_; }

 private:
  std::optional<std::uint64_t> raw_varint();
  std::string_view data_;
  std::size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace winml::remote::wire
