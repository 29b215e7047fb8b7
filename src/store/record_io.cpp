#include "store/record_io.h"

#include <xxhash.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace winml::store {

namespace {

void hex16(std::uint64_t v, char* out) {
  static const char* digits = "0123456789abcdef";
  for (int i = 15; i >= 0; --i, v >>= 4) out[i] = digits[v & 15];
}

}  // namespace

RecordWriter& RecordWriter::field(std::string_view s) {
  if (!first_) payload_ += '\t';
  first_ = false;
  for (char c : s) {
    switch (c) {
      case '\\': payload_ += "\\\\"; break;
      case '\t': payload_ += "\\t"; break;
      case '\n': payload_ += "\\n"; break;
      case '\r': payload_ += "\\r"; break;
      default: payload_ += c;
    }
  }
  return *this;
}

RecordWriter& RecordWriter::field(std::uint64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return field(std::string_view(buf, r.ptr - buf));
}

RecordWriter& RecordWriter::field(std::int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return field(std::string_view(buf, r.ptr - buf));
}

RecordWriter& RecordWriter::field(double v) {
  char buf[32];
  int n = std::snprintf(buf, sizeof buf, "%.6f", v);
  return field(std::string_view(buf, static_cast<std::size_t>(n)));
}

void RecordWriter::finish(std::string& out) {
  char sum[16];
  hex16(XXH3_64bits(payload_.data(), payload_.size()), sum);
  out.append(sum, 16);
  out += ' ';
  out += payload_;
  out += '\n';
  payload_.clear();
  first_ = true;
}

bool RecordReader::next(std::vector<std::string_view>& fields) {
  fields.clear();
  std::string_view payload;
  for (;;) {
    if (corrupt_ || pos_ >= text_.size()) return false;
    std::size_t end = text_.find('\n', pos_);
    // A line without its newline is a torn append.
    bool ok = end != std::string_view::npos && end - pos_ >= 17 && text_[pos_ + 16] == ' ';
    if (ok) {
      payload = text_.substr(pos_ + 17, end - pos_ - 17);
      char sum[16];
      hex16(XXH3_64bits(payload.data(), payload.size()), sum);
      ok = std::memcmp(sum, text_.data() + pos_, 16) == 0;
    }
    if (ok) {
      pos_ = end + 1;
      break;
    }
    if (!skip_bad_ || end == std::string_view::npos) {
      corrupt_ = true;
      return false;
    }
    pos_ = end + 1;
  }
  const char* p = payload.data();
  const char* const e = p + payload.size();
  for (;;) {
    const char* tab = static_cast<const char*>(std::memchr(p, '\t', static_cast<std::size_t>(e - p)));
    if (!tab) {
      fields.emplace_back(p, static_cast<std::size_t>(e - p));
      break;
    }
    fields.emplace_back(p, static_cast<std::size_t>(tab - p));
    p = tab + 1;
  }
  return true;
}

std::string field_text(std::string_view f) {
  if (f.find('\\') == std::string_view::npos) return std::string(f);
  std::string out;
  out.reserve(f.size());
  for (std::size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '\\' || i + 1 == f.size()) {
      out += f[i];
      continue;
    }
    char c = f[++i];
    out += c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c;
  }
  return out;
}

// Decimal digits only, no sign, no overflow: what the writer writes. A plain
// loop: std::from_chars costs four times as much here, and a build parses
// tens of thousands of these (stat times and sizes of 19 digits).
void write_list(RecordWriter& w, const std::vector<std::string>& list) {
  w.field(static_cast<std::uint64_t>(list.size()));
  for (const auto& x : list) w.field(x);
}

bool read_list(const std::vector<std::string_view>& f, std::size_t& i, std::vector<std::string>& out) {
  std::uint64_t n = 0;
  if (i >= f.size() || !parse_u64(f[i++], n) || n > f.size() - i) return false;
  for (std::uint64_t k = 0; k < n; ++k) out.push_back(field_text(f[i++]));
  return true;
}

bool parse_u64(std::string_view s, std::uint64_t& out) {
  if (s.empty() || s.size() > 20) return false;
  std::uint64_t v = 0;
  unsigned bad = 0;
  // Nineteen digits cannot overflow 64 bits; only a twentieth can.
  const std::size_t safe = std::min<std::size_t>(s.size(), 19);
  for (std::size_t i = 0; i < safe; ++i) {
    const unsigned d = static_cast<unsigned char>(s[i]) - '0';
    bad |= d > 9;
    v = v * 10 + d;
  }
  if (bad) return false;
  if (s.size() == 20) {
    const unsigned d = static_cast<unsigned char>(s[19]) - '0';
    if (d > 9 || __builtin_mul_overflow(v, 10u, &v) || __builtin_add_overflow(v, d, &v)) return false;
  }
  out = v;
  return true;
}

bool parse_i64(std::string_view s, std::int64_t& out) {
  const bool negative = !s.empty() && s.front() == '-';
  std::uint64_t magnitude = 0;
  if (!parse_u64(negative ? s.substr(1) : s, magnitude)) return false;
  const std::uint64_t limit = negative ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
  if (magnitude > limit) return false;
  out = negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
  return true;
}

bool parse_double(std::string_view s, double& out) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);  // no copy: records are parsed on every build
  return r.ec == std::errc() && r.ptr == s.data() + s.size() && !s.empty();
}

}  // namespace winml::store
