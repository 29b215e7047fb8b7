// winml-make quantize -m IN -o OUT [options]: the quantize stage on one model,
// outside a project. Its [quantize] flags are declared with the keys they set
// (config::CommandFlag, tools/schema_flags.h) and validated by the same
// schema, so values and messages match winml.toml's.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <map>

#include "base/atomic_file.h"
#include "base/error.h"
#include "base/text.h"
#include "cli/context.h"
#include "config/config.h"
#include "model/model_io.h"
#include "quant/accuracy.h"
#include "quant/quantize.h"
#include "tools/commands.h"
#include "tools/dim_flags.h"
#include "tools/schema_flags.h"

namespace winml::tools {

namespace {

struct QuantizeArgs {
  std::string model, output, report, ep = "cpu";
  bool no_accuracy = false, json = false;
  std::vector<std::string> dims;
  int threads = 0;
  std::unique_ptr<SchemaFlags> section;  // the [quantize] keys' flags
};

// Flags that only one mode reads: given with another mode they would be ignored
// silently, so they are refused, naming the mode that would read them.
std::vector<std::string> contradictions(const nlohmann::json& q) {
  const std::string mode = q.value("mode", "qdq");
  const std::string weight_type = q.value("weight_type", "");
  const bool nbits = mode == "matmulnbits";
  const bool four_bit_weights = weight_type == "int4" || weight_type == "uint4";
  std::vector<std::string> out;
  if (q.contains("bits") && !nbits)
    out.push_back("--bits: only --mode matmulnbits reads it (the mode is " + mode +
                  "); for 4-bit QDQ weights use --weight-type int4 or uint4");
  if (q.contains("accuracy_level") && !nbits)
    out.push_back("--accuracy-level: only --mode matmulnbits reads it (the mode is " + mode + ")");
  if (q.contains("block_size") && !nbits && !(mode == "qdq" && four_bit_weights))
    out.push_back(
        "--block-size: only --mode matmulnbits and 4-bit QDQ weights (--weight-type int4 or uint4) read "
        "it (the mode is " +
        mode +
        (mode == "qdq" ? ", weights " + (weight_type.empty() ? std::string("int8") : weight_type) : std::string()) +
        ")");
  if (!weight_type.empty() && nbits)
    out.push_back("--weight-type: --mode matmulnbits does not read it; choose its weight width with --bits 4 or 8");
  return out;
}

// The [quantize] section the flags describe, checked by its schema.
config::QuantizeConfig section_from(const QuantizeArgs& o) {
  std::vector<std::string> errors;
  const nlohmann::json q = o.section->section(errors);
  config::compile_schema()->validate({{"ep", o.ep}}, "compile",
                                     [&](const std::string& path, const std::string& message, config::ErrorAt) {
                                       errors.push_back("--" + path.substr(path.find('.') + 1) + ": " + message);
                                     });
  for (const std::string& e : contradictions(q)) errors.push_back(e);
  if (!errors.empty()) throw InputError(join(errors, "\n"));
  return config::quantize_schema()->read(q);
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
  o->section = std::make_unique<SchemaFlags>(*sub, *config::quantize_schema());
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
