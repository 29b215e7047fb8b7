#include "ep/ep_table.h"

#include <mutex>
#include <utility>

#include "base/error.h"
#include "base/rules.h"
#include "base/toml_parse.h"

namespace winml::ep {

std::string canonical_domain(const std::string& domain) {
  return domain.empty() || domain == "ai.onnx" ? "ai.onnx" : domain;
}

Support EpTable::status(const std::string& domain, const std::string& op) const {
  std::string d = canonical_domain(domain);
  for (const auto& c : partial)
    if (c.domain == d && c.op == op) return Support::kPartial;
  if (auto it = supported.find(d); it != supported.end() && it->second.count(op)) return Support::kSupported;
  if (auto it = unsupported.find(d); it != unsupported.end() && it->second.count(op)) return Support::kUnsupported;
  return Support::kUnknown;
}

bool EpTable::runs(const std::string& domain, const std::string& op) const {
  Support s = status(domain, op);
  return s == Support::kSupported || s == Support::kPartial;
}

std::vector<const OpConstraint*> EpTable::constraints(const std::string& domain, const std::string& op) const {
  std::vector<const OpConstraint*> out;
  std::string d = canonical_domain(domain);
  for (const auto& c : partial)
    if (c.domain == d && c.op == op) out.push_back(&c);
  return out;
}

namespace {

[[noreturn]] void bad(const std::string& origin, const std::string& msg) {
  throw InputError(file_error(origin, "invalid EP table: " + msg));
}

std::vector<std::string> strings(const toml::value& v, const std::string& key, const std::string& origin) {
  if (!v.contains(key)) return {};
  std::vector<std::string> out;
  for (const auto& x : v.at(key).as_array()) {
    if (x.is_string()) out.push_back(x.as_string().str);
    else if (x.is_integer()) out.push_back(std::to_string(x.as_integer()));
    else bad(origin, "'" + key + "' must hold strings or integers");
  }
  return out;
}

std::vector<int> ints(const toml::value& v, const std::string& key) {
  std::vector<int> out;
  if (v.contains(key))
    for (const auto& x : v.at(key).as_array()) out.push_back(static_cast<int>(x.as_integer()));
  return out;
}

OpConstraint parse_constraint(const toml::value& v, const std::string& origin) {
  static const std::set<std::string> known = {
      "op",      "domain",    "dtypes", "dtype_inputs",      "max_rank",  "constant_inputs", "nonnegative_inputs",
      "devices", "attribute", "values", "attribute_default", "min_opset", "max_opset",       "static_shapes",
      "note"};
  for (const auto& [k, _] : v.as_table())
    if (!known.count(k)) bad(origin, "[[partial]] has unknown key '" + k + "'");
  OpConstraint c;
  if (!v.contains("op")) bad(origin, "a [[partial]] entry has no 'op'");
  c.op = v.at("op").as_string().str;
  if (v.contains("domain")) c.domain = canonical_domain(v.at("domain").as_string().str);
  c.dtypes = strings(v, "dtypes", origin);
  c.dtype_inputs = ints(v, "dtype_inputs");
  if (!c.dtypes.empty() && c.dtype_inputs.empty()) c.dtype_inputs = {0};
  if (v.contains("max_rank")) c.max_rank = static_cast<int>(v.at("max_rank").as_integer());
  c.constant_inputs = ints(v, "constant_inputs");
  c.nonnegative_inputs = ints(v, "nonnegative_inputs");
  c.devices = strings(v, "devices", origin);
  if (v.contains("attribute")) c.attribute = v.at("attribute").as_string().str;
  c.values = strings(v, "values", origin);
  if (!c.attribute.empty() && c.values.empty()) bad(origin, "[[partial]] " + c.op + ": 'attribute' needs 'values'");
  if (v.contains("attribute_default")) {
    const auto& d = v.at("attribute_default");
    c.attribute_default = d.is_integer() ? std::to_string(d.as_integer()) : d.as_string().str;
  }
  if (v.contains("min_opset")) c.min_opset = v.at("min_opset").as_integer();
  if (v.contains("max_opset")) c.max_opset = v.at("max_opset").as_integer();
  if (v.contains("static_shapes")) c.static_shapes = v.at("static_shapes").as_boolean();
  if (v.contains("note")) c.note = v.at("note").as_string().str;
  if (c.note.empty()) bad(origin, "[[partial]] " + c.op + " needs a 'note' saying what the EP requires");
  return c;
}

}  // namespace

EpTable parse_ep_table(const std::string& name, const std::string& text, const std::string& origin) {
  toml::value root;
  try {
    root = parse_toml(text, origin);
  } catch (const std::exception& e) {
    throw InputError(file_error(origin, std::string("invalid TOML: ") + e.what()));
  }
  EpTable t;
  t.name = name;
  try {
    if (!root.contains("ep")) bad(origin, "missing [ep] table");
    const auto& ep = root.at("ep");
    if (ep.contains("name") && ep.at("name").as_string().str != name)
      bad(origin, "[ep] name '" + ep.at("name").as_string().str + "' does not match the file name '" + name + "'");
    t.ep_type = toml::find_or<std::string>(ep, "ep_type", "");
    t.ihv_type = toml::find_or<std::string>(ep, "ihv_type", "");
    t.default_device = toml::find_or<std::string>(ep, "default_device", "");
    t.aot_compile = toml::find_or<bool>(ep, "aot_compile", false);
    t.static_input_shapes = toml::find_or<bool>(ep, "static_input_shapes", false);
    t.requirements = strings(ep, "requirements", origin);
    static const std::set<std::string> known = {"name",        "ep_type",      "ihv_type",           "default_device",
                                                "aot_compile", "requirements", "static_input_shapes"};
    for (const auto& [k, _] : ep.as_table())
      if (!known.count(k)) bad(origin, "[ep] has unknown key '" + k + "'");
    if (root.contains("ops")) {
      for (const auto& [domain, table] : root.at("ops").as_table()) {
        std::string d = canonical_domain(domain);
        for (const auto& [k, _] : table.as_table())
          if (k != "supported" && k != "unsupported")
            bad(origin, "[ops.\"" + domain + "\"] has unknown key '" + k + "'");
        for (const auto& op : strings(table, "supported", origin)) t.supported[d].insert(op);
        for (const auto& op : strings(table, "unsupported", origin)) {
          if (t.supported[d].count(op)) bad(origin, op + " is listed as both supported and unsupported");
          t.unsupported[d].insert(op);
        }
      }
    }
    if (root.contains("partial"))
      for (const auto& p : root.at("partial").as_array()) t.partial.push_back(parse_constraint(p, origin));
  } catch (const toml::exception& e) {
    bad(origin, e.what());
  } catch (const std::out_of_range& e) {
    bad(origin, e.what());
  }
  return t;
}

EpTable load_ep_table(const std::string& name) {
  const auto& rules = rules::active();
  std::string path = "ep/" + name + ".toml";
  auto text = rules.read(path);
  if (!text) {
    std::string known;
    for (const auto& n : ep_table_names()) known += (known.empty() ? "" : ", ") + n;
    throw InputError(
        file_error(rules.origin(path), "unknown execution provider '" + name + "' (known: " + known + ")"));
  }
  // Parsed once per distinct text: a project asks for the same table for
  // every model (its default device), and analysis for every table.
  static std::mutex mu;
  static std::map<std::pair<std::string, std::string>, EpTable> parsed;
  std::pair<std::string, std::string> key{name, std::move(*text)};
  {
    std::lock_guard lock(mu);
    if (auto it = parsed.find(key); it != parsed.end()) return it->second;
  }
  EpTable table = parse_ep_table(name, key.second, rules.origin(path));
  std::lock_guard lock(mu);
  parsed.emplace(std::move(key), table);
  return table;
}

std::vector<std::string> ep_table_names() {
  std::vector<std::string> names;
  for (const auto& p : rules::active().list("ep", ".toml")) {
    std::string file = p.substr(p.find('/') + 1);
    names.push_back(file.substr(0, file.size() - 5));
  }
  return names;
}

}  // namespace winml::ep
