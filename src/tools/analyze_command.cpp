// winml-make analyze -m MODEL [--ep EP]... [--device DEV] [-o FILE] [--json] [--no-timestamp]
#include <CLI/CLI.hpp>
#include <iostream>

#include "analyze/analyze.h"
#include "base/atomic_file.h"
#include "cli/context.h"
#include "model/model_io.h"
#include "tools/commands.h"

namespace winml::tools {

cli::Command add_analyze_command(CLI::App& app) {
  struct Options {
    std::string model, output, device;
    std::vector<std::string> eps;
    bool json = false, no_timestamp = false;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand(
      "analyze", "Operator statistics, optimization patterns and per-EP operator support (rules/ep/*.toml)");
  sub->add_option("-m,--model", opts->model, "ONNX model file")->required();
  sub->add_option("--ep", opts->eps, "Execution provider(s) to evaluate (default: every table in rules/ep)");
  sub->add_option("--device", opts->device, "Device type to report (default: each EP's default device)");
  sub->add_option("-o,--output", opts->output, "Write the analysis (analyze_result.json schema) to FILE");
  sub->add_flag("--json", opts->json, "Print the analysis as JSON instead of a summary");
  sub->add_flag("--no-timestamp", opts->no_timestamp, "Leave out analysis_timestamp (reproducible output)");
  return {sub, [opts](const cli::Context&) {
            model::Model m = model::load_model(opts->model);
            analyze::AnalyzeOptions o;
            o.eps = opts->eps;
            o.device = opts->device;
            o.timestamp = !opts->no_timestamp;
            o.model_path = opts->model;
            nlohmann::json result = analyze::analyze_model(m, o);
            if (!opts->output.empty()) write_file_atomic(opts->output, result.dump(2) + "\n");
            if (opts->json) std::cout << result.dump(2) << "\n";
            else std::cout << analyze::format_analysis(result);
            return 0;
          }};
}

}  // namespace winml::tools
