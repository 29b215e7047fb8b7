#include "passes/registry.h"

#include <algorithm>
#include <stdexcept>

namespace winml::passes {

const std::vector<PassInfo>& pass_registry() {
  static const std::vector<PassInfo> registry = [] {
    std::vector<PassInfo> all;
    for (const PassInfo* p : registered_passes()) all.push_back(*p);
    std::sort(all.begin(), all.end(), [](const PassInfo& a, const PassInfo& b) { return a.order < b.order; });
    for (std::size_t i = 1; i < all.size(); ++i)
      if (all[i].order == all[i - 1].order)
        throw std::logic_error("passes " + std::string(all[i - 1].name) + " and " + std::string(all[i].name) +
                               " have the same place in the pipeline (" + std::to_string(all[i].order) + ")");
    return all;
  }();
  return registry;
}

const PassInfo* find_pass(std::string_view name) {
  for (const auto& p : pass_registry())
    if (p.name == name) return &p;
  return nullptr;
}

std::vector<std::string> pass_names() {
  std::vector<std::string> names;
  for (const auto& p : pass_registry()) names.emplace_back(p.name);
  return names;
}

}  // namespace winml::passes
