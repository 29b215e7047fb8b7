#include "model/validate.h"

#include <algorithm>
#include <unordered_set>

#include "base/checked_size.h"
#include "base/error.h"
#include "model/tensor_data.h"

namespace winml::model {

namespace {

void check_tensor(const onnx::TensorProto& t, const std::string& path) {
  for (auto d : t.dims())
    if (d < 0) throw InputError(file_error(path, "tensor '" + t.name() + "' has a negative dimension"));
  // Every later size computation multiplies these dimensions.
  const std::size_t es = element_size(t.data_type());
  const auto bytes = checked_byte_size(t.dims(), std::max<std::size_t>(es, 1));
  if (!bytes) throw InputError(file_error(path, "tensor '" + t.name() + "' has a shape of more than 2^64 bytes"));
  if (t.data_location() == onnx::TensorProto::EXTERNAL || !t.has_raw_data() || !has_fixed_size(t.data_type())) return;
  const std::uint64_t expected = storage_bytes(t.data_type(), static_cast<std::uint64_t>(element_count(t)));
  if (t.raw_data().size() != expected)
    throw InputError(file_error(path, "tensor '" + t.name() + "' holds " + std::to_string(t.raw_data().size()) +
                                          " bytes but its shape and type need " + std::to_string(expected) +
                                          " (truncated or corrupt model)"));
}

void check_graph(const onnx::GraphProto& g, const std::string& path,
                 const std::unordered_set<std::string>& outer_scope) {
  std::unordered_set<std::string> defined = outer_scope;
  for (const auto& i : g.input()) defined.insert(i.name());
  for (const auto& t : g.initializer()) {
    check_tensor(t, path);
    defined.insert(t.name());
  }
  for (const auto& s : g.sparse_initializer()) defined.insert(s.values().name());
  for (const auto& n : g.node())
    for (const auto& o : n.output()) defined.insert(o);

  for (const auto& n : g.node()) {
    std::string where = "node '" + n.name() + "' (" + n.op_type() + ")";
    if (n.op_type().empty()) throw InputError(file_error(path, "a node has no op_type (corrupt model)"));
    for (const auto& in : n.input())
      if (!in.empty() && !defined.count(in))
        throw InputError(file_error(path, where + " reads '" + in +
                                              "', which no input, initializer or node defines (truncated or "
                                              "corrupt model)"));
    for (const auto& a : n.attribute()) {
      if (a.has_t()) check_tensor(a.t(), path);
      if (a.has_g()) check_graph(a.g(), path, defined);
      for (const auto& sg : a.graphs()) check_graph(sg, path, defined);
    }
  }
  for (const auto& o : g.output())
    if (!defined.count(o.name()))
      throw InputError(file_error(path, "graph output '" + o.name() + "' is not produced by the graph"));
}

}  // namespace

void validate_structure(const onnx::ModelProto& proto, const std::string& path) {
  if (!proto.has_ir_version() || proto.ir_version() < 3)
    throw InputError(file_error(
        path, "not a usable ONNX model: IR version " + std::to_string(proto.ir_version()) + " (3 or newer is needed)"));
  if (!proto.has_graph()) throw InputError(file_error(path, "not a usable ONNX model: it has no graph"));
  if (proto.opset_import_size() == 0)
    throw InputError(file_error(path, "not a usable ONNX model: it imports no opset"));
  // The default domain's versions are counted from 1 and grow by about two a
  // year (23 in 2025): far beyond that is a corrupt or hostile file, which
  // no stage can interpret.
  constexpr std::int64_t kBeyondAnyOnnxRelease = 40;
  for (const auto& o : proto.opset_import())
    if ((o.domain().empty() || o.domain() == "ai.onnx") && (o.version() < 1 || o.version() > kBeyondAnyOnnxRelease))
      throw InputError(file_error(path, "not a usable ONNX model: it imports ai.onnx opset " +
                                            std::to_string(o.version()) + ", which no ONNX release defines"));
  if (proto.graph().output_size() == 0)
    throw InputError(file_error(path, "not a usable ONNX model: the graph has no outputs (truncated file?)"));
  check_graph(proto.graph(), path, {});
}

}  // namespace winml::model
