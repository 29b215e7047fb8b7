#include "quant/graph_edit.h"

#include <cstring>
#include <map>

#include "base/error.h"
#include "model/tensor_data.h"
#include "model/walk.h"

namespace winml::quant {

NameGen::NameGen(const onnx::GraphProto& g) {
  model::for_each_graph(g, [&](const onnx::GraphProto& sg, int) {
    for (const auto& v : sg.input()) used_.insert(v.name());
    for (const auto& v : sg.output()) used_.insert(v.name());
    for (const auto& v : sg.value_info()) used_.insert(v.name());
    for (const auto& t : sg.initializer()) used_.insert(t.name());
    for (const auto& n : sg.node()) {
      used_.insert(n.name());
      for (const auto& i : n.input()) used_.insert(i);
      for (const auto& o : n.output()) used_.insert(o);
    }
  });
}

std::string NameGen::unique(const std::string& base) {
  std::string name = base;
  for (int k = 1; used_.count(name); ++k) name = base + "_" + std::to_string(k);
  used_.insert(name);
  return name;
}

std::size_t remove_unused_initializers(onnx::GraphProto& g, const std::set<std::string>& candidates) {
  std::set<std::string> read;
  model::for_each_graph(static_cast<const onnx::GraphProto&>(g), [&](const onnx::GraphProto& sg, int) {
    for (const auto& n : sg.node())
      for (const auto& i : n.input())
        if (candidates.count(i)) read.insert(i);
  });
  for (const auto& o : g.output()) read.insert(o.name());
  std::set<std::string> drop;
  for (const auto& c : candidates)
    if (!read.count(c)) drop.insert(c);
  std::size_t before = static_cast<std::size_t>(g.initializer_size());
  remove_initializers(g, drop);
  return before - static_cast<std::size_t>(g.initializer_size());
}

std::size_t fold_constant_identities(onnx::GraphProto& g) {
  std::set<std::string> inits, keep;
  for (const auto& t : g.initializer()) inits.insert(t.name());
  for (const auto& o : g.output()) keep.insert(o.name());
  for (const auto& n : g.node())
    for (const auto& a : n.attribute()) {
      auto scan = [&](const onnx::GraphProto& sub) {
        model::for_each_graph(sub, [&](const onnx::GraphProto& sg, int) {
          for (const auto& sn : sg.node())
            for (const auto& i : sn.input()) keep.insert(i);
        });
      };
      if (a.has_g()) scan(a.g());
      for (const auto& sub : a.graphs()) scan(sub);
    }
  std::map<std::string, std::string> alias;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  for (auto& n : *g.mutable_node()) {
    bool is_identity = n.op_type() == "Identity" && (n.domain().empty() || n.domain() == "ai.onnx") &&
                       n.input_size() == 1 && n.output_size() == 1;
    if (is_identity && inits.count(n.input(0)) && !keep.count(n.output(0)) && !inits.count(n.output(0))) {
      alias[n.output(0)] = n.input(0);
      continue;
    }
    nodes.Add(std::move(n));
  }
  for (auto& n : nodes)
    for (auto& i : *n.mutable_input())
      if (auto a = alias.find(i); a != alias.end()) i = a->second;
  g.mutable_node()->Swap(&nodes);
  return alias.size();
}

void remove_initializers(onnx::GraphProto& g, const std::set<std::string>& names) {
  if (names.empty()) return;
  // Rebuilt in one pass (deleting one by one is quadratic on large graphs).
  google::protobuf::RepeatedPtrField<onnx::TensorProto> kept;
  for (auto& t : *g.mutable_initializer())
    if (!names.count(t.name())) kept.Add(std::move(t));
  g.mutable_initializer()->Swap(&kept);
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> inputs;
  for (auto& v : *g.mutable_input())
    if (!names.count(v.name())) inputs.Add(std::move(v));
  g.mutable_input()->Swap(&inputs);
}

}  // namespace winml::quant
