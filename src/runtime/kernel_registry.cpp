#include "runtime/kernel_registry.h"

#include <algorithm>
#include <mutex>

#include "runtime/kernels/register.h"

namespace winml::runtime {

std::string canonical_domain(const std::string& domain) { return domain == "ai.onnx" ? std::string() : domain; }

Opsets model_opsets(const onnx::ModelProto& model) {
  Opsets opsets;
  for (const auto& o : model.opset_import()) opsets[canonical_domain(o.domain())] = o.version();
  return opsets;
}

KernelRegistry& KernelRegistry::global() {
  static KernelRegistry* registry = [] {
    auto* r = new KernelRegistry();
    kernels::register_builtin_kernels(*r);
    return r;
  }();
  return *registry;
}

void KernelRegistry::add(KernelEntry entry) {
  entry.domain = canonical_domain(entry.domain);
  std::unique_lock lock(mutex_);
  entries_.push_back(std::make_shared<const KernelEntry>(std::move(entry)));
}

std::shared_ptr<const KernelEntry> KernelRegistry::find(const std::string& domain, const std::string& op,
                                                        std::int64_t opset) const {
  std::string d = canonical_domain(domain);
  std::shared_lock lock(mutex_);
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    const KernelEntry& e = **it;
    if (e.op == op && e.domain == d && opset >= e.since && opset <= e.until) return *it;
  }
  return nullptr;
}

std::vector<SupportedOp> KernelRegistry::supported_ops() const {
  std::vector<SupportedOp> r;
  {
    std::shared_lock lock(mutex_);
    for (const auto& e : entries_) r.push_back({e->domain, e->op, e->since, e->until});
  }
  std::sort(r.begin(), r.end(), [](const SupportedOp& a, const SupportedOp& b) {
    return std::tie(a.domain, a.op, a.since, a.until) < std::tie(b.domain, b.op, b.since, b.until);
  });
  return r;
}

bool is_supported(const std::string& domain, const std::string& op, std::int64_t opset) {
  return KernelRegistry::global().find(domain, op, opset) != nullptr;
}

std::vector<SupportedOp> supported_ops() { return KernelRegistry::global().supported_ops(); }

}  // namespace winml::runtime
