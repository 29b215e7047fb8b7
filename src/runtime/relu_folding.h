// Folding a Relu into the step that produces its input (Conv, Add: kernels
// with KernelTraits::folds_relu), so that the clamp happens as that step
// writes its output instead of in one more pass over it. ResNet-style
// networks put a Relu after nearly every Conv and residual Add.
#pragma once

#include <set>
#include <string>

namespace winml::runtime {

class Plan;

// Folds every Relu whose float32 input is produced by a step that can fold
// it, read by nothing else, and neither a graph output nor named in
// `observed`: the producing step writes the Relu's value (relu_output) and
// the Relu step goes. Steps keep their order; releases are computed after.
void fold_relus(Plan& plan, const std::set<std::string>& observed);

}  // namespace winml::runtime
