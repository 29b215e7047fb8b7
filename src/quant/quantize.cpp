// quantize_model: prepare (refuse or strip Q/DQ, the mode's conversion) ->
// the mode (quant/quantize_mode.h) -> the accuracy pass against the float model.
#include "quant/quantize.h"

#include <algorithm>
#include <functional>
#include <optional>

#include "base/error.h"
#include "base/path_text.h"
#include "model/epcontext.h"
#include "model/input_dims.h"
#include "model/spill_file.h"
#include "quant/accuracy.h"
#include "quant/calibration/samples.h"
#include "quant/graph_info.h"
#include "quant/quantize_mode.h"
#include "quant/runtime_runner.h"
#include "quant/strip_qdq.h"
#include "runtime/thread_pool.h"

namespace winml::quant {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path resolve(const fs::path& base, const std::string& p) {
  fs::path path = from_utf8(p);
  return path.is_absolute() || base.empty() ? path : base / path;
}

// Inputs to generate: the model's, each replaced by its quantize.input_tensors entry when there is one.
std::vector<InputSpec> generation_inputs(const onnx::ModelProto& m, const config::QuantizeConfig& c,
                                         const QuantizeContext& ctx) {
  std::vector<InputSpec> inputs = model_inputs(m, ctx.dims, true);
  for (const auto& spec : c.input_tensors) {
    auto it = std::find_if(inputs.begin(), inputs.end(), [&](const InputSpec& s) { return s.name == spec.name; });
    if (it == inputs.end())
      throw InputError(file_error(
          ctx.model_path, "quantize.input_tensors names '" + spec.name + "', which is not an input of the model"));
    it->dtype = model::data_type_from_name(spec.dtype);
    if (!spec.shape.empty()) {
      it->shape.clear();
      for (const auto& d : spec.shape) {
        if (d.is_number_integer()) it->shape.push_back(d.get<std::int64_t>());
        else if (auto v = ctx.dims.find(d.get<std::string>()); v != ctx.dims.end()) it->shape.push_back(v->second);
        else it->shape.push_back(1);
      }
    }
  }
  return inputs;
}

std::unique_ptr<SampleSource> sample_source(const onnx::ModelProto& m, const config::QuantizeConfig& c,
                                            const QuantizeContext& ctx) {
  if (!c.calibration_data.empty())
    return directory_samples(resolve(ctx.base_dir, c.calibration_data), c.samples, model_inputs(m, ctx.dims, false));
  GeneratorSpec g;
  g.distribution = c.distribution;
  g.a = c.value_range.size() > 0 ? c.value_range[0] : 0.0;
  g.b = c.value_range.size() > 1 ? c.value_range[1] : 1.0;
  g.seed = static_cast<std::uint64_t>(c.seed);
  return generated_samples(c.samples, generation_inputs(m, c, ctx), g);
}

// Samples run at once on the project runtime (calibration, the accuracy
// pass): one per thread. The runners share one plan and its weights; each
// has its own activations.
int concurrent_samples(int threads) { return threads > 0 ? threads : runtime::ThreadPool::default_threads(); }

// [quantize] mode's values, each a file of its own (quant/quantize_mode.h).
constexpr QuantizeMode kModes[] = {
    {"qdq", &quantize_qdq, &convert_for_qdq}, {"matmulnbits", &quantize_nbits}, {"fp16", &quantize_fp16}};

// The model to quantize and the float model calibration and the accuracy
// pass run: the input, or a copy of the output once its Q/DQ are stripped
// or its opset converted (the names the plan uses).
struct Prepared {
  model::Model out;
  std::optional<model::Model> reference;
};

model::Model copy_of(const model::Model& m) {
  model::Model c;
  c.proto = m.proto;
  c.path = m.path;
  c.external_files = m.external_files;
  return c;
}

Prepared prepare(const model::Model& in, const config::QuantizeConfig& c, const QuantizeContext& ctx,
                 const QuantizeMode& mode, const std::string& path, json& report) {
  model::refuse_epcontext_input(in.proto, path, ". Run quantize on the original ONNX model before compilation.");
  Prepared p{copy_of(in), std::nullopt};
  if (!ctx.scratch_dir.empty()) p.out.spill = std::make_shared<model::SpillFile>(ctx.scratch_dir);
  // A quantized input is never quantized twice: refuse, or undo its Q/DQ first.
  const QdqCount existing = count_qdq(in.proto);
  report = {{"mode", c.mode}, {"requantized", existing.total() > 0}};
  bool changed = false;
  if (existing.total() > 0) {
    if (!c.requantize)
      throw InputError(file_error(path, "Input model is already quantized (" + std::to_string(existing.quantize) +
                                            " QuantizeLinear, " + std::to_string(existing.dequantize) +
                                            " DequantizeLinear nodes). Quantize the float model, or set "
                                            "requantize = true (--requantize) to remove its Q/DQ and quantize again."));
    strip_qdq(p.out);
    changed = true;
  }
  if (mode.convert && mode.convert(p.out, c, ctx, path, report)) changed = true;
  if (changed) p.reference = copy_of(p.out);
  report["opset"] = p.out.opset();
  return p;
}

// The warning that generated samples were given sizes for open input
// dimensions (empty when none was, or the samples are the user's).
std::string open_dims_warning(const model::Model& reference, const config::QuantizeConfig& c,
                              const QuantizeContext& ctx) {
  if (!c.calibration_data.empty()) return {};
  // Generated samples need a size for every open input dimension.
  const auto open = model::open_input_dims(reference.proto.graph(), ctx.dims);
  return open.empty() ? std::string() : model::defaulted_dims_warning(open, 1, "calibration");
}

// Samples spread over runners of one thread each: a batch-1 model rarely
// keeps several threads busy, separate samples do. A runner the caller
// gives runs one sample at a time.
SampleRunners sample_runners(const QuantizeContext& given, const RunnerFactory& runner) {
  if (given.runner) return {runner, 1};
  const int workers = concurrent_samples(given.threads);
  return {runtime_runner_factory({.threads = workers > 1 ? 1 : given.threads, .dims = given.dims}), workers};
}

void compare_with_float(const ModeCall& call, ReferenceOutputs& reference_outputs) {
  say(call.context, "comparing against the float model on " + std::to_string(call.samples.size()) + " samples");
  std::vector<OutputAccuracy> table;
  call.dims_hint.run([&] {
    table = compare_models(call.reference, call.out, call.samples, call.runners.factory, reference_outputs,
                           call.runners.workers);
  });
  call.report["accuracy"] = accuracy_json(table);
  for (const auto& a : table)
    if (a.constant) call.warnings.push_back(constant_output_message(a));
}

}  // namespace

