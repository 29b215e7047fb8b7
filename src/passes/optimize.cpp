#include "passes/optimize.h"

#include <chrono>
#include <set>
#include <unordered_set>

#include "base/atomic_file.h"
#include "base/error.h"
#include "base/text.h"
#include "config/rule_names.h"
#include "ep/ep_table.h"
#include "model/epcontext.h"
#include "model/model_io.h"
#include "model/walk.h"
#include "passes/registry.h"
#include "passes/runtime_evaluator.h"
#include "base/path_text.h"

namespace winml::passes {

OptimizeOptions OptimizeOptions::from_config(const config::OptimizeConfig& c, const std::string& ep) {
  OptimizeOptions o;
  o.level = c.level;
  o.passes = c.passes;
  o.ep = ep;
  return o;
}

std::vector<std::string> resolve_passes(const std::string& level, const std::map<std::string, bool>& overrides) {
  auto levels = config::optimization_levels();
  if (std::find(levels.begin(), levels.end(), level) == levels.end())
    throw InputError("unknown optimization level '" + level + "' (known: " + join(levels, ", ") + ")");
  std::set<std::string> on;
  for (const auto& p : config::optimization_level_passes(level)) {
    if (!find_pass(p))
      throw InputError("optimization level '" + level + "' names pass '" + p + "', which this tool does not have");
    on.insert(p);
  }
  for (const auto& [name, enabled] : overrides) {
    if (!find_pass(name))
      throw InputError("unknown optimization pass '" + name + "' (known: " + join(pass_names(), ", ") + ")");
    if (enabled) on.insert(name);
    else on.erase(name);
  }
  std::vector<std::string> ordered;
  for (const auto& p : pass_registry())
    if (on.count(std::string(p.name))) ordered.emplace_back(p.name);
  return ordered;
}

std::int64_t count_nodes(const onnx::ModelProto& m) {
  std::int64_t n = 0;
  model::for_each_graph(m.graph(), [&](const onnx::GraphProto& g, int) { n += g.node_size(); });
  return n;
}

namespace {

std::int64_t count_initializers(const onnx::ModelProto& m) {
  std::int64_t n = 0;
  model::for_each_graph(m.graph(), [&](const onnx::GraphProto& g, int) { n += g.initializer_size(); });
  return n;
}

// value_info entries for values that no longer exist (or duplicate inputs and
// outputs) are dropped, so the saved model describes only live values.
void prune_value_info(onnx::GraphProto& g) {
  std::unordered_set<std::string> live, io;
  for (const auto& n : g.node())
    for (const auto& o : n.output()) live.insert(o);
  for (const auto& i : g.input()) io.insert(i.name());
  for (const auto& o : g.output()) io.insert(o.name());
  std::unordered_set<std::string> seen;
  auto* vi = g.mutable_value_info();
  int keep = 0;
  for (int i = 0; i < vi->size(); ++i) {
    const auto& name = vi->Get(i).name();
    if (!live.count(name) || io.count(name) || !seen.insert(name).second) continue;
    if (keep != i) vi->SwapElements(keep, i);
    ++keep;
  }
  vi->DeleteSubrange(keep, vi->size() - keep);
}

std::vector<std::string> output_names(const onnx::GraphProto& g) {
  std::vector<std::string> names;
  for (const auto& o : g.output()) names.push_back(o.name());
  return names;
}

// Drops imports of domains no node uses any more, when this optimization added them.
void drop_unused_added_opsets(onnx::ModelProto& m, const std::set<std::string>& original) {
  std::set<std::string> used;
  model::for_each_graph(m.graph(), [&](const onnx::GraphProto& g, int) {
    for (const auto& n : g.node()) used.insert(n.domain());
  });
  auto* imports = m.mutable_opset_import();
  for (int i = imports->size() - 1; i >= 0; --i) {
    const auto& d = imports->Get(i).domain();
    if (!original.count(d) && !used.count(d)) imports->DeleteSubrange(i, 1);
  }
}

}  // namespace

nlohmann::json OptimizeReport::to_json(bool with_timings) const {
  nlohmann::json j;
  j["passes"] = passes;
  j["rewrites"] = rewrites;
  j["nodes_before"] = nodes_before;
  j["nodes_after"] = nodes_after;
  j["initializers_before"] = initializers_before;
  j["initializers_after"] = initializers_after;
  j["rounds"] = rounds;
  j["fixed_point"] = fixed_point;
  j["opsets"] = {{"ai.onnx", opsets.onnx}, {"com.microsoft", opsets.microsoft}, {"libonnx_max", opsets.libonnx_max}};
  j["notes"] = notes;
  if (with_timings) j["seconds"] = seconds;
  return j;
}

void refuse_compiled_model(const onnx::ModelProto& proto, const std::string& path) {
  model::refuse_epcontext_input(proto, path,
                                " and cannot be re-optimized. Run optimize on the original ONNX model before "
                                "compilation.");
}

model::Model load_model_to_optimize(const std::filesystem::path& path) {
  try {
    return model::load_model(path);
  } catch (const InputError&) {
    // Recognise a compiled model even if it does not load (say, a missing
    // EPContext blob): that message tells the user what to do instead.
    onnx::ModelProto proto;
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec) && proto.ParseFromString(read_file(path)))
      refuse_compiled_model(proto, to_utf8(path));
    throw;
  }
}

