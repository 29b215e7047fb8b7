#include "quant/quantize.h"

#include <algorithm>
#include <chrono>
#include <functional>

#include "base/error.h"
#include "model/epcontext.h"
#include "model/input_dims.h"
#include "model/spill_file.h"
#include "model/tensor_data.h"
#include "model/walk.h"
#include "quant/accuracy.h"
#include "quant/calibration/calibrate.h"
#include "quant/calibration/samples.h"
#include "quant/fp16_convert.h"
#include "quant/graph_edit.h"
#include "quant/graph_info.h"
#include "quant/nbits_quant.h"
#include "quant/op_support.h"
#include "quant/opset_upgrade.h"
#include "quant/qdq_apply.h"
#include "quant/qdq_plan.h"
#include "quant/runtime_runner.h"
#include "quant/strip_qdq.h"
#include "runtime/thread_pool.h"
#include "base/path_text.h"

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

bool weights_only(const config::QuantizeConfig& c) { return c.activation_type == "float32"; }

QdqOptions qdq_options(const config::QuantizeConfig& c, const QuantizeContext& ctx, std::int64_t opset) {
  QdqOptions o;
  o.weight_type = parse_qtype(c.weight_type);
  o.quantize_activations = !weights_only(c);
  o.activation_type = o.quantize_activations ? parse_qtype(c.activation_type) : QType::kUInt8;
  o.block_size = c.block_size;
  o.per_channel = c.per_channel;
  o.weight_symmetric = *c.weight_symmetric;  // resolved (config schema)
  o.activation_symmetric = *c.activation_symmetric;
  o.reduce_range = c.reduce_range;
  if (c.op_types_to_quantize.empty()) o.op_types = quantizable_op_types(ctx.ep);
  else o.op_types.insert(c.op_types_to_quantize.begin(), c.op_types_to_quantize.end());
  o.nodes_to_exclude.insert(c.nodes_to_exclude.begin(), c.nodes_to_exclude.end());
  o.axis_supported = opset >= 13 || !qdq_domain(o, opset).empty();
  o.bias_correction = c.bias_correction && o.quantize_activations;  // (its means come from calibration)
  return o;
}

NBitsOptions nbits_options(const config::QuantizeConfig& c) {
  NBitsOptions o;
  o.bits = c.bits;
  o.block_size = c.block_size;
  o.symmetric = *c.weight_symmetric;  // resolved (config schema)
  o.accuracy_level = c.accuracy_level;
  o.nodes_to_exclude.insert(c.nodes_to_exclude.begin(), c.nodes_to_exclude.end());
  return o;
}

void log(const QuantizeContext& ctx, const std::string& line) {
  if (ctx.log) ctx.log(line);
}

// True when calibration saw a value `body` computes itself (its formal inputs
// included): values it reads from outside have ranges whether it ran or not.
bool body_ran(const onnx::GraphProto& body, const std::vector<std::string>& calibrated,
              const std::map<std::string, TensorRange>& ranges) {
  std::set<std::string> own;
  for (const auto& i : body.input()) own.insert(i.name());
  for (const auto& n : body.node()) own.insert(n.output().begin(), n.output().end());
  return std::any_of(calibrated.begin(), calibrated.end(),
                     [&](const std::string& t) { return own.count(t) && ranges.count(t); });
}

// The float model's outputs calibration keeps for the accuracy pass, at most.
constexpr std::size_t kKeptOutputsBytes = std::size_t{256} << 20;

// Samples run at once on the project runtime (calibration, the accuracy
// pass): one per thread. The runners share one plan and its weights; each
// has its own activations.
int concurrent_samples(int threads) {
  return threads > 0 ? threads : runtime::ThreadPool::default_threads();
}

}  // namespace

