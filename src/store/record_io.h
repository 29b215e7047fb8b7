// The line format of the build journal, the ingredient log and cache
// entries (the state snapshot is an image: state_image.h): one record per line,
//
//   <16 hex digits: XXH3-64 of the payload> ' ' <payload> '\n'
//
// with tab-separated fields in the payload ('\\', '\t', '\n' escaped). A torn
// or corrupted line fails its checksum and is rejected, so a crash in the
// middle of an append never yields a half-written record. Plain text keeps
// these files inspectable with standard tools.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "store/digest.h"

namespace winml::store {

class RecordWriter {
 public:
  RecordWriter& field(std::string_view s);
  RecordWriter& field(std::uint64_t v);
  RecordWriter& field(std::int64_t v);
  RecordWriter& field(const Digest& d) { return field(std::string_view(d.hex())); }
  RecordWriter& field(double v);
  // Appends the checksummed line to `out` and resets the writer.
  void finish(std::string& out);

 private:
  std::string payload_;
  bool first_ = true;
};

// Reads records from `text`, checking each line. Fields are views into `text`
// (still escaped: use field_text()). Reading stops at the first bad line.
class RecordReader {
 public:
  // With `skip_bad_lines`, a bad line is skipped instead of ending the read
  // (for logs where every record stands alone).
  explicit RecordReader(std::string_view text, bool skip_bad_lines = false) : text_(text), skip_bad_(skip_bad_lines) {}
  // Next valid record; false at the end or at a bad line (then `corrupt()` is true).
  bool next(std::vector<std::string_view>& fields);
  bool corrupt() const { return corrupt_; }
  std::size_t offset() const { return pos_; }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  bool skip_bad_ = false;
  bool corrupt_ = false;
};

// Unescaped text of a field.
std::string field_text(std::string_view field);
// A list as fields: its size, then each element. read_list reads one from
// f[i] on, leaving i after it; false when the fields are too few.
void write_list(RecordWriter& w, const std::vector<std::string>& list);
bool read_list(const std::vector<std::string_view>& f, std::size_t& i, std::vector<std::string>& out);
bool parse_u64(std::string_view s, std::uint64_t& out);
bool parse_i64(std::string_view s, std::int64_t& out);
bool parse_double(std::string_view s, double& out);

}  // namespace winml::store
