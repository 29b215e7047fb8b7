// winml-make quantize -m IN -o OUT [options]: the quantize stage on one model,
// outside a project. QuantizeArgs map onto [quantize] keys and are validated by the
// same schema, so values and messages match winml.toml's.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <map>

#include "base/atomic_file.h"
#include "base/error.h"
#include "cli/context.h"
#include "config/config.h"
#include "model/model_io.h"
#include "quant/accuracy.h"
#include "quant/quantize.h"
#include "tools/commands.h"
#include "tools/dim_flags.h"

namespace winml::tools {

namespace {

struct QuantizeArgs {
  std::string model, output, report;
  std::string mode, weight_type, activation_type, calibration_method, calibration_data, distribution, ep = "cpu";
  bool per_channel = false, symmetric = false, reduce_range = false, requantize = false, fp16_io = false;
  bool no_accuracy = false, json = false, no_bias_correction = false, weight_asymmetric = false;
  std::optional<double> percentile;
  std::optional<std::int64_t> samples, seed, num_bins, bits, block_size, accuracy_level;
  std::vector<double> value_range;
  std::vector<std::string> op_types, exclude_nodes, block_ops, dims;
  int threads = 0;
};

// Flags that only one mode reads: given with another mode they would be ignored
// silently, so they are refused, naming the mode that would read them.
std::vector<std::string> contradictions(const QuantizeArgs& o) {
  const std::string mode = o.mode.empty() ? "qdq" : o.mode;
  const bool nbits = mode == "matmulnbits";
  const bool four_bit_weights = o.weight_type == "int4" || o.weight_type == "uint4";
  std::vector<std::string> out;
  if (o.bits && !nbits)
    out.push_back("--bits: only --mode matmulnbits reads it (the mode is " + mode +
                  "); for 4-bit QDQ weights use --weight-type int4 or uint4");
  if (o.accuracy_level && !nbits)
    out.push_back("--accuracy-level: only --mode matmulnbits reads it (the mode is " + mode + ")");
  if (o.block_size && !nbits && !(mode == "qdq" && four_bit_weights))
    out.push_back("--block-size: only --mode matmulnbits and 4-bit QDQ weights (--weight-type int4 or uint4) read "
                  "it (the mode is " + mode + (mode == "qdq" ? ", weights " + (o.weight_type.empty() ? std::string("int8") : o.weight_type) : std::string()) + ")");
  if (!o.weight_type.empty() && nbits)
    out.push_back("--weight-type: --mode matmulnbits does not read it; choose its weight width with --bits 4 or 8");
  return out;
}

// The [quantize] section the flags describe, checked by its schema.
config::QuantizeConfig section_from(const QuantizeArgs& o) {
  nlohmann::json j = nlohmann::json::object();
  auto set = [&](const char* key, const auto& v, bool given) {
    if (given) j[key] = v;
  };
  set("mode", o.mode, !o.mode.empty());
  set("weight_type", o.weight_type, !o.weight_type.empty());
  set("activation_type", o.activation_type, !o.activation_type.empty());
  if (o.bits) j["bits"] = *o.bits;
  if (o.block_size) j["block_size"] = *o.block_size;
  if (o.accuracy_level) j["accuracy_level"] = *o.accuracy_level;
  set("per_channel", true, o.per_channel);
  set("symmetric", true, o.symmetric);
  set("weight_symmetric", false, o.weight_asymmetric);
  set("reduce_range", true, o.reduce_range);
  set("calibration_method", o.calibration_method, !o.calibration_method.empty());
  if (o.percentile) j["percentile"] = *o.percentile;
  if (o.num_bins) j["num_bins"] = *o.num_bins;
  if (o.samples) j["samples"] = *o.samples;
  if (o.seed) j["seed"] = *o.seed;
  set("calibration_data", o.calibration_data, !o.calibration_data.empty());
  set("distribution", o.distribution, !o.distribution.empty());
  set("value_range", o.value_range, !o.value_range.empty());
  set("op_types_to_quantize", o.op_types, !o.op_types.empty());
  set("nodes_to_exclude", o.exclude_nodes, !o.exclude_nodes.empty());
  set("op_block_list", o.block_ops, !o.block_ops.empty());
  set("keep_io_types", false, o.fp16_io);
  set("requantize", true, o.requantize);
  set("bias_correction", false, o.no_bias_correction);
  std::string errors;
  // Messages name the flag the user typed, not the config key.
  static const std::map<std::string, std::string> kFlagOfKey = {{"op_types_to_quantize", "op-types"},
                                                                {"nodes_to_exclude", "exclude-nodes"},
                                                                {"op_block_list", "block-ops"},
                                                                {"keep_io_types", "fp16-io"},
                                                                {"bias_correction", "no-bias-correction"},
                                                                {"weight_symmetric", "weight-asymmetric"}};
  auto sink = [&](const std::string& path, const std::string& message, config::ErrorAt) {
    std::string key = path.substr(path.find('.') + 1), flag = key;
    if (auto it = kFlagOfKey.find(key); it != kFlagOfKey.end()) flag = it->second;
    std::replace(flag.begin(), flag.end(), '_', '-');
    errors += (errors.empty() ? "" : "\n") + std::string("--") + flag + ": " + message;
  };
  config::quantize_schema()->validate(j, "quantize", sink);
  nlohmann::json compile = {{"ep", o.ep}};
  config::compile_schema()->validate(compile, "compile", sink);
  for (const std::string& e : contradictions(o)) errors += (errors.empty() ? "" : "\n") + e;
  if (!errors.empty()) throw InputError(errors);
  return config::quantize_schema()->read(j);
}

void print_summary(const std::string& in, const std::string& out, const nlohmann::json& r) {
  std::cout << "quantized " << in << " -> " << out << " (" << r["mode"].get<std::string>();
  if (r["mode"] == "qdq")
    std::cout << ", weights " << r["weight_type"].get<std::string>()
              << (r["per_channel"].get<bool>() ? " per channel" : "") << ", activations "
              << r["activation_type"].get<std::string>() << ", " << r["calibration_method"].get<std::string>();
  if (r["mode"] == "matmulnbits")
    std::cout << ", " << r["bits"] << "-bit blocks of " << r["block_size"]
              << (r["weight_symmetric"].get<bool>() ? ", symmetric" : ", asymmetric");
  std::cout << ", " << r["samples"] << " samples from " << r["calibration_data"].get<std::string>() << ")\n";
  std::cout << "  nodes quantized: " << r["nodes_quantized"] << ", skipped: " << r["nodes_skipped"];
  if (r.contains("skipped_op_types") && !r["skipped_op_types"].empty()) {
    std::string sep = " (";
    for (const auto& [op, n] : r["skipped_op_types"].items()) std::cout << sep << op << " " << n, sep = ", ";
    std::cout << ")";
  }
  std::cout << "\n";
  if (r["mode"] == "qdq") {
    char t[64];
    std::snprintf(t, sizeof t, "%.2f", r["calibration_time_seconds"].get<double>());
    std::cout << "  calibration: " << t << " s\n";
  }
  if (r.contains("accuracy")) {
    std::vector<quant::OutputAccuracy> table;
    for (const auto& row : r["accuracy"]) {
      quant::OutputAccuracy a;
      a.output = row["output"];
      a.max_abs_error = row["max_abs_error"];
      a.elements = row.value("elements", std::size_t{0});
      a.shape_changed = row.value("shape_changed_samples", std::size_t{0});
      a.constant = row.value("constant", false);
      a.samples = row.value("samples", std::size_t{0});
      if (!row["sqnr_db"].is_null()) a.sqnr_db = row["sqnr_db"].get<double>();
      table.push_back(a);
    }
    std::cout << "  accuracy vs the float model:\n" << quant::format_accuracy(table);
  }
}

}  // namespace

cli::Command add_quantize_command(CLI::App& app) {
  auto o = std::make_shared<QuantizeArgs>();
  CLI::App* sub =
      app.add_subcommand("quantize", "Quantize one model (QDQ with calibration, float16, or weight-only MatMulNBits)");
  sub->add_option("-m,--model", o->model, "Input ONNX model (float)")->required();
  sub->add_option("-o,--output", o->output, "Output model")->required();
  sub->add_option("--mode", o->mode, "qdq (default), fp16 or matmulnbits (weight-only MatMulNBits)");
  sub->add_option("--weight-type", o->weight_type, "uint8, int8 (default), uint16, int16, uint4, int4 (opset 21)");
  sub->add_option("--activation-type", o->activation_type,
                  "uint8 (default), int8, uint16, int16, float32 (weights only)");
  sub->add_option("--bits", o->bits, "matmulnbits: 4 (default) or 8 bits per weight");
  sub->add_option("--block-size", o->block_size, "matmulnbits and 4-bit weights: weights per scale (default 32)");
  sub->add_option("--accuracy-level", o->accuracy_level, "matmulnbits: MatMulNBits' accuracy_level 0-4 (default 0)");
  sub->add_flag("--weight-asymmetric", o->weight_asymmetric, "Asymmetric weight ranges (with zero points)");
  sub->add_flag("--per-channel", o->per_channel, "One weight scale per output channel");
  sub->add_flag("--symmetric", o->symmetric, "Symmetric weight and activation ranges");
  sub->add_flag("--reduce-range", o->reduce_range, "7-bit weights");
  sub->add_flag("--no-bias-correction", o->no_bias_correction, "Keep biases as they are (no bias correction)");
  sub->add_option("--calibration-method", o->calibration_method, "minmax (default), percentile, entropy");
  sub->add_option("--percentile", o->percentile, "Percentile kept by the percentile method (default 99.999)");
  sub->add_option("--num-bins", o->num_bins, "Histogram bins for percentile/entropy");
  sub->add_option("--samples", o->samples, "Number of calibration samples (default 8)");
  sub->add_option("--calibration-data", o->calibration_data,
                  "Directory with one subdirectory per sample (<input>.npy or <input>.pb); default: generated");
  sub->add_option("--distribution", o->distribution, "Generated samples: uniform (default) or normal");
  sub->add_option("--value-range", o->value_range, "Generated samples: LOW HIGH, or MEAN STDDEV")->expected(2);
  sub->add_option("--seed", o->seed, "Seed of generated samples");
  sub->add_option("--op-types", o->op_types, "Only quantize these operator types")->delimiter(',');
  sub->add_option("--exclude-nodes", o->exclude_nodes, "Node names that stay float")->delimiter(',');
  sub->add_option("--block-ops", o->block_ops, "fp16: operator types that stay float32")->delimiter(',');
  sub->add_flag("--fp16-io", o->fp16_io, "fp16: make the model's inputs and outputs float16 too");
  sub->add_flag("--requantize", o->requantize, "Accept a QDQ model: remove its Q/DQ and quantize again");
  sub->add_option("--ep", o->ep, "Target execution provider (rules/ep/<ep>.toml)");
  sub->add_option("--dim", o->dims, "Symbolic dimension value NAME=V (repeatable)");
  sub->add_option("--threads", o->threads, "Runtime threads (default: one per core)");
  sub->add_flag("--no-accuracy", o->no_accuracy, "Skip the accuracy comparison with the float model");
  sub->add_option("--report", o->report, "Also write the report JSON to this file");
  sub->add_flag("--json", o->json, "Print the report as JSON");
  return {sub, [o](const cli::Context&) {
            config::QuantizeConfig cfg = section_from(*o);
            quant::QuantizeContext ctx;
            ctx.ep = o->ep;
            ctx.dims = parse_dim_flags(o->dims);
            ctx.base_dir = std::filesystem::current_path();
            ctx.model_path = o->model;
            ctx.accuracy_report = !o->no_accuracy;
            ctx.threads = o->threads;  // the runtime runs calibration and the accuracy pass
            // Quantized weights wait beside the output, whose sidecar they are copied into.
            const auto out_dir = std::filesystem::absolute(o->output).parent_path();
            if (std::filesystem::is_directory(out_dir)) ctx.scratch_dir = out_dir;
            if (!o->json) ctx.log = [](const std::string& line) { std::cerr << "winml-make: " << line << "\n"; };
            model::Model in = model::load_model(o->model);
            quant::QuantizeResult r = quant::quantize_model(in, cfg, ctx);
            model::save_model(r.model, o->output);
            if (!o->report.empty()) write_file_atomic(o->report, r.report.dump(2) + "\n");
            if (o->json) std::cout << r.report.dump(2) << "\n";
            else print_summary(o->model, o->output, r.report);
            return 0;
          }};
}

}  // namespace winml::tools
