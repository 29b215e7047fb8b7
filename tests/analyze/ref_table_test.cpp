// rules/ep/ref.toml says what winml-make's own runtime runs: its operator
// lists equal the runtime kernel registry's (at the newest opset of each op).
#include <gtest/gtest.h>

#include <set>

#include "ep/ep_table.h"
#include "runtime/kernel_registry.h"

using namespace winml;

TEST(RefEpTable, ListsExactlyTheRuntimeKernels) {
  auto table = ep::load_ep_table("ref");
  std::map<std::string, std::set<std::string>> runtime_ops;
  for (const auto& s : runtime::supported_ops()) runtime_ops[ep::canonical_domain(s.domain)].insert(s.op);
  for (const auto& [domain, ops] : runtime_ops) {
    std::set<std::string> listed = table.supported.count(domain) ? table.supported.at(domain) : std::set<std::string>{};
    for (const auto& op : ops)
      EXPECT_TRUE(listed.count(op)) << "the runtime runs " << domain << ":" << op
                                    << " but rules/ep/ref.toml does not list it";
    for (const auto& op : listed)
      EXPECT_TRUE(ops.count(op)) << "rules/ep/ref.toml lists " << domain << ":" << op
                                 << " but the runtime has no kernel";
  }
  for (const auto& [domain, ops] : table.supported)
    EXPECT_TRUE(runtime_ops.count(domain)) << "rules/ep/ref.toml lists domain " << domain << " the runtime lacks";
}
