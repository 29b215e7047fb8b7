// What compile needs to know about a target execution provider, from its
// table in rules/ep/<name>.toml.
#pragma once

#include <string>

namespace winml::compile {

struct EpTarget {
  std::string name;     // "qnn"
  std::string ep_type;  // "QNNExecutionProvider": the EPContext `source` its compiler writes
  std::string default_device;
  // ONNX Runtime needs an ahead-of-time compiled EPContext model for it.
  bool aot_compile = false;
};

// InputError naming the rules file when it is missing or malformed.
EpTarget ep_target(const std::string& name);

}  // namespace winml::compile
