#include "compile/ep_target.h"

#include "analyze/ep_table.h"

namespace winml::compile {

// One reader of rules/ep/*.toml: the analysis's table loader (which also
// names the known EPs when `name` has no table).
EpTarget ep_target(const std::string& name) {
  const analyze::EpTable table = analyze::load_ep_table(name);
  return {table.name, table.ep_type, table.default_device, table.aot_compile};
}

}  // namespace winml::compile
