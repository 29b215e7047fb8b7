#include "quant/opset_upgrade.h"

#include <onnx/version_converter/convert.h>

#include <set>

#include "base/error.h"
#include "model/node_util.h"
#include "model/tensor_values.h"
#include "model/walk.h"
#include "quant/graph_edit.h"

namespace winml::quant {

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
    m.proto = onnx::version_conversion::ConvertVersion(m.proto, static_cast<int>(to));
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