void DimsHint::run(const std::function<void()>& step) const {
  try {
    step();
  } catch (const InputError& e) {
    if (warning_.empty()) throw;
    throw InputError(std::string(e.what()) + " (" + warning_ + ")");
  } catch (const BuildError& e) {
    if (warning_.empty()) throw;
    throw BuildError(std::string(e.what()) + " (" + warning_ + ")");
  }
}

void say(const QuantizeContext& ctx, const std::string& line) {
  if (ctx.log) ctx.log(line);
}

const QuantizeMode& quantize_mode_named(const std::string& name) {
  for (const QuantizeMode& m : kModes)
    if (m.name == name) return m;
  throw BuildError("unknown quantize mode '" + name + "'");
}

QuantizeResult quantize_model(const model::Model& in, const config::QuantizeConfig& configured,
                              const QuantizeContext& given) {
  // Computed defaults come from the schema, the one place they are defined.
  const config::QuantizeConfig c = config::quantize_schema()->resolved(configured);
  const QuantizeMode& mode = quantize_mode_named(c.mode);
  QuantizeContext ctx = given;
  if (!ctx.runner) ctx.runner = runtime_runner_factory({.threads = ctx.threads, .dims = ctx.dims});
  const std::string path = ctx.model_path.empty() ? to_utf8(in.path) : ctx.model_path;

  QuantizeResult r;
  Prepared prepared = prepare(in, c, ctx, mode, path, r.report);
  r.model = std::move(prepared.out);
  const model::Model& reference = prepared.reference ? *prepared.reference : in;
  json warnings = json::array();
  std::unique_ptr<SampleSource> samples = sample_source(reference.proto, c, ctx);
  const std::string dims_warning = open_dims_warning(reference, c, ctx);
  if (!dims_warning.empty()) warnings.push_back(dims_warning);
  const DimsHint dims_hint(dims_warning);
  // As configured (relative to the project): reports are cached and shared, so no machine paths.
  r.report["calibration_data"] = c.calibration_data.empty() ? samples->describe() : c.calibration_data;
  r.report["samples"] = samples->size();
  const SampleRunners runners = sample_runners(given, ctx.runner);

  const ModeCall call{c, ctx, r.model, reference, *samples, runners, dims_hint, r.report, warnings};
  ReferenceOutputs reference_outputs = mode.quantize(call);
  if (r.model.spill) r.model.spill->attach(r.model);  // the new weights, readable from here on
  if (r.report.value("nodes_quantized", 0) == 0)
    warnings.push_back(std::string("no node was quantized") +
                       (r.report.value("nodes_skipped", 0) ? " (every candidate was skipped: see skipped_op_types)"
                                                           : " (the model has no node of a type quantize handles)") +
                       "; the model stays in float");
  if (ctx.accuracy_report) compare_with_float(call, reference_outputs);
  r.report["warnings"] = warnings;
  for (const auto& w : warnings) say(ctx, "warning: " + w.get<std::string>());
  return r;
}

}  // namespace winml::quant
