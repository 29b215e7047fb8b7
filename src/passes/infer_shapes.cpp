// infer_shapes: libonnx's shape inference, lenient. Nodes it cannot infer
// (unknown domains, schema errors) keep going with their existing value_info;
// models importing a newer default-domain opset than libonnx knows are left
// as they are, since older schemas could infer wrong shapes for changed ops.
#include <onnx/shape_inference/implementation.h>

#include <unordered_set>

#include "model/walk.h"
#include "passes/registry.h"

namespace winml::passes {

namespace {

std::size_t typed_values(const onnx::ModelProto& m) {
  std::size_t n = 0;
  model::for_each_graph(m.graph(), [&](const onnx::GraphProto& g, int) { n += g.value_info_size(); });
  return n;
}

class InferShapes : public Pass {
 public:
  int run_model(PassContext& ctx) override {
    std::string note;
    int n = infer_shapes_lenient(ctx.model.proto, ctx.opsets, &note);
    if (!note.empty()) ctx.note("infer_shapes: " + note);
    return n;
  }
};

}  // namespace

OpsetFacts opset_facts(const model::Model& m) {
  OpsetFacts f;
  f.onnx = m.opset("");
  f.microsoft = m.opset("com.microsoft");
  const auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  if (auto it = ranges.find(""); it != ranges.end()) f.libonnx_max = it->second.second;
  return f;
}

int infer_shapes_lenient(onnx::ModelProto& m, const OpsetFacts& opsets, std::string* note) {
  if (opsets.libonnx_max > 0 && opsets.onnx > opsets.libonnx_max) {
    if (note)
      *note = "opset " + std::to_string(opsets.onnx) + " is newer than libonnx's " +
              std::to_string(opsets.libonnx_max) + "; existing shapes kept";
    return 0;
  }
  std::size_t before = typed_values(m);
  // error_mode 0: a node whose inference fails is skipped, not fatal.
  // Data propagation resolves shapes computed by Shape/Gather/Concat chains.
  onnx::ShapeInferenceOptions options(/*check_type=*/false, /*error_mode=*/0, /*data_prop=*/true);
  try {
    onnx::shape_inference::InferShapes(m, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception& e) {
    if (note) *note = std::string("libonnx stopped early: ") + e.what();
  }
  std::size_t after = typed_values(m);
  return static_cast<int>(after - std::min(before, after));
}

WINML_PASS(infer_shapes, 100, InferShapes);

}  // namespace winml::passes
