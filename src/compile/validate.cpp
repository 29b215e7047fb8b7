#include "compile/validate.h"

#include <cmath>
#include <cstring>

#include "base/error.h"
#include "base/half.h"
#include "base/mapped_file.h"
#include "compile/compiled_output.h"
#include "compile/epcontext_node.h"
#include "model/epcontext.h"
#include "model/input_dims.h"
#include "model/model_io.h"
#include "model/node_util.h"
#include "model/path_safety.h"
#include "model/walk.h"
#include "runtime/errors.h"
#include "runtime/ref_blob/ref_blob.h"
#include "runtime/session.h"
#include "base/path_text.h"

namespace winml::compile {

namespace fs = std::filesystem;
using runtime::DataType;
using runtime::Tensor;

namespace {

Tensor ones(DataType dtype, const runtime::Shape& shape) {
  Tensor t = Tensor::allocate(dtype, shape);
  std::int64_t n = t.size();
  auto fill = [&](auto one) {
    auto* p = t.mutable_data<decltype(one)>();
    for (std::int64_t i = 0; i < n; ++i) p[i] = one;
  };
  switch (dtype) {
    case onnx::TensorProto::FLOAT: fill(1.0f); break;
    case onnx::TensorProto::DOUBLE: fill(1.0); break;
    case onnx::TensorProto::FLOAT16: fill(std::uint16_t{0x3C00}); break;
    case onnx::TensorProto::BFLOAT16: fill(std::uint16_t{0x3F80}); break;
    case onnx::TensorProto::INT8: fill(std::int8_t{1}); break;
    case onnx::TensorProto::UINT8: fill(std::uint8_t{1}); break;
    case onnx::TensorProto::BOOL: fill(std::uint8_t{1}); break;
    case onnx::TensorProto::INT16: fill(std::int16_t{1}); break;
    case onnx::TensorProto::UINT16: fill(std::uint16_t{1}); break;
    case onnx::TensorProto::INT32: fill(std::int32_t{1}); break;
    case onnx::TensorProto::UINT32: fill(std::uint32_t{1}); break;
    case onnx::TensorProto::INT64: fill(std::int64_t{1}); break;
    case onnx::TensorProto::UINT64: fill(std::uint64_t{1}); break;
    default:
      throw runtime::UnsupportedError("an input of type " + runtime::dtype_name(dtype) + " cannot be filled with ones");
  }
  return t;
}

struct NonFinite {
  std::int64_t nan = 0;
  std::int64_t inf = 0;
};

NonFinite count_non_finite(const Tensor& t) {
  NonFinite r;
  auto scan = [&](auto to_float, const auto* p) {
    for (std::int64_t i = 0; i < t.size(); ++i) {
      double v = to_float(p[i]);
      if (std::isnan(v)) ++r.nan;
      else if (std::isinf(v)) ++r.inf;
    }
  };
  switch (t.dtype()) {
    case onnx::TensorProto::FLOAT: scan([](float v) { return double(v); }, t.data<float>()); break;
    case onnx::TensorProto::DOUBLE: scan([](double v) { return v; }, t.data<double>()); break;
    case onnx::TensorProto::FLOAT16:
      scan([](std::uint16_t v) { return double(half_to_float(v)); }, t.data<std::uint16_t>());
      break;
    case onnx::TensorProto::BFLOAT16:
      scan([](std::uint16_t v) { return double(runtime::bfloat16_to_float(v)); }, t.data<std::uint16_t>());
      break;
    default: break;  // integers are always finite
  }
  return r;
}

}  // namespace

std::size_t verify_ref_blobs(const model::Model& m) {
  const fs::path& path = m.path;
  std::size_t checked = 0;
  model::for_each_graph(m.proto.graph(), [&](const onnx::GraphProto& g, int) {
    for (const auto& n : g.node()) {
      if (!model::is_epcontext_node(n)) continue;
      const auto* source = model::find_attr(n, "source");
      if (!source || source->s() != runtime::ref_blob::kSource) continue;
      const auto* context = model::find_attr(n, "ep_cache_context");
      const auto* embed = model::find_attr(n, "embed_mode");
      const std::string_view bytes = context ? std::string_view(context->s()) : std::string_view();
      if (embed && embed->i() == 0) {
        fs::path file = model::resolve_inside(m.dir(), bytes, "EPContext ep_cache_context", path);
        auto mapped = MappedFile::open(file);
        runtime::ref_blob::check_blob(mapped->view(), to_utf8(file), true);
      } else {
        runtime::ref_blob::check_blob(bytes, to_utf8(path) + ": EPContext node '" + n.name() + "'", true);
      }
      ++checked;
    }
  });
  return checked;
}

nlohmann::json validate_compiled(const fs::path& path, const ValidateOptions& options) {
  nlohmann::json result;
  model::Model m = model::load_model(path);
  const bool compiled = model::is_epcontext_model(m.proto);
  if (compiled) {
    result["epcontext_nodes"] = verify_epcontext_model(m).size();
    result["ref_blobs_verified"] = verify_ref_blobs(m);
  }

  std::unique_ptr<runtime::Session> session;
  try {
    runtime::SessionOptions so;
    so.threads = options.threads;
    so.dims = options.dims;
    session = std::make_unique<runtime::Session>(m, so);
  } catch (const runtime::UnsupportedError& e) {
    result["mode"] = "structure";
    result["reason"] = std::string("the runtime cannot execute this model: ") + e.what();
    return result;
  }

  std::map<std::string, Tensor> feeds;
  nlohmann::json inputs = nlohmann::json::object();
  for (const auto& in : session->inputs()) {
    if (auto given = options.inputs.find(in.name); given != options.inputs.end()) {
      feeds[in.name] = runtime::from_tensor_file(given->second);
      inputs[in.name] = given->second.shape;
      continue;
    }
    if (in.has_default) continue;
    feeds[in.name] = ones(in.dtype ? in.dtype : onnx::TensorProto::FLOAT, in.shape);
    inputs[in.name] = in.shape;
  }
  auto outputs = session->run(feeds);
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, t] : outputs) {
    NonFinite bad = count_non_finite(t);
    if (bad.nan || bad.inf)
      throw BuildError(file_error(to_utf8(path), "validation failed: output '" + name + "' has " +
                                                     std::to_string(bad.nan) + " NaN and " + std::to_string(bad.inf) +
                                                     " Inf values (of " + std::to_string(t.size()) + ") on " +
                                                     options.inputs_origin));
    out[name] = t.shape();
  }
  result["mode"] = "run";
  result["fed"] = options.inputs_origin;
  result["inputs"] = inputs;
  // The runtime sized the open dimensions 1: say so (a detector validated on 1x1 pixels proves little).
  if (const auto open = model::open_input_dims(m.proto.graph(), options.dims); !open.empty() && options.inputs.empty())
    result["warnings"] = {model::defaulted_dims_warning(open, 1, "validation")};
  result["outputs"] = out;
  return result;
}

}  // namespace winml::compile
