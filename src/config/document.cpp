#include "config/document.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "base/atomic_file.h"
#include "base/error.h"
#include "base/path_text.h"
#include "base/toml_parse.h"

namespace winml::config {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {
// Column (1-based) of `key` written as a TOML key on `line`, or 0.
unsigned key_column(const std::string& line, const std::string& key) {
  for (std::size_t pos = line.find(key); pos != std::string::npos; pos = line.find(key, pos + 1)) {
    std::size_t end = pos + key.size();
    if (end < line.size() && line[end] == '"') ++end;
    while (end < line.size() && (line[end] == ' ' || line[end] == '\t')) ++end;
    bool starts_key = pos == 0 || !(std::isalnum(static_cast<unsigned char>(line[pos - 1])) || line[pos - 1] == '_');
    if (starts_key && end < line.size() && line[end] == '=') {
      return static_cast<unsigned>((pos > 0 && line[pos - 1] == '"' ? pos - 1 : pos) + 1);
    }
  }
  return 0;
}
}  // namespace

std::string Document::where(const std::string& key_path, bool at_key) const {
  std::string p = key_path;
  while (!p.empty()) {
    if (auto it = overridden.find(p); it != overridden.end()) return it->second;
    if (auto it = locations.find(p); it != locations.end()) {
      unsigned column = it->second.column;
      std::string key = p.substr(p.find_last_of('.') == std::string::npos ? 0 : p.find_last_of('.') + 1);
      if (at_key && key.find('[') == std::string::npos && it->second.line <= lines.size())
        if (unsigned c = key_column(lines[it->second.line - 1], key)) column = c;
      return file + ":" + std::to_string(it->second.line) + ":" + std::to_string(column);
    }
    auto cut = p.find_last_of(".[");
    if (cut == std::string::npos) break;
    p.resize(cut);
  }
  return file;
}

namespace {

std::string location_of(const toml::value& v, const std::string& file) {
  auto loc = v.location();
  if (loc.line() == 0) return file;
  return file + ":" + std::to_string(loc.line()) + ":" + std::to_string(loc.column());
}

// Where each value is, by binary search over the file's line starts:
// toml11 3.7 finds a value's line by counting newlines from the start of the
// file, which over every value of a thousand-model config is quadratic (a
// tenth of a second for 55 KB).
class LineIndex {
 public:
  Document::Location of(const toml::value& v) {
    const auto* r = dynamic_cast<const toml::detail::region*>(toml::detail::get_region(v));
    if (!r || !r->is_ok()) {
      const auto loc = v.location();
      return {static_cast<unsigned>(loc.line()), static_cast<unsigned>(loc.column())};
    }
    if (source_ != r->source().get()) {
      source_ = r->source().get();
      starts_ = {0};
      for (auto it = r->begin(); it != r->end(); ++it)
        if (*it == '\n') starts_.push_back(static_cast<std::size_t>(it - r->begin()) + 1);
    }
    const auto offset = static_cast<std::size_t>(r->first() - r->begin());
    const auto line = std::upper_bound(starts_.begin(), starts_.end(), offset) - starts_.begin();
    return {static_cast<unsigned>(line), static_cast<unsigned>(offset - starts_[line - 1] + 1)};
  }

