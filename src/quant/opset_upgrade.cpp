#include "quant/opset_upgrade.h"

#include <onnx/version_converter/convert.h>

#include "base/error.h"
#include "model/walk.h"

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

}  // namespace winml::quant
