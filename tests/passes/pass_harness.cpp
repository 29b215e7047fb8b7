#include "pass_harness.h"

#include <gtest/gtest.h>
#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include "model/model_io.h"
#include "support/ort_oracle.h"
#include "support/temp_dir.h"

namespace winml::test {

Optimized optimize_with(const onnx::ModelProto& proto, const std::vector<std::string>& passes, const std::string& ep,
                        const std::string& level) {
  Optimized o;
  o.model.proto = proto;
  o.model.path = "in-memory.onnx";
  passes::OptimizeOptions options;
  options.level = level;
  options.ep = ep;
  for (const auto& p : passes) options.passes[p] = true;
  o.report = passes::optimize_model(o.model, options);
  return o;
}

std::map<std::string, int> op_counts(const onnx::GraphProto& g) {
  std::map<std::string, int> counts;
  for (const auto& n : g.node()) ++counts[(n.domain().empty() ? "" : n.domain() + ":") + n.op_type()];
  return counts;
}

int count_op(const onnx::GraphProto& g, const std::string& op) {
  auto c = op_counts(g);
  auto it = c.find(op);
  return it == c.end() ? 0 : it->second;
}

void expect_same_outputs(const onnx::ModelProto& original, const onnx::ModelProto& optimized,
                         const std::map<std::string, model::TensorFile>& inputs, double tolerance) {
  TempDir dir;
  write_text(dir / "original.onnx", model::serialize_deterministic(original));
  write_text(dir / "optimized.onnx", model::serialize_deterministic(optimized));
  auto a = run_in_ort(dir / "original.onnx", inputs);
  auto b = run_in_ort(dir / "optimized.onnx", inputs);
  ASSERT_TRUE(a.ok) << a.error;
  ASSERT_TRUE(b.ok) << b.error;
  ASSERT_EQ(a.outputs.size(), b.outputs.size());
  for (const auto& [name, t] : a.outputs) {
    auto it = b.outputs.find(name);
    ASSERT_NE(it, b.outputs.end()) << "output " << name << " missing after optimization";
    if (t.dtype == onnx::TensorProto::FLOAT) {
      EXPECT_LE(max_relative_diff(it->second, t), tolerance) << "output " << name;
    } else {  // integer and bool outputs must be identical
      EXPECT_EQ(it->second.dtype, t.dtype) << "output " << name;
      EXPECT_EQ(it->second.shape, t.shape) << "output " << name;
      EXPECT_TRUE(it->second.data == t.data) << "output " << name;
    }
  }
}

void expect_checker_accepts(const onnx::ModelProto& m) { expect_checker_accepts({}, m); }

void expect_checker_accepts(const std::filesystem::path& model_file, const onnx::ModelProto& m) {
  try {
    if (model_file.empty()) onnx::checker::check_model(m);
    else onnx::checker::check_model(model_file.string());
    // Like the checker's full check: strict shape inference must succeed too
    // (libonnx has schemas for the standard domains only).
    bool standard = true;
    for (const auto& o : m.opset_import()) standard = standard && (o.domain().empty() || o.domain() == "ai.onnx.ml");
    if (standard) {
      onnx::ModelProto copy = m;
      onnx::shape_inference::InferShapes(copy, onnx::OpSchemaRegistry::Instance(),
                                         onnx::ShapeInferenceOptions(/*check_type=*/true, /*error_mode=*/1));
    }
  } catch (const std::exception& e) {
    ADD_FAILURE() << "onnx::checker rejects the model: " << e.what();
  }
}

}  // namespace winml::test