QuantizeResult quantize_model(const model::Model& in, const config::QuantizeConfig& configured,
                              const QuantizeContext& given) {
  // Computed defaults come from the schema, the one place they are defined.
  const config::QuantizeConfig c = config::quantize_schema()->resolved(configured);
  QuantizeContext ctx = given;
  if (!ctx.runner) ctx.runner = runtime_runner_factory({.threads = ctx.threads, .dims = ctx.dims});
  const std::string path = ctx.model_path.empty() ? to_utf8(in.path) : ctx.model_path;
  model::refuse_epcontext_input(in.proto, path, ". Run quantize on the original ONNX model before compilation.");

  QuantizeResult r;
  r.model.proto = in.proto;
  r.model.path = in.path;
  r.model.external_files = in.external_files;
  if (!ctx.scratch_dir.empty()) r.model.spill = std::make_shared<model::SpillFile>(ctx.scratch_dir);
  model::Model& out = r.model;

  // A quantized input is never quantized twice: refuse, or undo its Q/DQ first.
  QdqCount existing = count_qdq(in.proto);
  // The float model calibration and the accuracy report run: the input, or
  // a copy of `out` once its Q/DQ are stripped or its opset is upgraded (the
  // names the plan uses).
  std::optional<model::Model> prepared;
  const auto prepare = [&] {
    prepared.emplace();
    prepared->proto = out.proto;
    prepared->path = out.path;
    prepared->external_files = out.external_files;
  };
  if (existing.total() > 0) {
    if (!c.requantize)
      throw InputError(file_error(path, "Input model is already quantized (" + std::to_string(existing.quantize) +
                                            " QuantizeLinear, " + std::to_string(existing.dequantize) +
                                            " DequantizeLinear nodes). Quantize the float model, or set "
                                            "requantize = true (--requantize) to remove its Q/DQ and quantize again."));
    strip_qdq(out);
    prepare();
  }
  json report = {{"mode", c.mode}, {"requantized", existing.total() > 0}};
  json warnings = json::array();  // every fallback the result hides, in the report and the build summary
  if (c.mode == "qdq" && is_4bit(parse_qtype(c.weight_type)) && out.opset() < kBlockedQdqOpset) {
    const std::int64_t from = out.opset();
    upgrade_to_opset21(out, path);
    log(ctx, "converted opset " + std::to_string(from) + " to " + std::to_string(kBlockedQdqOpset) + " for " +
                 c.weight_type + " weights (DequantizeLinear's block_size)");
    report["opset_upgraded_from"] = from;
    prepare();
  }
  if (c.mode == "qdq" && out.opset() < kQdqMinOpset) {
    const std::int64_t from = out.opset();
    upgrade_opset(out, kQdqUpgradeOpset, path);
    log(ctx, "upgraded opset " + std::to_string(from) + " to " + std::to_string(kQdqUpgradeOpset) +
                 " for QDQ quantization (as ONNX Runtime's quantizer does)");
    report["opset_upgraded_from"] = from;
    prepare();
  }
  const model::Model& reference = prepared ? *prepared : in;
  const std::int64_t opset = out.opset();
  report["opset"] = opset;

  std::unique_ptr<SampleSource> samples = sample_source(reference.proto, c, ctx);
  std::string dims_warning;
  // Running the model on sizes chosen for open dimensions is the usual cause
  // of a failure (a pooling window larger than a 1x1 image): say so with it.
  const auto with_dims_hint = [&dims_warning](const std::function<void()>& fn) {
    try {
      fn();
    } catch (const InputError& e) {
      if (dims_warning.empty()) throw;
      throw InputError(std::string(e.what()) + " (" + dims_warning + ")");
    } catch (const BuildError& e) {
      if (dims_warning.empty()) throw;
      throw BuildError(std::string(e.what()) + " (" + dims_warning + ")");
    }
  };
  if (c.calibration_data.empty()) {
    // Generated samples need a size for every open input dimension.
    const auto open = model::open_input_dims(reference.proto.graph(), ctx.dims);
    if (!open.empty()) dims_warning = model::defaulted_dims_warning(open, 1, "calibration");
    if (!open.empty()) warnings.push_back(dims_warning);
  }
  // As configured (relative to the project): reports are cached and shared, so no machine paths.
  report["calibration_data"] = c.calibration_data.empty() ? samples->describe() : c.calibration_data;
  report["samples"] = samples->size();
  std::vector<std::optional<Feeds>> reference_outputs;  // per sample, as calibration saw them
  // Samples spread over runners of one thread each: a batch-1 model rarely
  // keeps several threads busy, separate samples do. A runner the caller
  // gives runs one sample at a time.
  int sample_workers = 1;
  RunnerFactory sample_runner = ctx.runner;
  if (!given.runner) {
    sample_workers = concurrent_samples(ctx.threads);
    sample_runner = runtime_runner_factory({.threads = sample_workers > 1 ? 1 : ctx.threads, .dims = ctx.dims});
  }

  if (c.mode == "matmulnbits") {
    const NBitsOptions o = nbits_options(c);
    log(ctx, "weight-only " + std::to_string(o.bits) + "-bit MatMulNBits, blocks of " +
                 std::to_string(o.block_size) + (o.symmetric ? ", symmetric" : ", asymmetric"));
    const NBitsResult q = quantize_to_nbits(out, o);
    report["nodes_quantized"] = q.quantized;
    report["nodes_skipped"] = q.skipped;
    report["skipped_nodes"] = q.skip_reasons;
    report["bits"] = o.bits;
    report["block_size"] = o.block_size;
    report["weight_symmetric"] = o.symmetric;
    report["accuracy_level"] = o.accuracy_level;
    report["biases_folded"] = q.biases;
    report["tied_embeddings"] = q.tied;
    if (!q.tied.empty())
      log(ctx, "LM head tied to the embedding (" + q.tied.front() +
                   "): quantized for the head, the Gather keeps the float table");
    report["calibration_time_seconds"] = 0.0;
    report["calibration_setup_seconds"] = 0.0;
  } else if (c.mode == "fp16") {
    Fp16Options o;
    o.keep_io_types = c.keep_io_types;
    o.op_block_list.insert(c.op_block_list.begin(), c.op_block_list.end());
    o.ep = ctx.ep;
    report["folded_identities"] = fold_constant_identities(*out.proto.mutable_graph());
    Fp16Result f = convert_to_fp16(out, o);
    report["nodes_quantized"] = f.fp16_nodes;
    report["nodes_skipped"] = f.float_nodes;
    report["skipped_op_types"] = f.float_op_types;
    report["casts_inserted"] = f.casts;
    report["constants_converted"] = f.converted_constants;
    report["calibration_time_seconds"] = 0.0;
    report["calibration_setup_seconds"] = 0.0;
  } else {
    QdqOptions o = qdq_options(c, ctx, opset);
    if (c.per_channel && !o.axis_supported)
      warnings.push_back("per_channel = true needs opset 13 (QuantizeLinear's axis) for " + c.weight_type +
                         " weights; the model has opset " + std::to_string(opset) +
                         ", so weights were quantized per tensor");
    report["folded_identities"] = fold_constant_identities(*out.proto.mutable_graph());
    // The main graph and every If/Loop/Scan body, planned first (bodies are
    // rewritten innermost first, the main graph last: rewriting a graph
    // rebuilds its nodes and with them the bodies they hold).
    const GraphInfo main_info = analyze_graph(out.proto);
    std::vector<Subgraph> graphs = analyze_subgraphs(out.proto, main_info);
    graphs.insert(graphs.begin(), Subgraph{out.proto.mutable_graph(), main_info});
    std::vector<QdqPlan> plans;
    std::vector<onnx::GraphProto> unplanned;  // bodies as they were: planning renames, and a body may stay float
    std::set<std::string> tensor_set;
    std::map<std::string, std::int64_t> means;
    for (auto& g : graphs) {
      unplanned.push_back(&g == &graphs.front() ? onnx::GraphProto() : *g.graph);
      plans.push_back(plan_qdq(*g.graph, g.info, o, opset));
      for (const auto& t : plans.back().calibration_tensors(g.info)) tensor_set.insert(t);
      for (const auto& m : plans.back().mean_tensors()) means.insert(m);
    }
    const std::vector<std::string> tensors(tensor_set.begin(), tensor_set.end());
    if (!o.quantize_activations) log(ctx, "weights only (activations stay float32): nothing to calibrate");
    else log(ctx, "calibrating " + std::to_string(tensors.size()) + " tensors on " + std::to_string(samples->size()) +
                 " samples (" + c.calibration_method + ")" +
                 (graphs.size() > 1 ? ", in the main graph and " + std::to_string(graphs.size() - 1) + " bodies" : ""));

    CalibrationOptions co;
    co.method = parse_calibration_method(c.calibration_method);
    co.symmetric = o.activation_symmetric;
    co.percentile = c.percentile;
    co.threads = ctx.threads;
    co.num_bins = *c.num_bins;
    // The runners' results do not depend on their thread counts, so the
    // accuracy pass can compare the float model's outputs calibration saw.
    if (ctx.accuracy_report) co.keep_outputs_bytes = kKeptOutputsBytes;
    co.workers = sample_workers;
    CalibrationResult cal;
    with_dims_hint([&] { cal = calibrate(reference, tensors, *samples, co, sample_runner, means); });
    reference_outputs = std::move(cal.outputs);

    std::map<std::string, std::size_t> skipped_ops;
    ApplyResult applied;
    std::size_t quantized = 0, skipped = 0, folded = 0, unreached = 0, bodies_quantized = 0;
    std::set<std::string> replaced;
    for (std::size_t k = graphs.size(); k-- > 0;) {
      const QdqPlan& plan = plans[k];
      // A body the samples never ran (the other branch of an If) has no ranges for its own values: it stays float.
      const bool reached = k == 0 || body_ran(*graphs[k].graph, plan.calibration_tensors(graphs[k].info), cal.ranges);
      if (!reached) {
        unreached += plan.quantized_nodes.empty() ? 0 : 1;
        for (const auto& [i, _] : plan.skipped) ++skipped_ops[graphs[k].graph->node(i).op_type()];
        for (int i : plan.quantized_nodes) ++skipped_ops[graphs[k].graph->node(i).op_type()];
        skipped += plan.skipped.size() + plan.quantized_nodes.size();
        *graphs[k].graph = std::move(unplanned[k]);  // its inner bodies (done before it) are restored with it
        continue;
      }
      for (const auto& [i, _] : plan.skipped) ++skipped_ops[graphs[k].graph->node(i).op_type()];
      ApplyResult a = apply_qdq(out, *graphs[k].graph, plan, graphs[k].info, cal.ranges, o, cal.channel_means);
      quantized += plan.quantized_nodes.size();
      bodies_quantized += k > 0 && !plan.quantized_nodes.empty();
      skipped += plan.skipped.size();
      folded += plan.removed_nodes.size();
      applied.activation_pairs += a.activation_pairs;
      applied.quantized_weights += a.quantized_weights;
      applied.quantized_biases += a.quantized_biases;
      applied.adjusted_weight_scales += a.adjusted_weight_scales;
      applied.corrected_biases += a.corrected_biases;
      applied.uncalibrated.insert(applied.uncalibrated.end(), a.uncalibrated.begin(), a.uncalibrated.end());
      if (!a.qdq_domain.empty()) applied.qdq_domain = a.qdq_domain;
      replaced.insert(a.replaced.begin(), a.replaced.end());
    }
    // Outer float constants every body now reads quantized go (each graph holds its own).
    model::for_each_graph(*out.proto.mutable_graph(),
                          [&](onnx::GraphProto& g, int) { remove_unused_initializers(g, replaced); });
    if (unreached)
      warnings.push_back(std::to_string(unreached) +
                         (unreached == 1 ? " control-flow body never ran on the calibration samples (an If branch "
                                           "they do not take) and stays float"
                                         : " control-flow bodies never ran on the calibration samples (If branches "
                                           "they do not take) and stay float"));
    report["subgraphs_quantized"] = bodies_quantized;
    report["skipped_op_types"] = json(skipped_ops);
    report["weight_type"] = c.weight_type;
    report["activation_type"] = c.activation_type;
    if (is_4bit(o.weight_type)) report["block_size"] = o.block_size;
    report["per_channel"] = c.per_channel && o.axis_supported;  // what was done, not what was asked
    report["weight_symmetric"] = o.weight_symmetric;
    report["activation_symmetric"] = o.activation_symmetric;
    report["calibration_method"] = c.calibration_method;
    report["calibration_time_seconds"] = cal.seconds;
    report["calibration_setup_seconds"] = cal.setup_seconds;  // (part of the above)
    report["nodes_quantized"] = quantized;
    report["nodes_skipped"] = skipped;
    report["folded_activations"] = folded;
    report["qdq_pairs"] = applied.activation_pairs;
    report["quantized_weights"] = applied.quantized_weights;
    report["quantized_biases"] = applied.quantized_biases;
    report["weight_scales_raised_for_bias"] = applied.adjusted_weight_scales;
    report["bias_correction"] = o.bias_correction;
    report["corrected_biases"] = applied.corrected_biases;
    report["qdq_domain"] = applied.qdq_domain.empty() ? "ai.onnx" : applied.qdq_domain;
    report["uncalibrated_tensors"] = applied.uncalibrated;
  }

  if (out.spill) out.spill->attach(out);  // the new weights, readable from here on
  if (report.value("nodes_quantized", 0) == 0)
    warnings.push_back(std::string("no node was quantized") +
                       (report.value("nodes_skipped", 0) ? " (every candidate was skipped: see skipped_op_types)"
                                                         : " (the model has no node of a type quantize handles)") +
                       "; the model stays in float");
  if (ctx.accuracy_report) {
    log(ctx, "comparing against the float model on " + std::to_string(samples->size()) + " samples");
    std::vector<OutputAccuracy> table;
    with_dims_hint([&] {
      table = compare_models(reference, out, *samples, sample_runner, reference_outputs, sample_workers);
    });
    report["accuracy"] = accuracy_json(table);
    for (const auto& a : table)
      if (a.constant) warnings.push_back(constant_output_message(a));
  }
  report["warnings"] = warnings;
  for (const auto& w : warnings) log(ctx, "warning: " + w.get<std::string>());
  r.report = std::move(report);
  return r;
}

}  // namespace winml::quant
