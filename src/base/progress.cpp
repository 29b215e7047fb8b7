#include "base/progress.h"

#include <charconv>
#include <chrono>
#include <mutex>
#include <vector>

#include "base/native_file.h"

namespace winml::progress {

namespace {

constexpr std::string_view kMagic = "winml-progress";
// Every record has this size, so that a rewrite covers the last one whole.
constexpr std::size_t kRecordSize = 256;
constexpr auto kMinInterval = std::chrono::milliseconds(100);

// Tabs and line ends would break the record's fields; names are short.
std::string field(std::string_view text) {
  std::string out(text.substr(0, 64));
  for (char& c : out)
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return out;
}

std::optional<std::uint64_t> number(std::string_view text) {
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

struct Writer {
  std::mutex mu;
  int fd = -1;
  std::uint64_t sequence = 0;
  std::chrono::steady_clock::time_point last{};
};

Writer& writer() {
  static Writer w;
  return w;
}

}  // namespace

std::string encode(const Snapshot& s, std::uint64_t sequence) {
  const std::string seq = std::to_string(sequence);
  std::string out = std::string(kMagic) + "\t" + seq + "\t" + std::to_string(s.done) + "\t" +
                    std::to_string(s.total) + "\t" + field(s.what) + "\t" + field(s.unit) + "\t" + seq;
  out.resize(kRecordSize - 1, ' ');
  return out + "\n";
}

std::optional<Snapshot> decode(std::string_view record) {
  if (record.size() != kRecordSize || record.back() != '\n') return std::nullopt;
  record.remove_suffix(1);
  while (!record.empty() && record.back() == ' ') record.remove_suffix(1);
  std::vector<std::string_view> f;
  for (std::size_t start = 0;;) {
    const std::size_t tab = record.find('\t', start);
    f.push_back(record.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start));
    if (tab == std::string_view::npos) break;
    start = tab + 1;
  }
  if (f.size() != 7 || f[0] != kMagic || f[1] != f[6] || !number(f[1])) return std::nullopt;
  const auto done = number(f[2]), total = number(f[3]);
  if (!done || !total) return std::nullopt;
  return Snapshot{std::string(f[4]), *done, *total, std::string(f[5])};
}

void report_to(const std::filesystem::path& file) {
  Writer& w = writer();
  std::lock_guard lock(w.mu);
  if (w.fd >= 0) native::close(w.fd);
  w.fd = file.empty() ? -1 : native::create(file, native::Create::kReplace);
  w.sequence = 0;
  w.last = {};
}

void report(std::string_view what, std::uint64_t done, std::uint64_t total, std::string_view unit) {
  Writer& w = writer();
  std::lock_guard lock(w.mu);
  if (w.fd < 0) return;
  const auto now = std::chrono::steady_clock::now();
  if (done < total && now - w.last < kMinInterval) return;
  w.last = now;
  const std::string record = encode({std::string(what), done, total, std::string(unit)}, ++w.sequence);
  native::write_all_at(w.fd, record.data(), record.size(), 0);  // (a failed write: the next one may do)
}

std::optional<Snapshot> read(const std::filesystem::path& file) {
  const int fd = native::open_read(file);
  if (fd < 0) return std::nullopt;
  std::string record(kRecordSize, '\0');
  const long long n = native::read_at(fd, record.data(), record.size(), 0);
  native::close(fd);
  if (n != static_cast<long long>(kRecordSize)) return std::nullopt;
  return decode(record);
}

}  // namespace winml::progress
