#include "remote/wire_format.h"

#include <cstring>

namespace winml::remote::wire {

void Writer::raw_varint(std::uint64_t v) {
  while (v >= 0x80) {
    out_ += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out_ += static_cast<char>(v);
}

void Writer::varint(int field, std::uint64_t value) {
  raw_varint(static_cast<std::uint64_t>(field) << 3 | static_cast<std::uint64_t>(WireType::kVarint));
  raw_varint(value);
}

void Writer::bytes(int field, std::string_view value) {
  raw_varint(static_cast<std::uint64_t>(field) << 3 | static_cast<std::uint64_t>(WireType::kLengthDelimited));
  raw_varint(value.size());
  out_.append(value);
}

std::optional<std::uint64_t> Reader::raw_varint() {
  std::uint64_t v = 0;
  for (int shift = 0; shift < 64 && pos_ < data_.size(); shift += 7) {
    const auto byte = static_cast<std::uint8_t>(data_[pos_++]);
    v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return v;
  }
  return std::nullopt;  // truncated, or longer than ten bytes
}

bool Reader::next(Field& f) {
  if (!ok_ || pos_ == data_.size()) return false;
  ok_ = false;
  const auto tag = raw_varint();
  if (!tag || (*tag >> 3) == 0 || (*tag >> 3) > 0x1fffffff) return false;
  f.number = static_cast<int>(*tag >> 3);
  f.bytes = {};
  f.value = 0;
  switch (*tag & 7) {
    case 0: {
      const auto v = raw_varint();
      if (!v) return false;
      f.type = WireType::kVarint;
      f.value = *v;
      break;
    }
    case 1:
    case 5: {
      const std::size_t n = (*tag & 7) == 1 ? 8 : 4;
      if (data_.size() - pos_ < n) return false;
      f.type = n == 8 ? WireType::kFixed64 : WireType::kFixed32;
      std::memcpy(&f.value, data_.data() + pos_, n);  // little-endian, as the format is
      pos_ += n;
      break;
    }
    case 2: {
      const auto n = raw_varint();
      if (!n || *n > data_.size() - pos_) return false;
      f.type = WireType::kLengthDelimited;
      f.bytes = data_.substr(pos_, static_cast<std::size_t>(*n));
      pos_ += static_cast<std::size_t>(*n);
      break;
    }
    default: return false;  // groups (deprecated) and reserved wire types
  }
  ok_ = true;
  return true;
}

}  // namespace winml::remote::wire
