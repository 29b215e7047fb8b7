#include "compile/ep_target.h"

#include <toml.hpp>

#include <sstream>

#include "base/error.h"
#include "base/rules.h"

namespace winml::compile {

EpTarget ep_target(const std::string& name) {
  const auto& rules = rules::active();
  const std::string path = "ep/" + name + ".toml";
  auto text = rules.read(path);
  if (!text) throw InputError(file_error(rules.origin(path), "unknown execution provider '" + name + "' (no rules file)"));
  EpTarget t;
  t.name = name;
  try {
    std::istringstream in(*text);
    const toml::value doc = toml::parse(in, rules.origin(path));
    const auto& ep = toml::find(doc, "ep");
    t.ep_type = toml::find_or<std::string>(ep, "ep_type", "");
    t.default_device = toml::find_or<std::string>(ep, "default_device", "");
    t.aot_compile = toml::find_or<bool>(ep, "aot_compile", false);
  } catch (const std::exception& e) {
    throw InputError(file_error(rules.origin(path), std::string("invalid EP table: ") + e.what()));
  }
  return t;
}

}  // namespace winml::compile