OptimizeReport optimize_model(model::Model& model, const OptimizeOptions& options) {
  refuse_compiled_model(model.proto, to_utf8(model.path));
  OptimizeReport report;
  report.passes = resolve_passes(options.level, options.passes);
  std::unique_ptr<ep::EpTable> table;
  if (!options.ep.empty()) table = std::make_unique<ep::EpTable>(ep::load_ep_table(options.ep));

  PassContext ctx{
      model, opset_facts(model), table.get(), options.evaluator ? options.evaluator : &runtime_evaluator(), {}};
  report.opsets = ctx.opsets;
  report.nodes_before = count_nodes(model.proto);
  report.initializers_before = count_initializers(model.proto);
  const auto outputs_before = output_names(model.proto.graph());
  std::set<std::string> imports_before;
  for (const auto& o : model.proto.opset_import()) imports_before.insert(o.domain());

  std::vector<std::pair<std::string, std::unique_ptr<Pass>>> rewriters;
  std::unique_ptr<Pass> infer;
  for (const auto& name : report.passes) {
    report.rewrites[name] = 0;
    report.seconds[name] = 0;
    if (name == kInferShapes) infer = find_pass(name)->make();
    else rewriters.emplace_back(name, find_pass(name)->make());
  }
  auto timed = [&](const std::string& name, Pass& pass) {
    auto start = std::chrono::steady_clock::now();
    int n = pass.run_model(ctx);
    report.seconds[name] += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    report.rewrites[name] += n;
    return n;
  };

  report.fixed_point = false;
  for (int round = 1; round <= std::max(1, options.max_rounds); ++round) {
    report.rounds = round;
    if (infer) timed(std::string(kInferShapes), *infer);
    int changes = 0;
    for (auto& [name, pass] : rewriters) changes += timed(name, *pass);
    if (changes == 0) {
      report.fixed_point = true;
      break;
    }
  }
  // Shape inference's own count is the number of values it typed, not a rewrite.
  model::for_each_graph(*model.proto.mutable_graph(), [](onnx::GraphProto& g, int) { prune_value_info(g); });
  drop_unused_added_opsets(model.proto, imports_before);

  if (output_names(model.proto.graph()) != outputs_before)
    throw BuildError(file_error(to_utf8(model.path), "optimization changed the graph outputs (internal error)"));
  report.nodes_after = count_nodes(model.proto);
  report.initializers_after = count_initializers(model.proto);
  if (!report.fixed_point)
    ctx.note("stopped after " + std::to_string(report.rounds) + " rounds without reaching a fixed point");
  report.notes = ctx.notes;
  report.opsets.microsoft = model.opset("com.microsoft");
  return report;
}

}  // namespace winml::passes
