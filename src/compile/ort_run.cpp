#include "compile/ort_run.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include "base/error.h"
#include "base/half.h"
#include "compile/compiled_output.h"
#include "model/model_io.h"
#include "runtime/tensor.h"
#include "base/path_text.h"

namespace winml::compile {

namespace fs = std::filesystem;

ort::Tensor to_ort(const model::TensorFile& t) {
  return {static_cast<ONNXTensorElementDataType>(t.dtype), t.shape, t.data};
}

model::TensorFile from_ort(const ort::Tensor& t) {
  model::TensorFile f;
  f.dtype = static_cast<std::int32_t>(t.type);
  f.shape = t.shape;
  f.data = t.data;
  return f;
}

std::map<std::string, ort::Tensor> ort_feeds(const onnx::GraphProto& graph,
                                             const std::map<std::string, model::TensorFile>& given,
                                             const model::DimValues& dims, runtime::Fill fill, std::uint64_t seed) {
  std::set<std::string> initializers;
  for (const auto& i : graph.initializer()) initializers.insert(i.name());
  std::map<std::string, ort::Tensor> feeds;
  for (const auto& in : graph.input()) {
    if (initializers.count(in.name())) continue;
    if (auto g = given.find(in.name()); g != given.end()) {
      feeds[in.name()] = to_ort(g->second);
      continue;
    }
    const auto& tensor = in.type().tensor_type();
    runtime::Shape shape;
    for (int d = 0; d < tensor.shape().dim_size(); ++d)
      shape.push_back(model::input_dim(in, static_cast<std::size_t>(d), dims).value_or(1));
    const int dtype = tensor.elem_type() ? tensor.elem_type() : onnx::TensorProto::FLOAT;
    feeds[in.name()] = to_ort(runtime::to_tensor_file(runtime::filled_tensor(dtype, shape, fill, seed++)));
  }
  return feeds;
}

ort::SessionSettings ort_session_settings(const OrtTarget& target,
                                          const std::map<std::string, std::string>& provider_options, int threads) {
  ort::SessionSettings s;
  s.devices = {target.device};
  s.provider_options = provider_options;
  s.threads = threads;
  return s;
}

namespace {

// Element i of a floating-point tensor as a double; nullopt for other types.
bool is_floating(ONNXTensorElementDataType t) {
  return t == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT || t == ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE ||
         t == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16;
}

std::vector<double> as_doubles(const ort::Tensor& t) {
  std::vector<double> out;
  const std::size_t n = t.data.size() / ort::element_size(t.type);
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::byte* p = t.data.data() + i * ort::element_size(t.type);
    if (t.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) {
      float v;
      std::memcpy(&v, p, 4);
      out.push_back(v);
    } else if (t.type == ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE) {
      double v;
      std::memcpy(&v, p, 8);
      out.push_back(v);
    } else {
      std::uint16_t v;
      std::memcpy(&v, p, 2);
      out.push_back(half_to_float(v));
    }
  }
  return out;
}

}  // namespace

nlohmann::json validate_in_ort(const fs::path& compiled, const fs::path& uncompiled, const OrtTarget& target,
                               const std::map<std::string, std::string>& provider_options,
                               const ValidateOptions& options) {
  const ort::Library& lib = *target.library;
  nlohmann::json result;
  model::Model m = model::load_model(compiled);
  result["epcontext_nodes"] = verify_epcontext_model(m).size();
  const auto feeds = ort_feeds(m.proto.graph(), options.inputs, options.dims, runtime::Fill::kOnes, 0);

  ort::Session session(lib, compiled, ort_session_settings(target, provider_options, options.threads));
  const auto outputs = session.run(feeds);
  ort::SessionSettings cpu;  // ORT's CPU EP alone: the uncompiled model as an application would run it
  cpu.threads = options.threads;
  const auto reference = ort::Session(lib, uncompiled, cpu).run(feeds);

  nlohmann::json shapes = nlohmann::json::object(), difference = nlohmann::json::object();
  for (const auto& [name, t] : outputs) {
    shapes[name] = t.shape;
    if (!is_floating(t.type)) continue;
    const std::vector<double> got = as_doubles(t);
    std::int64_t nan = 0, inf = 0;
    for (double v : got) nan += std::isnan(v), inf += std::isinf(v);
    if (nan || inf)
      throw BuildError(file_error(to_utf8(compiled), "validation in ONNX Runtime " + lib.version() + " with " +
                                                         target.ep_name + " failed: output '" + name + "' has " +
                                                         std::to_string(nan) + " NaN and " + std::to_string(inf) +
                                                         " Inf values (of " + std::to_string(got.size()) + ") on " +
                                                         options.inputs_origin));
    auto ref = reference.find(name);
    if (ref == reference.end() || ref->second.type != t.type || ref->second.shape != t.shape) continue;
    const std::vector<double> want = as_doubles(ref->second);
    double max_abs = 0, lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (std::size_t i = 0; i < got.size(); ++i) {
      max_abs = std::max(max_abs, std::abs(got[i] - want[i]));
      if (std::isfinite(want[i])) lo = std::min(lo, want[i]), hi = std::max(hi, want[i]);
    }
    const double span = hi >= lo ? hi - lo : 0.0;
    difference[name] = {{"max_abs", max_abs}, {"span", span}, {"relative", span > 0 ? max_abs / span : 0.0}};
  }
  result["mode"] = "run";
  result["runtime"] = "onnxruntime " + lib.version();
  result["execution_provider"] = target.ep_name;
  result["fed"] = options.inputs_origin;
  nlohmann::json inputs = nlohmann::json::object();
  for (const auto& [name, t] : feeds) inputs[name] = t.shape;
  result["inputs"] = inputs;
  if (const auto open = model::open_input_dims(m.proto.graph(), options.dims); !open.empty() && options.inputs.empty())
    result["warnings"] = {model::defaulted_dims_warning(open, 1, "validation")};
  result["outputs"] = shapes;
  // Against the uncompiled model in ORT's CPU EP, per floating-point output.
  result["difference"] = difference;
  return result;
}

}  // namespace winml::compile
