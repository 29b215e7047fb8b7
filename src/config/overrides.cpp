#include "config/overrides.h"

#include "base/error.h"

namespace winml::config {

namespace {

using json = nlohmann::json;

json parse_value(const std::string& text) {
  try {
    return json::parse(text);
  } catch (const json::parse_error&) {
    return text;  // -D compile.ep=ref: no quotes needed for a string
  }
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const std::size_t dot = path.find('.', start);
    parts.push_back(path.substr(start, dot - start));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

// Sets `value` at `parts[from..]` below `node`, creating tables on the way.
void set_at(json& node, const std::vector<std::string>& parts, std::size_t from, const json& value) {
  json* at = &node;
  for (std::size_t i = from; i < parts.size(); ++i) {
    if (!at->is_object()) *at = json::object();
    at = &(*at)[parts[i]];
  }
  *at = value;
}

}  // namespace

void apply_overrides(Document& doc, const std::vector<std::string>& defines) {
  for (const auto& given : defines) {
    std::string define = given, arg = "-D " + given;
    for (const auto& s : kShorthandFlags)
      if (given == s.flag) define = s.define, arg = s.flag;
    const auto eq = define.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError(arg + ": expected SECTION.KEY=VALUE (e.g. -D quantize.samples=16)");
    const std::string path = define.substr(0, eq);
    const auto parts = split_path(path);
    if (parts.size() < 2) throw InputError(arg + ": name the section too, as in -D quantize.samples=16");
    for (const auto& p : parts)
      if (p.empty()) throw InputError(arg + ": '" + path + "' has an empty key");
    const json value = parse_value(define.substr(eq + 1));

    json& root = doc.root;
    auto each_model = [&](auto&& f) {
      if (!root.contains("model")) root["model"] = json::object();
      json& m = root["model"];
      if (m.is_array()) {
        for (std::size_t i = 0; i < m.size(); ++i) f(m[i], "model[" + std::to_string(i) + "]");
      } else {
        f(m, "model");
      }
    };
    if (parts[0] == "model") {
      each_model([&](json& entry, const std::string& where) {
        set_at(entry, parts, 1, value);
        doc.overridden[where + path.substr(5)] = arg;
      });
      continue;
    }
    set_at(root, parts, 0, value);
    doc.overridden[path] = arg;
    // A model's own [model.<section>] would otherwise win over the top level.
    if (root.contains("model"))
      each_model([&](json& entry, const std::string& where) {
        if (entry.is_object() && entry.contains(parts[0])) {
          set_at(entry, parts, 0, value);
          doc.overridden[where + "." + path] = arg;
        }
      });
  }
}

}  // namespace winml::config
