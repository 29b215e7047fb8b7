#include "analyze/classify.h"

#include <algorithm>

#include "base/text.h"
#include "model/node_util.h"
#include "model/tensor_data.h"
#include "model/tensor_values.h"

namespace winml::analyze {

using nlohmann::json;

std::string op_key(const std::string& domain, const std::string& op) {
  return "OP/" + ep::canonical_domain(domain) + "/" + op;
}

namespace {

std::string attribute_text(const onnx::AttributeProto& a) {
  switch (a.type()) {
    case onnx::AttributeProto::INT: return std::to_string(a.i());
    case onnx::AttributeProto::STRING: return a.s();
    case onnx::AttributeProto::FLOAT: {
      std::string s = std::to_string(a.f());
      return s;
    }
    case onnx::AttributeProto::INTS: {
      std::vector<std::string> parts;
      for (auto x : a.ints()) parts.push_back(std::to_string(x));
      return join(parts, ",");
    }
    default: return "";
  }
}

}  // namespace

std::string violation(const passes::GraphView& v, int i, const ep::OpConstraint& c, std::int64_t opset,
                      const std::string& device) {
  const auto& n = v.node(i);
  if (!c.devices.empty() && std::find(c.devices.begin(), c.devices.end(), device) == c.devices.end())
    return "not on " + device + " (runs on " + join(c.devices, ", ") + ")";
  if (c.min_opset && opset < *c.min_opset)
    return "opset " + std::to_string(opset) + " is below " + std::to_string(*c.min_opset);
  if (c.max_opset && opset > *c.max_opset)
    return "opset " + std::to_string(opset) + " is above " + std::to_string(*c.max_opset);
  if (!c.dtypes.empty()) {
    for (int k : c.dtype_inputs) {
      const std::string& in = model::input_or_empty(n, k);
      if (in.empty()) continue;
      std::int32_t t = v.elem_type(in);
      if (t == 0) continue;  // unknown: cannot tell
      std::string name = model::data_type_name(t);
      if (std::find(c.dtypes.begin(), c.dtypes.end(), name) == c.dtypes.end())
        return "input " + std::to_string(k) + " is " + name + " (supported: " + join(c.dtypes, ", ") + ")";
    }
  }
  if (c.max_rank) {
    auto check = [&](const std::string& value) -> std::string {
      if (value.empty()) return "";
      auto r = v.rank(value);
      if (r && *r > *c.max_rank)
        return "'" + value + "' has rank " + std::to_string(*r) + " (at most " + std::to_string(*c.max_rank) + ")";
      return "";
    };
    for (const auto& in : n.input())
      if (auto why = check(in); !why.empty()) return why;
    for (const auto& out : n.output())
      if (auto why = check(out); !why.empty()) return why;
  }
  for (int k : c.constant_inputs) {
    const std::string& in = model::input_or_empty(n, k);
    if (!in.empty() && !v.constant(in)) return "input " + std::to_string(k) + " is not a constant";
  }
  for (int k : c.nonnegative_inputs) {
    const std::string& in = model::input_or_empty(n, k);
    const auto* t = in.empty() ? nullptr : v.constant(in);
    if (!t) continue;  // only constants can be checked
    auto values = model::read_ints(v.model(), *t);
    if (values && std::any_of(values->begin(), values->end(), [](std::int64_t x) { return x < 0; }))
      return "input " + std::to_string(k) + " holds negative values";
  }
  if (!c.attribute.empty()) {
    std::optional<std::string> value = c.attribute_default;
    if (const auto* a = model::find_attr(n, c.attribute)) value = attribute_text(*a);
    if (value && std::find(c.values.begin(), c.values.end(), *value) == c.values.end())
      return c.attribute + " = " + *value + " (supported: " + join(c.values, ", ") + ")";
  }
  if (c.static_shapes) {
    for (const auto& in : n.input())
      if (!in.empty() && !v.static_shape(in)) return "'" + in + "' has no fixed shape";
  }
  return "";
}

void EpClassifier::add(const passes::GraphView& v, int i, std::int64_t opset) {
  const auto& n = v.node(i);
  std::string key = op_key(n.domain(), n.op_type());
  names_[key] = {ep::canonical_domain(n.domain()), n.op_type()};
  OpUse& use = ops_[key];
  ++use.nodes;
  bool violated = false;
  for (const auto* c : table_.constraints(n.domain(), n.op_type())) {
    std::string why = violation(v, i, *c, opset, device_);
    if (why.empty()) continue;
    use.reasons[why + " — " + c->note].push_back(n.name());
    violated = true;
  }
  if (violated) ++use.violating;
}

json EpClassifier::result() const {
  json classification = {{"supported", json::array()},
                         {"partial", json::array()},
                         {"unsupported", json::array()},
                         {"unknown", json::array()}};
  json info = json::array();
  // `examples`: up to three node names, for problems that depend on the node.
  auto add_info = [&](const char* level, const std::string& key, std::size_t nodes, const std::string& message,
                      const std::vector<std::string>& examples) {
    std::vector<std::string> some(examples.begin(), examples.begin() + std::min<std::size_t>(examples.size(), 3));
    info.push_back({{"level", level}, {"operator", key}, {"nodes", nodes}, {"message", message}, {"examples", some}});
  };
  for (const auto& [key, use] : ops_) {
    const auto& [domain, op] = names_.at(key);
    ep::Support s = table_.status(domain, op);
    if (s == ep::Support::kPartial) {
      if (use.violating == 0) {
        classification["supported"].push_back(key);
      } else {
        bool none = use.violating == use.nodes;
        classification[none ? "unsupported" : "partial"].push_back(key);
        for (const auto& [why, nodes] : use.reasons)
          add_info(none ? "error" : "warning", key, nodes.size(), why, nodes);
      }
    } else if (s == ep::Support::kSupported) {
      classification["supported"].push_back(key);
    } else if (s == ep::Support::kUnsupported) {
      classification["unsupported"].push_back(key);
      add_info("error", key, static_cast<std::size_t>(use.nodes),
               "not supported by " + table_.ep_type + " (rules/ep/" + table_.name + ".toml)", {});
    } else {
      classification["unknown"].push_back(key);
      add_info("warning", key, static_cast<std::size_t>(use.nodes), "not listed in rules/ep/" + table_.name + ".toml",
               {});
    }
  }
  for (const auto& req : table_.requirements)
    info.push_back({{"level", "info"}, {"operator", ""}, {"nodes", 0}, {"message", req}, {"examples", json::array()}});
  if (table_.static_input_shapes && !dynamic_inputs_.empty())
    add_info("warning", "", 0, table_.ep_type + " needs fixed input shapes; set [model] dims for the symbolic ones",
             dynamic_inputs_);
  bool full =
      classification["partial"].empty() && classification["unsupported"].empty() && classification["unknown"].empty();
  bool none = classification["supported"].empty() && classification["partial"].empty();
  json r;
  r["ep"] = table_.name;
  r["ihv_type"] = table_.ihv_type;
  r["ep_type"] = table_.ep_type;
  r["device_type"] = device_;
  r["runtime_support"] = full ? "full" : none ? "none" : "partial";
  r["has_errors"] = !classification["unsupported"].empty();
  r["has_warnings"] = !classification["partial"].empty() || !classification["unknown"].empty() ||
                      (table_.static_input_shapes && !dynamic_inputs_.empty());
  r["classification"] = classification;
  r["information"] = info;
  return r;
}

}  // namespace winml::analyze
