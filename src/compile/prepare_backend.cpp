#include "compile/prepare_backend.h"

#include "compile/backend.h"

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include <filesystem>
#include <map>
#include <set>

#include "base/error.h"
#include "base/path_text.h"
#include "base/text.h"
#include "model/walk.h"

namespace winml::compile {

namespace {

// Operator domains ONNX Runtime's standard builds implement.
const std::set<std::string> kOrtDomains = {
    "", "ai.onnx", "ai.onnx.ml", "com.microsoft", "com.microsoft.nchwc", "ai.onnx.preview.training"};

std::size_t typed_values(const onnx::ModelProto& m) {
  std::size_t n = 0;
  model::for_each_graph(m.graph(),
                        [&](const onnx::GraphProto& g, int) { n += static_cast<std::size_t>(g.value_info_size()); });
  return n;
}

}  // namespace

nlohmann::json prepare_model(model::Model in, const std::filesystem::path& out, const ep::EpTable& ep_table,
                             const PrepareOptions& options) {
  const std::string source = to_utf8(in.path);

  std::map<std::string, std::set<std::string>> foreign;  // domain -> ops
  model::for_each_graph(in.proto.graph(), [&](const onnx::GraphProto& g, int) {
    for (const auto& n : g.node())
      if (!kOrtDomains.count(n.domain())) foreign[n.domain()].insert(n.op_type());
  });
  if (!foreign.empty()) {
    std::vector<std::string> parts;
    for (const auto& [domain, ops] : foreign)
      parts.push_back(domain + " (" + join({ops.begin(), ops.end()}, ", ") + ")");
    throw BuildError(file_error(source, ep_table.ep_type + " cannot load operators of domain " + join(parts, "; ") +
                                            ": ONNX Runtime implements none of them (a custom-op library would be "
                                            "needed)"));
  }

  // Models newer than libonnx's opsets are left alone: its older schemas
  // would refuse valid nodes or infer wrong shapes for changed operators.
  std::string note;
  std::size_t before = typed_values(in.proto);
  const auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  auto range = ranges.find("");
  std::int64_t libonnx_max = range == ranges.end() ? 0 : range->second.second;
  const bool newer = libonnx_max > 0 && in.opset() > libonnx_max;
  if (newer) {
    note = "opset " + std::to_string(in.opset()) + " is newer than libonnx's " + std::to_string(libonnx_max) +
           ": structure checked, ONNX checker and shape inference skipped";
  } else {
    try {
      // From the file when there is one: the checker then resolves external
      // data locations against the model's directory, not the working one.
      if (!in.path.empty() && std::filesystem::exists(in.path)) onnx::checker::check_model(to_utf8(in.path));
      else onnx::checker::check_model(in.proto);
    } catch (const std::exception& e) {
      throw InputError(file_error(source, std::string("ONNX checker: ") + e.what()));
    }
    // Lenient inference: a node libonnx cannot infer keeps what it had.
    try {
      onnx::ShapeInferenceOptions o(/*check_type=*/false, /*error_mode=*/0, /*data_prop=*/true);
      onnx::shape_inference::InferShapes(in.proto, onnx::OpSchemaRegistry::Instance(), o);
    } catch (const std::exception& e) {
      note = std::string("shape inference stopped early: ") + e.what();
    }
  }
  std::size_t after = typed_values(in.proto);

  model::SaveOptions save;
  save.external_data_threshold = options.external_data_threshold;
  model::save_model(in, out, save);

  nlohmann::json metrics;
  metrics["backend"] = "prepare";
  metrics["checker"] = newer ? "skipped" : "passed";
  metrics["value_info_added"] = after - std::min(before, after);
  if (!note.empty()) metrics["note"] = note;
  return metrics;
}

nlohmann::json compile_with_prepare(const BackendCall& call) {
  say(call.options, "compile: " + call.ep_table.ep_type + " compiles at load time; writing the prepared model");
  PrepareOptions po;
  po.external_data_threshold = call.options.external_data_threshold;
  return prepare_model(std::move(call.in), call.output, call.ep_table, po);
}

}  // namespace winml::compile
