// Runs a plan: feeds inputs, runs steps in order, releases values after
// their last use, and reports every produced value to an observer.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "runtime/plan.h"
#include "runtime/tensor.h"

namespace winml::runtime {

class ThreadPool;

// Called for each graph input and each value a node produces, as it is
// produced. The tensor is only valid during the call (its storage may be
// reused afterwards): clone() it to keep it.
using Observer = std::function<void(const std::string& name, const Tensor& value)>;

struct ExecutionState {
  const Plan& plan;
  ThreadPool& pool;
  const Observer* observer = nullptr;
  std::byte* arena = nullptr;  // plan.arena_bytes of scratch, or null to allocate every value
};

// `inputs` follow plan.inputs (an undefined tensor uses the initializer
// default, if any), `captures` follow plan.captures. Returns plan.outputs.
std::vector<Tensor> execute(const Plan& plan, std::vector<Tensor> inputs, std::vector<Tensor> captures,
                            ThreadPool& pool, const Observer* observer = nullptr, std::byte* arena = nullptr);

// Runs `fn`, re-throwing any error with `prefix` prepended (same error kind).
void with_error_prefix(const std::string& prefix, const std::function<void()>& fn);

}  // namespace winml::runtime