 private:
  const void* source_ = nullptr;
  std::vector<std::size_t> starts_;
};

json convert(const toml::value& v, const std::string& path, Document& doc, LineIndex& lines) {
  if (!path.empty())
    if (const auto loc = lines.of(v); loc.line > 0) doc.locations[path] = loc;
  switch (v.type()) {
    case toml::value_t::boolean: return v.as_boolean();
    case toml::value_t::integer: return static_cast<std::int64_t>(v.as_integer());
    case toml::value_t::floating: {
      double d = v.as_floating();
      if (!std::isfinite(d)) throw InputError(location_of(v, doc.file) + ": '" + path + "' must be a finite number");
      return d;
    }
    case toml::value_t::string: {
      const std::string& s = v.as_string().str;
      // A NUL would cut a path short where the OS reads it ("a.onnx\0../x" opens a.onnx).
      if (s.find('\0') != std::string::npos)
        throw InputError(location_of(v, doc.file) + ": '" + path + "' contains a NUL character");
      return s;
    }
    case toml::value_t::array: {
      json a = json::array();
      const auto& arr = v.as_array();
      for (std::size_t i = 0; i < arr.size(); ++i)
        a.push_back(convert(arr[i], path + "[" + std::to_string(i) + "]", doc, lines));
      return a;
    }
    case toml::value_t::table: {
      json o = json::object();
      for (const auto& [k, child] : v.as_table()) o[k] = convert(child, path.empty() ? k : path + "." + k, doc, lines);
      return o;
    }
    default: throw InputError(location_of(v, doc.file) + ": '" + path + "' is a date/time, which no key accepts");
  }
}

// toml11's messages are multi-line ("[error] toml::parse_...: msg\n --> file\n..."):
// keep its first line as the summary and the rest as context.
std::string summarize_toml_error(const std::string& what) {
  std::string first = what.substr(0, what.find('\n'));
  for (const char* prefix : {"[error] ", "toml::"}) {
    if (first.starts_with(prefix)) first = first.substr(std::string(prefix).size());
  }
  if (auto colon = first.find(": "); colon != std::string::npos && first.find("parse") < colon)
    first = first.substr(colon + 2);
  return first;
}

// Where toml11's message points: the last caret ("   |      ^--- ...") under
// its source line (" 2 | source = "), which is where the parser stopped (an
// earlier one may show where an array started). The location toml11 gives
// with the exception is its region's start, often column 1 of that line.
bool toml_caret(const std::string& what, unsigned& line, unsigned& column) {
  std::istringstream in(what);
  unsigned source_line = 0;
  bool found = false;
  for (std::string l; std::getline(in, l);) {
    const auto pipe = l.find('|');
    if (pipe == std::string::npos) continue;
    const std::string prefix = l.substr(0, pipe);
    if (prefix.find_first_not_of(' ') != std::string::npos) {  // " 2 | source = "
      source_line = 0;
      if (prefix.find_first_not_of(" 0123456789") == std::string::npos) source_line = std::stoul(prefix);
      continue;
    }
    const auto caret = l.find('^', pipe);  // "   |          ^--- expected value"
    if (caret == std::string::npos || caret < pipe + 2 || !source_line) continue;
    line = source_line;
    column = static_cast<unsigned>(caret - (pipe + 2) + 1);
    found = true;
  }
  return found;
}

// Limits a parser can meet without a crash or a wait: the TOML library
// recurses once per nesting level (10 000 levels overflow the stack) and
// spends time quadratic in a line's length. A real config is far inside them.
constexpr std::size_t kMaxConfigBytes = 1u << 20;
constexpr std::size_t kMaxLineBytes = 16u << 10;
constexpr int kMaxNesting = 32;

// Checks size, line lengths and the nesting of [ and { outside strings and
// comments; InputError naming the file and line otherwise.
void check_limits(const std::string& text, const std::string& file, bool toml) {
  if (text.size() > kMaxConfigBytes)
    throw InputError(file_error(file, "is " + std::to_string(text.size()) + " bytes; a config may have at most " +
                                          std::to_string(kMaxConfigBytes)));
  std::size_t line = 1, line_start = 0;
  int depth = 0;
  char quote = 0;       // inside a string: its quote character
  bool triple = false;  // a TOML multi-line string
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      if (toml && i - line_start > kMaxLineBytes)
        throw InputError(file + ":" + std::to_string(line) + ": line of " + std::to_string(i - line_start) +
                         " bytes; lines may have at most " + std::to_string(kMaxLineBytes) +
                         " (split long arrays over several lines)");
      ++line, line_start = i + 1;
      if (!triple) quote = 0;  // single-line strings end at the line (the parser reports the error)
      continue;
    }
    if (quote) {
      if (c == '\\' && quote == '"') ++i;
      else if (c == quote && (!triple || text.compare(i, 3, std::string(3, quote)) == 0)) {
        if (triple) i += 2;
        quote = 0, triple = false;
      }
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      triple = toml && text.compare(i, 3, std::string(3, c)) == 0;
      if (triple) i += 2;
    } else if (c == '#' && toml) {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxNesting)
        throw InputError(file + ":" + std::to_string(line) + ": nested more than " + std::to_string(kMaxNesting) +
                         " levels deep");
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  if (toml && text.size() - line_start > kMaxLineBytes)
    throw InputError(file + ":" + std::to_string(line) + ": line of " + std::to_string(text.size() - line_start) +
                     " bytes; lines may have at most " + std::to_string(kMaxLineBytes));
}

void check_no_nul(const json& v, const std::string& path, const std::string& file) {
  if (v.is_string() && v.get_ref<const std::string&>().find('\0') != std::string::npos)
    throw InputError(file_error(file, "'" + path + "' contains a NUL character"));
  if (v.is_object())
    for (const auto& [k, child] : v.items()) check_no_nul(child, path.empty() ? k : path + "." + k, file);
  if (v.is_array())
    for (std::size_t i = 0; i < v.size(); ++i) check_no_nul(v[i], path + "[" + std::to_string(i) + "]", file);
}

}  // namespace

namespace {

Document toml_document(const std::string& file, const std::string& text) {
  Document doc;
  doc.file = file;
  check_limits(text, doc.file, true);
  toml::value root;
  try {
    root = parse_toml(text, doc.file);
  } catch (const toml::exception& e) {
    auto loc = e.location();
    unsigned line = loc.line(), column = loc.column();
    toml_caret(e.what(), line, column);
    std::string where = doc.file + (line ? ":" + std::to_string(line) + ":" + std::to_string(column) : "");
    throw InputError(where + ": TOML syntax error: " + summarize_toml_error(e.what()) + "\n" + e.what());
  } catch (const std::exception& e) {
    throw InputError(file_error(doc.file, std::string("cannot parse: ") + e.what()));
  }
  {
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) doc.lines.push_back(line);
  }
  LineIndex lines;
  doc.root = convert(root, "", doc, lines);
  return doc;
}

Document json_document(const std::string& file, const std::string& text) {
  Document doc;
  doc.file = file;
  check_limits(text, doc.file, false);
  try {
    doc.root = json::parse(text);
  } catch (const json::parse_error& e) {
    throw InputError(
        file_error(doc.file, std::string("JSON syntax error at byte ") + std::to_string(e.byte) + ": " + e.what()));
  }
  if (!doc.root.is_object()) throw InputError(file_error(doc.file, "the top level must be an object"));
  check_no_nul(doc.root, "", doc.file);
  return doc;
}

std::string existing_file_text(const fs::path& path) {
  if (!fs::exists(path)) throw InputError(file_error(to_utf8(path), "no such file"));
  return read_file(path);
}

}  // namespace

Document load_toml(const fs::path& path) { return toml_document(to_utf8(path), existing_file_text(path)); }

Document load_json(const fs::path& path) { return json_document(to_utf8(path), existing_file_text(path)); }

Document load_document(const fs::path& path) { return parse_document(path, existing_file_text(path)); }

Document parse_document(const fs::path& path, const std::string& text) {
  return path.extension() == ".json" ? json_document(to_utf8(path), text) : toml_document(to_utf8(path), text);
}

}  // namespace winml::config
