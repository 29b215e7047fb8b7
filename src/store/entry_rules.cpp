#include "store/entry_rules.h"

#include <set>

#include "base/atomic_file.h"
#include "base/path_text.h"

namespace winml::store {

namespace {

// A name from a server, fit for a message: printable, and not too long.
std::string printable(std::string_view name) {
  std::string out;
  for (char c : name.substr(0, kMaxOutputNameBytes)) out += (c < 0x20 || c == 0x7f) ? '?' : c;
  return name.size() > kMaxOutputNameBytes ? out + "..." : out;
}

}  // namespace

std::string output_name_problem(std::string_view name) {
  if (name.empty() || name == "." || name == "..") return "an empty or relative name";
  if (name.size() > kMaxOutputNameBytes)
    return "a name of " + std::to_string(name.size()) + " bytes (at most " + std::to_string(kMaxOutputNameBytes) + ")";
  for (char c : name)
    if (c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      return "'" + printable(name) + "' is not a plain file name";
  if (is_temp_name(from_utf8(name))) return "'" + printable(name) + "' is a temporary file's name";
  return {};
}

std::optional<Rejection> outputs_problem(const std::vector<OutputFile>& outputs, std::string_view primary) {
  auto broken = [](std::string detail) { return Rejection{rejection::kOutputRules, std::move(detail)}; };
  if (outputs.empty()) return broken("no outputs");
  if (outputs.size() > kMaxEntryOutputs)
    return broken(std::to_string(outputs.size()) + " outputs (at most " + std::to_string(kMaxEntryOutputs) + ")");
  if (!primary.empty() && outputs.front().name != primary)
    return broken("the first output is '" + printable(outputs.front().name) + "', not '" + std::string(primary) + "'");
  std::set<std::string_view> names;
  std::uint64_t bytes = 0;
  for (const auto& o : outputs) {
    if (std::string why = output_name_problem(o.name); !why.empty()) return broken(why);
    if (!names.insert(o.name).second) return broken("'" + o.name + "' is listed twice");
    if (o.size > kMaxEntryBytes - bytes) return broken("more than " + std::to_string(kMaxEntryBytes) + " bytes");
    bytes += o.size;
  }
  return std::nullopt;
}

std::optional<Rejection> artifact_problem(const std::vector<std::string>& artifact_files,
                                          const std::vector<std::string>& names) {
  const std::set<std::string> want(artifact_files.begin(), artifact_files.end()), have(names.begin(), names.end());
  for (const auto& n : have)
    if (!want.count(n))
      return Rejection{rejection::kNotTheArtifact, "'" + printable(n) + "' is not a file of the artifact"};
  for (const auto& n : want)
    if (!have.count(n))
      return Rejection{rejection::kNotTheArtifact, "the artifact names '" + printable(n) + "', which is missing"};
  return std::nullopt;
}

}  // namespace winml::store
