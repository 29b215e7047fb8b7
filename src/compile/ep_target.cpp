#include "compile/ep_target.h"

#include "ep/ep_table.h"

namespace winml::compile {

// One reader of rules/ep/*.toml: ep/ep_table.h (which also
// names the known EPs when `name` has no table).
EpTarget ep_target(const std::string& name) {
  const ep::EpTable table = ep::load_ep_table(name);
  return {table.name, table.ep_type, table.default_device, table.aot_compile};
}

}  // namespace winml::compile
