// winml-make: incremental builds of ONNX model pipelines.
#include <CLI/CLI.hpp>
#include <iostream>

#include "base/error.h"
#include "base/rules.h"
#include "base/text.h"
#include "cli/context.h"

using namespace winml;

int main(int argc, char** argv) {
  CLI::App app{"winml-make: incremental, content-hashed builds of ONNX model pipelines (winml.toml)", "winml-make"};
  app.set_version_flag("--version", cli::version_string());
  cli::Context ctx;
  app.add_option("-C,--directory", ctx.directory, "Project directory (default: the current directory)");
  app.add_option("-c,--config", ctx.config,
                 "Config file to use instead of <project>/winml.toml (TOML, or a "
                 "winml_build_config.json to replay)");
  // Global, so `winml-make -o DIR status` and `winml-make status -o DIR` mean the same.
  app.add_option("-o,--output-dir", ctx.output_dir, "Output directory (default: [build] output_dir)");
  // Settings on the command line, global like -o: a build and its status
  // must agree on them.
  app.add_option("-D,--define", ctx.defines,
                 "Set a config key for this run, as if in the file (SECTION.KEY=VALUE; VALUE is a JSON literal or a "
                 "bare string; repeatable)")
      ->allow_extra_args(false);
  // Shorthands, applied after every -D.
  const std::vector<std::pair<const char*, const char*>> shorthands = {{"--no-quant", "quantize.enabled=false"},
                                                                       {"--no-compile", "compile.enabled=false"},
                                                                       {"--no-validate", "compile.validate=false"}};
  std::vector<bool> shorthand_given(shorthands.size(), false);
  app.add_flag_callback(
      "--no-quant", [&] { shorthand_given[0] = true; }, "Skip the quantize stage (same as -D quantize.enabled=false)");
  app.add_flag_callback(
      "--no-compile", [&] { shorthand_given[1] = true; }, "Skip the compile stage (same as -D compile.enabled=false)");
  app.add_flag_callback(
      "--no-validate", [&] { shorthand_given[2] = true; },
      "Do not run the compiled model to validate it (same as -D compile.validate=false)");
  std::string min_sqnr;
  app.add_option("--min-sqnr", min_sqnr,
                 "Fail quantization below this SQNR in dB for any output (same as -D quantize.min_sqnr_db=DB)");
  app.add_option("--cache-dir", ctx.cache_dir,
                 "Content-addressed cache directory (default: $WINML_MAKE_CACHE_DIR, else $XDG_CACHE_HOME/winml-make, "
                 "else ~/.cache/winml-make)");
  app.require_subcommand(0, 1);

  std::vector<cli::Command> commands = {
      cli::add_config_command(app),   cli::add_inspect_command(app), cli::add_optimize_command(app),
      cli::add_analyze_command(app),  cli::add_status_command(app),  cli::add_clean_command(app),
      cli::add_graph_command(app),    cli::add_cache_command(app),   cli::add_run_command(app),
      cli::add_quantize_command(app), cli::add_compile_command(app), cli::add_epcontext_command(app),
  };
  cli::Command build = cli::add_build_command(app);
  commands.push_back(cli::add_completions_command(app, build));
  commands.push_back(cli::add_man_command(app, build));

  try {
    app.parse(argc, argv);
    for (std::size_t i = 0; i < shorthands.size(); ++i)
      if (shorthand_given[i]) ctx.defines.push_back(shorthands[i].second);
    if (!min_sqnr.empty()) ctx.defines.push_back("quantize.min_sqnr_db=" + min_sqnr);
    rules::set_active(rules::Rules::for_project(ctx.project_dir()));
    for (const auto& c : commands)
      if (c.app->parsed()) {
        // Build options reach a subcommand's parser through fallthrough; one
        // the subcommand does not define would be silently ignored.
        for (const CLI::Option* o : app.get_options()) {
          if (o->count() == 0 || !build.owns(o)) continue;
          const std::string name = o->get_lnames().empty() ? o->get_name() : "--" + o->get_lnames().front();
          const std::string sub = c.app->get_name();
          if (c.app->get_option_no_throw(name))
            throw InputError(name + " before '" + sub + "' is the build's option; write 'winml-make " + sub + " " +
                             name + "'");
          throw InputError(name + " applies to building, not to 'winml-make " + sub + "'");
        }
        return c.run(ctx);
      }
    try {
      return build.run(ctx);
    } catch (const InputError& e) {
      // "winml-make statsu": the word was meant as a subcommand, not a model.
      const CLI::Option* targets = app.get_option_no_throw("targets");
      if (!targets || targets->count() == 0) throw;
      std::vector<std::string> names;
      for (const auto& c : commands) names.push_back(c.app->get_name());
      const std::string word = targets->results().front();
      const std::string meant = nearest_match(word, names);
      if (meant.empty()) throw;
      throw InputError(std::string(e.what()) + "\n'" + word + "' is no subcommand either: did you mean 'winml-make " +
                       meant + "'?");
    }
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::cerr << "winml-make: error: " << e.what() << "\nRun 'winml-make --help' for usage.\n";
    return kExitInputError;
  } catch (const InputError& e) {
    std::cerr << "winml-make: error: " << e.what() << "\n";
    return kExitInputError;
  } catch (const BuildError& e) {
    std::cerr << "winml-make: error: " << e.what() << "\n";
    return kExitBuildFailure;
  } catch (const std::exception& e) {
    std::cerr << "winml-make: error: " << e.what() << "\n";
    return kExitBuildFailure;
  }
}
