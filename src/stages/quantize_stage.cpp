#include "stages/quantize_stage.h"
#include "stages/save_options.h"

#include <cstdio>

#include "base/error.h"
#include "base/path_text.h"
#include "model/model_io.h"
#include "quant/quantize.h"

namespace winml::stages {

pipeline::Declarations QuantizeStage::declare(const config::ModelSettings& config) const {
  pipeline::Declarations d;
  d.config = {"quantize", "compile.ep", "model.dims"};
  if (!config.quantize.calibration_data.empty())
    d.files = {{graph::InputKind::kTree, config.quantize.calibration_data}};
  d.rules = {"ep/" + config.compile.ep + ".toml"};
  d.code = {"winml_quant", "stages/quantize_stage"};
  d.writes_models = true;
  return d;
}

namespace {

// [quantize] min_sqnr_db: an accuracy floor the build enforces, naming the
// output and the figure.
void check_min_sqnr(const nlohmann::json& report, double limit, bool allow_constant_outputs) {
  const auto& accuracy = report.value("accuracy", nlohmann::json::array());
  if (accuracy.empty())
    throw BuildError("[quantize] min_sqnr_db = " + nlohmann::json(limit).dump() +
                     " is set, but no output's SQNR could be measured");
  for (const auto& a : accuracy) {
    const std::string output = a.value("output", std::string("?"));
    const auto& sqnr = a.value("sqnr_db", nlohmann::json());
    if (a.value("identical", false)) continue;  // no loss at all meets any floor
    if (a.value("constant", false)) {
      if (allow_constant_outputs) continue;
      throw BuildError("output '" + output + "' is constant over the " + std::to_string(a.value("samples", 0)) +
                       " calibration samples, so its SQNR cannot be measured; [quantize] min_sqnr_db = " +
                       nlohmann::json(limit).dump() +
                       " needs an output that varies with the input (check the model's weights; "
                       "[quantize] allow_constant_outputs = true accepts it)");
    }
    if (!sqnr.is_number())
      throw BuildError("the SQNR of output '" + output + "' could not be measured; [quantize] min_sqnr_db = " +
                       nlohmann::json(limit).dump() + " needs it");
    if (sqnr.get<double>() < limit) {
      char figure[32];
      std::snprintf(figure, sizeof figure, "%.1f", sqnr.get<double>());
      throw BuildError("output '" + output + "' has an SQNR of " + figure + " dB against the float model, below " +
                       "[quantize] min_sqnr_db = " + nlohmann::json(limit).dump() +
                       " (try per_channel, another calibration_method, more samples, or keep nodes in float)");
    }
  }
}

std::string decibels(const nlohmann::json& row) {
  const auto& v = row.value("sqnr_db", nlohmann::json());
  if (row.value("constant", false)) return "not measured (constant output)";
  if (row.value("identical", false)) return "identical";
  if (!v.is_number() && row.contains("shape_changed_samples")) return "not comparable (its shape changed)";
  if (!v.is_number()) return "not measured";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f dB", v.get<double>());
  return buf;
}

// "quantized 52 nodes (3 skipped), SQNR logits 35.2 dB": the build's summary line.
std::string headline(const nlohmann::json& report) {
  const int quantized = report.value("nodes_quantized", 0), skipped = report.value("nodes_skipped", 0);
  std::string s = "quantized " + std::to_string(quantized) + " node" + (quantized == 1 ? "" : "s");
  if (skipped) s += " (" + std::to_string(skipped) + " skipped)";
  const auto& accuracy = report.value("accuracy", nlohmann::json::array());
  if (!accuracy.empty()) {
    s += ", SQNR";
    for (const auto& a : accuracy) s += " " + a.value("output", std::string("?")) + " " + decibels(a);
  }
  return s;
}

}  // namespace

pipeline::StageResult QuantizeStage::run(const pipeline::StageContext& ctx) {
  model::Model in = model::load_model(ctx.input);
  quant::QuantizeContext q;
  q.ep = ctx.config.compile.ep;
  q.dims = ctx.config.model.dims;
  q.base_dir = ctx.project_dir;
  q.model_path = to_utf8(ctx.input.filename());
  q.log = ctx.start_log();
  q.scratch_dir = ctx.output.parent_path();
  quant::QuantizeResult result = quant::quantize_model(in, ctx.config.quantize, q);
  ctx.check_cancel();
  if (const auto& limit = ctx.config.quantize.min_sqnr_db)
    check_min_sqnr(result.report, *limit, ctx.config.quantize.allow_constant_outputs);
  model::save_model(result.model, ctx.output, save_options(ctx));
  pipeline::StageResult r;
  r.metrics = std::move(result.report);
  r.metrics[pipeline::kHeadline] = headline(r.metrics);
  return r;
}

}  // namespace winml::stages
