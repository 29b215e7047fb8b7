// Kernels by (domain, op type, opset range). Built-in kernels are registered
// on first use; other modules may add kernels at startup (a later entry for
// an overlapping range takes precedence), e.g. an EPContext kernel that runs
// a serialized plan.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <shared_mutex>
#include <string>
#include <vector>

#include "runtime/kernel.h"

namespace winml::runtime {

struct KernelTraits {
  // Output 0 may share input 0's storage (Reshape, Identity, ...): the memory
  // plan keeps the shared buffer alive for both.
  bool alias_input0 = false;
  // The kernel computes in float32; float16/bfloat16 inputs are widened
  // before it runs and its float32 outputs narrowed back afterwards.
  bool widen_half = false;
  // Element-wise: output element i is written after input elements i are
  // read, and from nothing else of input 0. When nothing reads input 0 after
  // this step, the memory plan may place output 0 over it (same shape and
  // type): one buffer instead of two, and the writes hit lines just read.
  bool may_write_over_input0 = false;
  // The kernel can apply a Relu to float32 output 0 as it writes it
  // (KernelContext::relu_output): a Relu that alone reads that output is
  // folded into the step when no observer needs the value before it.
  bool folds_relu = false;
};

using KernelFactory = std::function<std::unique_ptr<Kernel>(const NodeContext&)>;

struct KernelEntry {
  std::string domain;  // "" for the default ONNX domain
  std::string op;
  std::int64_t since = 1;  // opset versions of `domain` the kernel implements
  std::int64_t until = 1;
  KernelFactory factory;
  KernelTraits traits;
};

struct SupportedOp {
  std::string domain;
  std::string op;
  std::int64_t since;
  std::int64_t until;
};

class KernelRegistry {
 public:
  // The process-wide registry, with the built-in kernels.
  static KernelRegistry& global();

  void add(KernelEntry entry);
  // The entry for `op` at `opset` of its domain, or nullptr.
  std::shared_ptr<const KernelEntry> find(const std::string& domain, const std::string& op, std::int64_t opset) const;
  std::vector<SupportedOp> supported_ops() const;  // sorted by domain, op, since

 private:
  mutable std::shared_mutex mutex_;
  std::vector<std::shared_ptr<const KernelEntry>> entries_;
};

// Shorthands over the global registry.
bool is_supported(const std::string& domain, const std::string& op, std::int64_t opset);
std::vector<SupportedOp> supported_ops();

// The newest opset versions the built-in kernels are written against.
inline constexpr std::int64_t kMaxOnnxOpset = 21;

}  // namespace winml::runtime
