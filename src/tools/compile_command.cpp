// winml-make compile -m IN -o OUT [--ep EP] [--device D] [--backend B] [--embed] [--no-validate]
//                    [--ort-library SO] [--ep-library SO] [--provider-option K=V]... [--session-option K=V]...
//                    [--dim NAME=VALUE]... [--env NAME]... [--json] [-- COMPILER ARGS...]
#include <CLI/CLI.hpp>

#include <cstdlib>
#include <iostream>

#include "base/error.h"
#include "base/this_process.h"
#include "cli/context.h"
#include "compile/compile.h"
#include "config/config.h"
#include "tools/commands.h"
#include "tools/dim_flags.h"

namespace winml::tools {

namespace {

// KEY=VALUE flags into a table (a key given twice: the last wins).
std::map<std::string, std::string> parse_key_values(const std::vector<std::string>& flags, const std::string& flag) {
  std::map<std::string, std::string> out;
  for (const auto& f : flags) {
    const auto eq = f.find('=');
    if (eq == std::string::npos || eq == 0) throw InputError(flag + " " + f + ": expected KEY=VALUE");
    out[f.substr(0, eq)] = f.substr(eq + 1);
  }
  return out;
}

struct CompileFlags {
  std::string input, output, ep = "cpu", device, backend, ort_library, ep_library;
  std::vector<std::string> provider_options, session_options;
  bool embed = false, no_validate = false, json = false;
  std::vector<std::string> dims, env, command;
  int threads = 0;
};

CLI::App* add_flags(CLI::App& app, CompileFlags& f) {
  CLI::App* sub = app.add_subcommand(
      "compile",
      "Compile a model for an execution provider (EPContext: through ONNX Runtime, a vendor compiler or the `ref` "
      "backend) and validate it");
  sub->add_option("-m,--model", f.input, "Input ONNX model")->required();
  sub->add_option("-o,--output", f.output, "Output model (sidecars are written next to it)")->required();
  sub->add_option("--ep", f.ep, "Target execution provider (rules/ep/<ep>.toml)")->capture_default_str();
  sub->add_option("--device", f.device, "Target device: cpu, gpu or npu (default: the EP's)");
  sub->add_option("--backend", f.backend,
                  "ort (ONNX Runtime's compile API), command (the vendor compiler after --), ref (for --ep ref) or "
                  "prepare (EPs that compile at load time); default: as [compile] backend")
      ->check(CLI::IsMember(config::kCompileBackends));
  sub->add_option("--ort-library", f.ort_library,
                  "The libonnxruntime.so --backend ort loads (default: ONNX Runtime 1.29.0 from scripts/fetch-ort.sh)");
  sub->add_option("--ep-library", f.ep_library, "A plugin EP's library that ONNX Runtime registers");
  sub->add_option("--provider-option", f.provider_options, "The EP's provider option, KEY=VALUE (repeatable)")
      ->allow_extra_args(false);
  sub->add_option("--session-option", f.session_options,
                  "A session config entry for the compile, KEY=VALUE (repeatable)")
      ->allow_extra_args(false);
  sub->add_flag("--embed", f.embed, "Store EPContext blobs inside the model (embed_mode = 1)");
  sub->add_flag("--no-validate", f.no_validate, "Skip running the result on all-ones inputs");
  // One value per occurrence, so that `--` and the compiler's own arguments
  // are never taken as more values.
  sub->add_option("--dim", f.dims, "Value of a symbolic input dimension, NAME=VALUE (repeatable; others: 1)")
      ->allow_extra_args(false);
  sub->add_option("--env", f.env, "Environment variable passed to a vendor compiler (repeatable)")
      ->allow_extra_args(false);
  sub->add_option("--threads", f.threads, "Validation threads (0: one per core)");
  sub->add_flag("--json", f.json, "Print the compile and validation report as JSON");
  sub->add_option(
      "compiler", f.command,
      "After --: the vendor compiler with {input}, {output}, {output_dir}, {embed} and {device} placeholders");
  return sub;
}

// The flags as a [compile] section, resolved like a build's (the EP's
// default device when none is given), then as compile options.
compile::CompileOptions compile_options(const CompileFlags& f) {
  config::CompileConfig section;
  section.ep = f.ep;
  section.device = f.device;
  section.embed = f.embed;
  if (!f.backend.empty()) section.backend = f.backend;
  section.ort_library = f.ort_library;
  section.ep_library = f.ep_library;
  section.provider_options = parse_key_values(f.provider_options, "--provider-option");
  section.session_options = parse_key_values(f.session_options, "--session-option");
  section.validate = !f.no_validate;
  section.command = f.command;
  compile::CompileOptions o = compile::CompileOptions::from_config(config::compile_schema()->resolved(section));
  o.threads = f.threads;
  o.project_dir = std::filesystem::current_path();
  o.config_origin = "the command line";
  o.command_setting = "the arguments after `--`";
  o.ort_settings = {.ort_library = "--ort-library",
                    .ep_library = "--ep-library",
                    .device = "--device",
                    .command = "the arguments after `--`",
                    .relative_to = "the working directory",
                    .needs = "--ep " + f.ep + " compiles through ONNX Runtime (--backend ort)",
                    .without = ""};
  o.dims = parse_dim_flags(f.dims);
  for (const auto& name : f.env) {
    auto v = environment_variable(name);
    if (!v) throw InputError("--env " + name + ": the variable is not set");
    o.env[name] = std::move(*v);
  }
  if (!f.json) o.log = [](const std::string& line) { std::cout << line << "\n"; };
  return o;
}

int compile(const CompileFlags& f) {
  compile::CompileOptions o = compile_options(f);
  // A vendor compiler's output: quoted in the error when it fails.
  o.log_file =
      std::filesystem::temp_directory_path() / ("winml-make-compile-" + std::to_string(current_process_id()) + ".log");
  struct RemoveLog {
    std::filesystem::path file;
    ~RemoveLog() {
      std::error_code ec;
      std::filesystem::remove(file, ec);
    }
  } remove_log{o.log_file};
  std::filesystem::remove(o.log_file);  // a leftover of an earlier process with this pid
  auto metrics = compile::compile_model_file(f.input, f.output, o);
  if (f.json) std::cout << metrics.dump(2) << "\n";
  else std::cout << "wrote " << f.output << "\n";
  return 0;
}

}  // namespace

cli::Command add_compile_command(CLI::App& app) {
  auto flags = std::make_shared<CompileFlags>();
  CLI::App* sub = add_flags(app, *flags);
  return {sub, [flags](const cli::Context&) { return compile(*flags); }};
}

}  // namespace winml::tools
