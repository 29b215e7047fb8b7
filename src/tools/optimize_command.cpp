// winml-make optimize -m IN -o OUT [--level L] [--enable PASS]... [--disable PASS]...
//                     [--enable-PASS] [--disable-PASS] [--ep EP] [--json]
#include <CLI/CLI.hpp>
#include <iostream>

#include "base/error.h"
#include "base/text.h"
#include "cli/context.h"
#include "model/model_io.h"
#include "passes/optimize.h"
#include "passes/registry.h"
#include "tools/commands.h"

namespace winml::tools {

namespace {

// "--enable-fuse_gelu" / "--disable-fuse_gelu": CLI11 cannot declare flags
// whose names come from data, so they arrive as extras and are parsed here.
void parse_pass_flags(const std::vector<std::string>& extras, std::map<std::string, bool>& overrides) {
  for (const auto& arg : extras) {
    if (arg.rfind("--enable-", 0) == 0) overrides[arg.substr(9)] = true;
    else if (arg.rfind("--disable-", 0) == 0) overrides[arg.substr(10)] = false;
    else throw InputError("optimize: unexpected argument '" + arg + "'" + did_you_mean(arg, {"--enable", "--disable"}));
  }
}

std::string text_report(const passes::OptimizeReport& r, const std::string& out) {
  std::string s = "optimized: " + std::to_string(r.nodes_before) + " -> " + std::to_string(r.nodes_after) + " nodes, " +
                  std::to_string(r.initializers_before) + " -> " + std::to_string(r.initializers_after) +
                  " initializers in " + std::to_string(r.rounds) + (r.rounds == 1 ? " round" : " rounds") +
                  (r.fixed_point ? "" : " (no fixed point)") + "\n";
  for (const auto& p : r.passes) {
    auto it = r.rewrites.find(p);
    std::int64_t n = it == r.rewrites.end() ? 0 : it->second;
    if (n > 0) s += "  " + p + ": " + std::to_string(n) + (p == "infer_shapes" ? " values typed" : "") + "\n";
  }
  for (const auto& n : r.notes) s += "  note: " + n + "\n";
  s += "wrote " + out + "\n";
  return s;
}

}  // namespace

cli::Command add_optimize_command(CLI::App& app) {
  struct Options {
    std::string model, output, level = "basic", ep;
    std::vector<std::string> enable, disable;
    bool json = false;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* sub =
      app.add_subcommand("optimize", "Optimize an ONNX model with the graph passes (rules/optimize/presets.toml)");
  sub->add_option("-m,--model", opts->model, "Input ONNX model")->required();
  sub->add_option("-o,--output", opts->output, "Output ONNX model (weights go to <output>.data at >= 100 MiB)")
      ->required();
  sub->add_option("--level", opts->level, "Preset of passes: none, basic, extended")->capture_default_str();
  sub->add_option("--enable", opts->enable, "Turn a pass on (repeatable; also --enable-PASS)");
  sub->add_option("--disable", opts->disable, "Turn a pass off (repeatable; also --disable-PASS)");
  sub->add_option("--ep", opts->ep,
                  "Target execution provider (rules/ep/<EP>.toml); enables contrib-op fusions it runs");
  sub->add_flag("--json", opts->json, "Print the optimization report as JSON");
  sub->allow_extras();
  return {sub, [opts, sub](const cli::Context&) {
            passes::OptimizeOptions o;
            o.level = opts->level;
            o.ep = opts->ep;
            parse_pass_flags(sub->remaining(), o.passes);
            for (const auto& p : opts->enable) o.passes[p] = true;
            for (const auto& p : opts->disable) o.passes[p] = false;
            // Reject unknown names before touching the model.
            passes::resolve_passes(o.level, o.passes);

            model::Model m = passes::load_model_to_optimize(opts->model);
            passes::OptimizeReport report = passes::optimize_model(m, o);
            model::save_model(m, opts->output);
            if (opts->json) std::cout << report.to_json(/*with_timings=*/true).dump(2) << "\n";
            else std::cout << text_report(report, opts->output);
            return 0;
          }};
}

}  // namespace winml::tools
