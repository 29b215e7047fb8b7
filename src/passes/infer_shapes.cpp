// infer_shapes: libonnx's shape inference, lenient. Nodes it cannot infer
// (unknown domains, schema errors) keep going with their existing value_info;
// models importing a newer default-domain opset than libonnx knows are left
// as they are, since older schemas could infer wrong shapes for changed ops.
#include <onnx/shape_inference/implementation.h>

#include <unordered_set>

#include "model/walk.h"
#include "passes/all_passes.h"

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
    if (ctx.opsets.libonnx_max > 0 && ctx.opsets.onnx > ctx.opsets.libonnx_max) {
      ctx.note("infer_shapes: opset " + std::to_string(ctx.opsets.onnx) + " is newer than libonnx's " +
               std::to_string(ctx.opsets.libonnx_max) + "; existing shapes kept");
      return 0;
    }
    std::size_t before = typed_values(ctx.model.proto);
    // error_mode 0: a node whose inference fails is skipped, not fatal.
    // Data propagation resolves shapes computed by Shape/Gather/Concat chains.
    onnx::ShapeInferenceOptions options(/*check_type=*/false, /*error_mode=*/0, /*data_prop=*/true);
    try {
      onnx::shape_inference::InferShapes(ctx.model.proto, onnx::OpSchemaRegistry::Instance(), options);
    } catch (const std::exception& e) {
      ctx.note(std::string("infer_shapes: libonnx stopped early: ") + e.what());
    }
    return static_cast<int>(typed_values(ctx.model.proto) - std::min(before, typed_values(ctx.model.proto)));
  }
};

}  // namespace

std::unique_ptr<Pass> make_infer_shapes() { return std::make_unique<InferShapes>(); }

}  // namespace winml::passes
