#include "ort_ep/settings.h"

#include <charconv>
#include <vector>

#include "base/error.h"
#include "base/text.h"
#include "runtime/ref_blob/ref_blob.h"
#include "base/path_text.h"

namespace winml::ort_ep {

namespace {

// ORT's prefix for the options of an EP: "ep." + its name in lower case + ".".
std::string option_prefix() {
  std::string name = runtime::ref_blob::kSource;
  for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return "ep." + name + ".";
}

std::map<std::string, std::string> config_entries(const Api& api, const OrtSessionOptions* options) {
  OrtKeyValuePairs* pairs = nullptr;
  check(api, api.ort->GetSessionOptionsConfigEntries(options, &pairs), "GetSessionOptionsConfigEntries");
  const char* const* keys = nullptr;
  const char* const* values = nullptr;
  std::size_t count = 0;
  api.ort->GetKeyValuePairs(pairs, &keys, &values, &count);
  std::map<std::string, std::string> out;
  for (std::size_t i = 0; i < count; ++i) out[keys[i] ? keys[i] : ""] = values[i] ? values[i] : "";
  api.ort->ReleaseKeyValuePairs(pairs);
  return out;
}

}  // namespace

std::map<std::string, std::int64_t> parse_dims(const std::string& text, const std::string& what) {
  std::map<std::string, std::int64_t> dims;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(start, end - start);
    start = end + 1;
    if (item.empty()) continue;
    std::size_t eq = item.find('=');
    std::int64_t value = 0;
    const char* first = item.data() + (eq == std::string::npos ? 0 : eq + 1);
    const char* last = item.data() + item.size();
    auto [ptr, ec] = std::from_chars(first, last, value);
    if (eq == std::string::npos || eq == 0 || ec != std::errc() || ptr != last || value < 1)
      throw InputError(what + ": '" + item + "' is not NAME=SIZE with a positive size (e.g. \"batch=1,seq=128\")");
    dims[item.substr(0, eq)] = value;
  }
  return dims;
}

Settings read_settings(const Api& api, const OrtSessionOptions* options) {
  Settings s;
  const std::map<std::string, std::string> entries = config_entries(api, options);
  auto get = [&](const char* key) {
    auto it = entries.find(key);
    return it == entries.end() ? std::string() : it->second;
  };
  s.write_contexts = get("ep.context_enable") == "1";
  s.embed = get("ep.context_embed_mode") == "1";
  s.context_model = from_utf8(get("ep.context_file_path"));
  s.node_name_prefix = get("ep.context_node_name_prefix");
  s.compile_only = get("session.compile_only") == "1";
  const std::string prefix = option_prefix();
  const std::vector<std::string> known = {"dims"};
  for (const auto& [key, value] : entries) {
    if (key.rfind(prefix, 0) != 0) continue;
    const std::string option = key.substr(prefix.size());
    if (option == "dims") {
      s.dims = parse_dims(value, std::string(runtime::ref_blob::kSource) + " provider option dims");
    } else {
      throw InputError(std::string(runtime::ref_blob::kSource) + ": unknown provider option '" + option +
                       "'; the options are: " + join(known, ", "));
    }
  }
  return s;
}

}  // namespace winml::ort_ep
