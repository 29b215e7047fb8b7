#include "compile/ref_partition.h"

#include <cstdio>
#include <vector>

#include "base/text.h"
#include "compile/fold_constants.h"
#include "runtime/executor.h"

namespace winml::compile {

namespace {

std::string describe_dims(const std::map<std::string, std::int64_t>& dims) {
  if (dims.empty()) return "symbolic dimensions resolved to 1";
  std::vector<std::string> parts;
  for (const auto& [k, v] : dims) parts.push_back(k + "=" + std::to_string(v));
  return "symbolic dimensions resolved with " + join(parts, ", ") + " (others 1)";
}

std::string mib_text(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return buf;
}

}  // namespace

std::uint64_t RefPartition::weight_bytes() const {
  std::uint64_t total = 0;
  for (const auto& [id, t] : plan->constants) total += t.bytes();
  return total;
}

std::string RefPartition::notes() const {
  return "winml-make ref plan: " + std::to_string(plan->steps.size()) + " steps, " +
         std::to_string(plan->constants.size()) + " constants (" + mib_text(weight_bytes()) + "), arena " +
         mib_text(static_cast<std::uint64_t>(plan->arena_bytes)) + "; " + describe_dims(dims);
}

RefPartition plan_ref_partition(model::Model part, const runtime::Opsets& opsets, const std::string& name,
                                const std::map<std::string, std::int64_t>& dims, const std::string& source) {
  RefPartition r;
  r.name = name;
  r.dims = dims;
  r.model = std::move(part);
  r.folded_nodes = fold_constants(r.model, opsets);
  runtime::with_error_prefix(source + ": partition " + name + ": ", [&] {
    r.plan = runtime::build_plan(r.model, runtime::PlanOptions{dims, true});
  });
  return r;
}

}  // namespace winml::compile
