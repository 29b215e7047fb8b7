#include "quant/opset_upgrade.h"

#include <onnx/version_converter/convert.h>

#include <map>
#include <set>

#include "base/error.h"
#include "model/node_util.h"
#include "model/tensor_values.h"
#include "model/walk.h"
#include "quant/graph_edit.h"

namespace winml::quant {

namespace {

// Every value name a graph (and its subgraphs) holds.
std::set<std::string> value_names(const onnx::GraphProto& graph) {
  std::set<std::string> names;
  model::for_each_graph(graph, [&](const onnx::GraphProto& g, int) {
    for (const auto& v : g.input()) names.insert(v.name());
    for (const auto& v : g.output()) names.insert(v.name());
    for (const auto& t : g.initializer()) names.insert(t.name());
    for (const auto& n : g.node()) names.insert(n.output().begin(), n.output().end());
  });
  return names;
}

// ONNX 1.16 and later name the values their converter creates "_v_<n>"
// where ONNX 1.12 (Debian's, the Linux build's) names them "<n>"; the
// Windows build has ONNX 1.17. Converted models keep 1.12's names on every
// build, so that both write the same bytes.
void keep_converter_names_of_onnx_1_12(onnx::ModelProto& converted, const std::set<std::string>& before) {
  const std::set<std::string> after = value_names(converted.graph());
  std::map<std::string, std::string> renamed;
  for (const auto& name : after) {
    if (name.size() <= 3 || name.compare(0, 3, "_v_") != 0 || before.count(name)) continue;
    const std::string plain = name.substr(3);
    if (plain.find_first_not_of("0123456789") == std::string::npos && !after.count(plain)) renamed[name] = plain;
  }
  if (renamed.empty()) return;
  const auto rename = [&](std::string* s) {
    if (auto it = renamed.find(*s); it != renamed.end()) *s = it->second;
  };
  model::for_each_graph(*converted.mutable_graph(), [&](onnx::GraphProto& g, int) {
    for (auto& v : *g.mutable_input()) rename(v.mutable_name());
    for (auto& v : *g.mutable_output()) rename(v.mutable_name());
    for (auto& v : *g.mutable_value_info()) rename(v.mutable_name());
    for (auto& t : *g.mutable_initializer()) rename(t.mutable_name());
    for (auto& n : *g.mutable_node()) {
      for (auto& i : *n.mutable_input()) rename(&i);
      for (auto& o : *n.mutable_output()) rename(&o);
    }
  });
}

}  // namespace

void upgrade_opset(model::Model& m, std::int64_t to, const std::string& path) {
  const std::string what = "cannot upgrade opset " + std::to_string(m.opset()) + " to " + std::to_string(to) +
                           " for QDQ quantization (QuantizeLinear/DequantizeLinear need opset " +
                           std::to_string(kQdqMinOpset) + ")";
  // The converter rebuilds every tensor from the protobuf: data it cannot see
  // would be lost.
  bool external = false;
  const onnx::GraphProto& graph = m.proto.graph();
  model::for_each_tensor(graph, [&](const onnx::TensorProto& t, model::TensorSite) {
    external |= t.data_location() == onnx::TensorProto::EXTERNAL;
  });
  if (external) throw InputError(file_error(path, what + ": the model keeps tensors in external data"));
  try {
    const std::set<std::string> before = value_names(m.proto.graph());
    m.proto = onnx::version_conversion::ConvertVersion(m.proto, static_cast<int>(to));
    keep_converter_names_of_onnx_1_12(m.proto, before);
  } catch (const std::exception& e) {
    throw InputError(file_error(path, what + ": " + e.what()));
  }
}

namespace {

bool takes_axes_as_input_from_18(const std::string& op) {
  static const std::set<std::string> ops = {"ReduceMax",     "ReduceMin",       "ReduceMean",
                                            "ReduceProd",    "ReduceL1",        "ReduceL2",
                                            "ReduceLogSum",  "ReduceLogSumExp", "ReduceSumSquare"};
  return ops.count(op) > 0;
}

}  // namespace

void upgrade_to_opset21(model::Model& m, const std::string& path) {
  const std::int64_t from = m.opset();
  if (from >= kBlockedQdqOpset) return;
  const std::string why = "4-bit weights need opset 21 (DequantizeLinear's int4 and block_size), the model has opset " +
                          std::to_string(from);
  if (from < 13) throw InputError(file_error(path, why + ", and models below opset 13 are not converted: export it at opset 13 or later"));
  NameGen names(m.proto.graph());
  model::for_each_graph(*m.proto.mutable_graph(), [&](onnx::GraphProto& g, int) {
    std::vector<onnx::TensorProto> axes_constants;
    for (auto& n : *g.mutable_node()) {
      if (!model::is_default_domain(n.domain())) continue;
      const std::string& op = n.op_type();
      if (op == "DFT" || (op == "GroupNormalization" && from >= 18))
        throw InputError(file_error(path, why + ": node '" + n.name() + "' (" + op +
                                              ") changed meaning since and is not converted"));
      if (takes_axes_as_input_from_18(op) && from < 18) {
        const auto axes = model::attr_ints(n, "axes");
        if (!axes) continue;  // every axis, as at 18 without the input
        const std::string name = names.unique(n.name().empty() ? op + "_axes" : n.name() + "_axes");
        axes_constants.push_back(
            model::make_int64s(name, {static_cast<std::int64_t>(axes->size())}, *axes));
        while (n.input_size() < 1) n.add_input("");
        n.add_input(name);
        model::remove_attr(n, "axes");
      }
      if (op == "GridSample" && from < 20) {
        const std::string mode = model::attr_string(n, "mode", "bilinear");
        if (mode == "bilinear") model::set_attr_string(n, "mode", "linear");
        if (mode == "bicubic") model::set_attr_string(n, "mode", "cubic");
      }
    }
    for (auto& t : axes_constants) *g.add_initializer() = std::move(t);
  });
  for (auto& o : *m.proto.mutable_opset_import())
    if (model::is_default_domain(o.domain())) o.set_version(kBlockedQdqOpset);
  if (m.proto.ir_version() < 10) m.proto.set_ir_version(10);
}

}  // namespace winml::quant
