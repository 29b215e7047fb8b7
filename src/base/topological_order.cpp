#include "base/topological_order.h"

#include <functional>
#include <queue>

namespace winml {

TopologicalOrder stable_topological_order(const std::vector<std::set<int>>& deps) {
  const std::size_t count = deps.size();
  std::vector<std::vector<int>> consumers(count);
  std::vector<int> pending(count, 0);
  for (std::size_t i = 0; i < count; ++i)
    for (int d : deps[i]) {
      if (d == static_cast<int>(i)) continue;
      consumers[static_cast<std::size_t>(d)].push_back(static_cast<int>(i));
      ++pending[i];
    }
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (std::size_t i = 0; i < count; ++i)
    if (pending[i] == 0) ready.push(static_cast<int>(i));
  TopologicalOrder result;
  while (!ready.empty()) {
    int i = ready.top();
    ready.pop();
    result.order.push_back(i);
    for (int c : consumers[static_cast<std::size_t>(i)])
      if (--pending[static_cast<std::size_t>(c)] == 0) ready.push(c);
  }
  if (result.order.size() != count)
    for (std::size_t i = 0; i < count && result.cycle_node < 0; ++i)
      if (pending[i] > 0) result.cycle_node = static_cast<int>(i);
  return result;
}

}  // namespace winml
