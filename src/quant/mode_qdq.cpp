// [quantize] mode = "qdq": QuantizeLinear/DequantizeLinear pairs with scales
// calibrated on the samples, in the main graph and every If/Loop/Scan body.
#include <set>

#include "model/walk.h"
#include "quant/calibration/calibrate.h"
#include "quant/graph_edit.h"
#include "quant/graph_info.h"
#include "quant/op_support.h"
#include "quant/opset_upgrade.h"
#include "quant/qdq_apply.h"
#include "quant/qdq_plan.h"
#include "quant/quantize_mode.h"

namespace winml::quant {

namespace {

using nlohmann::json;

// The float model's outputs calibration keeps for the accuracy pass, at most.
constexpr std::size_t kKeptOutputsBytes = std::size_t{256} << 20;

QdqOptions qdq_options(const config::QuantizeConfig& c, const QuantizeContext& ctx, std::int64_t opset) {
  QdqOptions o;
  o.weight_type = parse_qtype(c.weight_type);
  o.quantize_activations = c.activation_type != "float32";
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

// The main graph and every If/Loop/Scan body, planned (bodies are rewritten
// innermost first, the main graph last: rewriting a graph rebuilds its
// nodes and with them the bodies they hold).
struct Planned {
  std::vector<Subgraph> graphs;             // the main graph first
  std::vector<QdqPlan> plans;               // one per graph
  std::vector<onnx::GraphProto> unplanned;  // bodies as they were: planning renames, and a body may stay float
  std::vector<std::string> tensors;         // to calibrate
  std::map<std::string, std::int64_t> means;
};

Planned plan_graphs(model::Model& out, const QdqOptions& o, std::int64_t opset) {
  Planned p;
  const GraphInfo main_info = analyze_graph(out.proto);
  p.graphs = analyze_subgraphs(out.proto, main_info);
  p.graphs.insert(p.graphs.begin(), Subgraph{out.proto.mutable_graph(), main_info});
  std::set<std::string> tensor_set;
  for (auto& g : p.graphs) {
    p.unplanned.push_back(&g == &p.graphs.front() ? onnx::GraphProto() : *g.graph);
    p.plans.push_back(plan_qdq(*g.graph, g.info, o, opset));
    for (const auto& t : p.plans.back().calibration_tensors(g.info)) tensor_set.insert(t);
    for (const auto& m : p.plans.back().mean_tensors()) p.means.insert(m);
  }
  p.tensors.assign(tensor_set.begin(), tensor_set.end());
  return p;
}

CalibrationResult calibrate_plans(const ModeCall& call, const QdqOptions& o, const Planned& p) {
  const config::QuantizeConfig& c = call.config;
  if (!o.quantize_activations) say(call.context, "weights only (activations stay float32): nothing to calibrate");
  else
    say(call.context,
        "calibrating " + std::to_string(p.tensors.size()) + " tensors on " + std::to_string(call.samples.size()) +
            " samples (" + c.calibration_method + ")" +
            (p.graphs.size() > 1 ? ", in the main graph and " + std::to_string(p.graphs.size() - 1) + " bodies" : ""));
  CalibrationOptions co;
  co.method = parse_calibration_method(c.calibration_method);
  co.symmetric = o.activation_symmetric;
  co.percentile = c.percentile;
  co.threads = call.context.threads;
  co.num_bins = *c.num_bins;
  // The runners' results do not depend on their thread counts, so the
  // accuracy pass can compare the float model's outputs calibration saw.
  if (call.context.accuracy_report) co.keep_outputs_bytes = kKeptOutputsBytes;
  co.workers = call.runners.workers;
  CalibrationResult cal;
  call.dims_hint.run(
      [&] { cal = calibrate(call.reference, p.tensors, call.samples, co, call.runners.factory, p.means); });
  return cal;
}

// What applying the plans did, over every graph.
struct Applied {
  ApplyResult totals;
  std::map<std::string, std::size_t> skipped_ops;
  std::size_t quantized = 0, skipped = 0, folded = 0, unreached = 0, bodies_quantized = 0;
};

Applied apply_plans(model::Model& out, Planned& p, const CalibrationResult& cal, const QdqOptions& o) {
  Applied r;
  std::set<std::string> replaced;
  for (std::size_t k = p.graphs.size(); k-- > 0;) {
    const QdqPlan& plan = p.plans[k];
    onnx::GraphProto& graph = *p.graphs[k].graph;
    for (const auto& [i, _] : plan.skipped) ++r.skipped_ops[graph.node(i).op_type()];
    r.skipped += plan.skipped.size();
    // A body the samples never ran (the other branch of an If) has no ranges for its own values: it stays float.
    if (k > 0 && !body_ran(graph, plan.calibration_tensors(p.graphs[k].info), cal.ranges)) {
      r.unreached += plan.quantized_nodes.empty() ? 0 : 1;
      for (int i : plan.quantized_nodes) ++r.skipped_ops[graph.node(i).op_type()];
      r.skipped += plan.quantized_nodes.size();
      graph = std::move(p.unplanned[k]);  // its inner bodies (done before it) are restored with it
      continue;
    }
    ApplyResult a = apply_qdq(out, graph, plan, p.graphs[k].info, cal.ranges, o, cal.channel_means);
    r.quantized += plan.quantized_nodes.size();
    r.bodies_quantized += k > 0 && !plan.quantized_nodes.empty();
    r.folded += plan.removed_nodes.size();
    r.totals.activation_pairs += a.activation_pairs;
    r.totals.quantized_weights += a.quantized_weights;
    r.totals.quantized_biases += a.quantized_biases;
    r.totals.adjusted_weight_scales += a.adjusted_weight_scales;
    r.totals.corrected_biases += a.corrected_biases;
    r.totals.uncalibrated.insert(r.totals.uncalibrated.end(), a.uncalibrated.begin(), a.uncalibrated.end());
    if (!a.qdq_domain.empty()) r.totals.qdq_domain = a.qdq_domain;
    replaced.insert(a.replaced.begin(), a.replaced.end());
  }
  // Outer float constants every body now reads quantized go (each graph holds its own).
  model::for_each_graph(*out.proto.mutable_graph(),
                        [&](onnx::GraphProto& g, int) { remove_unused_initializers(g, replaced); });
  return r;
}

void report_qdq(const ModeCall& call, const QdqOptions& o, const CalibrationResult& cal, const Applied& a) {
  const config::QuantizeConfig& c = call.config;
  json& report = call.report;
  if (a.unreached)
    call.warnings.push_back(std::to_string(a.unreached) +
                            (a.unreached == 1 ? " control-flow body never ran on the calibration samples (an If "
                                                "branch they do not take) and stays float"
                                              : " control-flow bodies never ran on the calibration samples (If "
                                                "branches they do not take) and stay float"));
  report["subgraphs_quantized"] = a.bodies_quantized;
  report["skipped_op_types"] = json(a.skipped_ops);
  report["weight_type"] = c.weight_type;
  report["activation_type"] = c.activation_type;
  if (is_4bit(o.weight_type)) report["block_size"] = o.block_size;
  report["per_channel"] = c.per_channel && o.axis_supported;  // what was done, not what was asked
  report["weight_symmetric"] = o.weight_symmetric;
  report["activation_symmetric"] = o.activation_symmetric;
  report["calibration_method"] = c.calibration_method;
  report["calibration_time_seconds"] = cal.seconds;
  report["calibration_setup_seconds"] = cal.setup_seconds;  // (part of the above)
  report["nodes_quantized"] = a.quantized;
  report["nodes_skipped"] = a.skipped;
  report["folded_activations"] = a.folded;
  report["qdq_pairs"] = a.totals.activation_pairs;
  report["quantized_weights"] = a.totals.quantized_weights;
  report["quantized_biases"] = a.totals.quantized_biases;
  report["weight_scales_raised_for_bias"] = a.totals.adjusted_weight_scales;
  report["bias_correction"] = o.bias_correction;
  report["corrected_biases"] = a.totals.corrected_biases;
  report["qdq_domain"] = a.totals.qdq_domain.empty() ? "ai.onnx" : a.totals.qdq_domain;
  report["uncalibrated_tensors"] = a.totals.uncalibrated;
}

}  // namespace

bool convert_for_qdq(model::Model& out, const config::QuantizeConfig& c, const QuantizeContext& ctx,
                     const std::string& path, json& report) {
  bool converted = false;
  if (is_4bit(parse_qtype(c.weight_type)) && out.opset() < kBlockedQdqOpset) {
    const std::int64_t from = out.opset();
    upgrade_to_opset21(out, path);
    say(ctx, "converted opset " + std::to_string(from) + " to " + std::to_string(kBlockedQdqOpset) + " for " +
                 c.weight_type + " weights (DequantizeLinear's block_size)");
    report["opset_upgraded_from"] = from;
    converted = true;
  }
  if (out.opset() < kQdqMinOpset) {
    const std::int64_t from = out.opset();
    upgrade_opset(out, kQdqUpgradeOpset, path);
    say(ctx, "upgraded opset " + std::to_string(from) + " to " + std::to_string(kQdqUpgradeOpset) +
                 " for QDQ quantization (as ONNX Runtime's quantizer does)");
    report["opset_upgraded_from"] = from;
    converted = true;
  }
  return converted;
}

ReferenceOutputs quantize_qdq(const ModeCall& call) {
  const std::int64_t opset = call.out.opset();
  const QdqOptions o = qdq_options(call.config, call.context, opset);
  if (call.config.per_channel && !o.axis_supported)
    call.warnings.push_back("per_channel = true needs opset 13 (QuantizeLinear's axis) for " + call.config.weight_type +
                            " weights; the model has opset " + std::to_string(opset) +
                            ", so weights were quantized per tensor");
  call.report["folded_identities"] = fold_constant_identities(*call.out.proto.mutable_graph());
  Planned planned = plan_graphs(call.out, o, opset);
  CalibrationResult cal = calibrate_plans(call, o, planned);
  const Applied applied = apply_plans(call.out, planned, cal, o);
  report_qdq(call, o, cal, applied);
  return std::move(cal.outputs);
}

}  // namespace winml::quant
