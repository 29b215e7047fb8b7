#include "compile/external_backend.h"

#include "compile/backend.h"

#include <fstream>
#include <map>

#include "base/error.h"
#include "base/path_text.h"
#include "base/subprocess.h"

namespace winml::compile {

namespace fs = std::filesystem;

nlohmann::json compile_external(const fs::path& input, const fs::path& out, const ep::EpTable& ep_table,
                                const ExternalOptions& options) {
  ScratchDir scratch(out);
  const fs::path& work = scratch.path();

  const fs::path staged = work / out.filename();
  std::map<std::string, std::string> values = {
      {"input", to_utf8(fs::absolute(input))},
      {"output", to_utf8(fs::absolute(staged))},
      {"output_dir", to_utf8(fs::absolute(work))},
      {"embed", options.embed ? "1" : "0"},
      {"device", options.device.empty() ? ep_table.default_device : options.device}};
  ProcessSpec spec;
  spec.argv = substitute_placeholders(options.command, values, options.config_origin);
  spec.cwd = options.cwd;
  spec.env = options.env;
  spec.log_file = options.log_file;
  spec.cancel = options.cancel;
  if (!options.log_file.empty()) {
    fs::create_directories(options.log_file.parent_path());
    std::ofstream(options.log_file, std::ios::app) << "$ " << quote_command(spec.argv) << "\n";
  }
  ProcessResult r = run_process(spec);
  auto failure = [&](const std::string& what) {
    std::string message = ep_table.name + " compiler " + what + ": " + quote_command(spec.argv);
    if (!options.log_file.empty())
      message += "\n--- last lines of " + to_utf8(options.log_file) + " ---\n" + tail_lines(options.log_file, 15);
    return BuildError(message);
  };
  if (!r.started) throw BuildError(ep_table.name + " compiler could not start: " + r.error);
  if (r.exit_code != 0) throw failure("failed with exit code " + std::to_string(r.exit_code));
  if (!fs::exists(staged)) throw failure("exited 0 but did not write {output} (" + to_utf8(staged) + ")");

  nlohmann::json blobs;
  try {
    blobs = verify_epcontext_model(staged);
  } catch (const InputError& e) {
    throw failure(std::string("wrote an unusable model: ") + e.what());
  } catch (const BuildError& e) {
    throw failure(std::string("wrote an unusable model: ") + e.what());
  }

  PlacedModel placed = place_compiled_model(work, staged, out, blobs);

  nlohmann::json metrics;
  metrics["backend"] = "external";
  // As configured, placeholders kept: metrics are cached and shared, so no machine paths.
  metrics["command"] = quote_command(options.command);
  metrics["epcontext_nodes"] = placed.epcontext_nodes;
  metrics["blobs"] = placed.blobs;
  if (!placed.discarded.empty()) metrics["discarded_files"] = placed.discarded;
  return metrics;
}

nlohmann::json compile_with_command(const BackendCall& call) {
  const CompileOptions& o = call.options;
  say(o, "compile: running the " + o.ep + " compiler");
  ExternalOptions eo;
  eo.command = o.command;
  eo.env = o.env;
  eo.embed = o.embed;
  eo.device = o.device;
  eo.cwd = o.project_dir;
  eo.log_file = o.log_file;
  eo.cancel = o.cancel;
  nlohmann::json metrics = compile_external(call.input, call.output, call.ep_table, eo);
  for (const auto& b : metrics["blobs"])
    say(o, "compile: blob " + b["file"].get<std::string>() + " (" + std::to_string(b["bytes"].get<std::uint64_t>()) +
               " bytes)");
  return metrics;
}

}  // namespace winml::compile
