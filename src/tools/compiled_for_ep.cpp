#include "tools/compiled_for_ep.h"

#include <set>

#include "base/text.h"
#include "ep/ep_table.h"
#include "model/epcontext.h"

namespace winml::tools {

namespace {

// winml-make's name for the EP ORT calls `source` ("ref" for
// WinmlMakeRefExecutionProvider), or "" when no rules/ep table has it. ORT's
// own EPs also accept their short name ("QNN") as a source.
std::string ep_named(const std::string& source) {
  for (const auto& name : ep::ep_table_names()) {
    const std::string type = ep::load_ep_table(name).ep_type;
    if (type == source || type == source + "ExecutionProvider") return name;
  }
  return "";
}

}  // namespace

std::string compiled_for_other_ep(const onnx::ModelProto& m, const std::string& session_ep) {
  std::set<std::string> others;
  for (const auto& node : model::find_ep_contexts(m))
    if (node.source != session_ep && node.source + "ExecutionProvider" != session_ep) others.insert(node.source);
  if (others.empty()) return "";
  std::vector<std::string> fixes;
  bool ref = false;
  for (const auto& source : others) {
    const std::string ep = ep_named(source);
    ref = ref || ep == "ref";
    fixes.push_back(source.empty() ? "(a node without a source)"
                    : ep.empty()   ? source + " (no rules/ep table names it: add one, then pass --ep with its name)"
                                   : "--ep " + ep);
  }
  return "it was compiled for " + join({others.begin(), others.end()}, ", ") +
         " (the `source` of its EPContext nodes), and ONNX Runtime runs those nodes only on that execution "
         "provider, not on " + session_ep + ": pass " + join(fixes, ", ") +
         (ref ? " (the `ref` plugin EP built and installed with winml-make)" : "");
}

}  // namespace winml::tools
