#include "cli/command_line.h"

#include <CLI/CLI.hpp>
#include <iostream>

#include "base/error.h"
#include "base/rules.h"
#include "base/text.h"
#include "cli/build_report.h"
#include "cli/usage_error.h"
#include "config/overrides.h"

namespace winml::cli {


CommandLine::CommandLine()
    : app_(std::make_unique<CLI::App>(
          "winml-make: incremental, content-hashed builds of ONNX model pipelines (winml.toml)", "winml-make")),
      shorthand_given_(std::size(config::kShorthandFlags), false) {
  app_->set_version_flag("--version", version_string());
  app_->add_option("-C,--directory", ctx_.directory, "Project directory (default: the current directory)");
  app_->add_option("-c,--config", ctx_.config,
                   "Config file to use instead of <project>/winml.toml (TOML, or a "
                   "winml_build_config.json to replay)");
  // Global, so `winml-make -o DIR status` and `winml-make status -o DIR` mean the same.
  app_->add_option("-o,--output-dir", ctx_.output_dir, "Output directory (default: [build] output_dir)");
  // Settings on the command line, global like -o: a build and its status
  // must agree on them.
  app_->add_option("-D,--define", ctx_.defines,
                   "Set a config key for this run, as if in the file (SECTION.KEY=VALUE; VALUE is a JSON literal or a "
                   "bare string; repeatable)")
      ->allow_extra_args(false);
  for (std::size_t i = 0; i < std::size(config::kShorthandFlags); ++i)
    app_->add_flag_callback(
        config::kShorthandFlags[i].flag, [this, i] { shorthand_given_[i] = true; }, config::kShorthandFlags[i].help);
  app_->add_option("--min-sqnr", min_sqnr_,
                   "Fail quantization below this SQNR in dB for any output (same as -D quantize.min_sqnr_db=DB)");
  app_->add_option(
      "--cache-dir", ctx_.cache_dir,
      "Content-addressed cache directory (default: $WINML_MAKE_CACHE_DIR, else $XDG_CACHE_HOME/winml-make, "
      "else ~/.cache/winml-make)");
  app_->require_subcommand(0, 1);
  build_ = add_build_command(*app_);
}

CommandLine::~CommandLine() = default;

void CommandLine::add_engine_commands() {
  for (auto add : {add_config_command, add_status_command, add_clean_command, add_graph_command, add_cache_command})
    commands_.push_back(add(*app_));
}

void CommandLine::add_stand_ins(const std::vector<std::string>& names) {
  for (const auto& name : names) stand_ins_.push_back(app_->add_subcommand(name)->prefix_command());
}

bool names_a_subcommand(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "-h" || a.starts_with("--help")) return true;
    for (const auto* names : {&kEngineCommands, &kToolCommands})
      for (const auto& name : *names)
        if (a == name) return true;
  }
  return false;
}

namespace {

// Whether the command line asks for --json (before a `--` that hands the rest
// to a vendor compiler): then a failure is a report on stdout too.
bool json_asked(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--") return false;
    if (a == "--json") return true;
  }
  return false;
}

}  // namespace

int CommandLine::run(int argc, char** argv) {
  // Every failure: its message on stderr, and with --json the report CI
  // reads on stdout (docs/cli.md, "The --json report").
  auto fail = [&](const char* kind, int code, const std::string& message) {
    std::cerr << "winml-make: error: " << message << "\n";
    if (json_asked(argc, argv)) std::cout << error_report(kind, code, message).dump(2) << "\n";
    return code;
  };
  try {
    try {
      app_->parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
      if (!elsewhere_) throw;
      return elsewhere_(argc, argv);  // the help lists every subcommand
    } catch (const CLI::CallForAllHelp&) {
      if (!elsewhere_) throw;
      return elsewhere_(argc, argv);
    }
    for (const CLI::App* s : stand_ins_)
      if (s->parsed()) return elsewhere_(argc, argv);
    return dispatch();
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app_->exit(e);  // --help, --version
    return fail("usage", kExitInputError, usage_error_text(*app_, e));
  } catch (const InputError& e) {
    return fail("input", kExitInputError, e.what());
  } catch (const BuildError& e) {
    return fail("build", kExitBuildFailure, e.what());
  } catch (const std::exception& e) {
    return fail("build", kExitBuildFailure, e.what());
  }
}

int CommandLine::dispatch() {
  // Shorthands, applied after every -D.
  for (std::size_t i = 0; i < std::size(config::kShorthandFlags); ++i)
    if (shorthand_given_[i]) ctx_.defines.push_back(config::kShorthandFlags[i].flag);
  if (!min_sqnr_.empty()) ctx_.defines.push_back("quantize.min_sqnr_db=" + min_sqnr_);
  rules::set_active(rules::Rules::for_project(ctx_.project_dir()));
  for (const auto& c : commands_)
    if (c.app->parsed()) {
      // Build options reach a subcommand's parser through fallthrough; one
      // the subcommand does not define would be silently ignored.
      for (const CLI::Option* o : app_->get_options()) {
        if (o->count() == 0 || !build_.owns(o)) continue;
        const std::string name = o->get_lnames().empty() ? o->get_name() : "--" + o->get_lnames().front();
        const std::string sub = c.app->get_name();
        if (c.app->get_option_no_throw(name))
          throw InputError(name + " before '" + sub + "' is the build's option; write 'winml-make " + sub + " " + name +
                           "'");
        throw InputError(name + " applies to building, not to 'winml-make " + sub + "'");
      }
      return c.run(ctx_);
    }
  try {
    return build_.run(ctx_);
  } catch (const InputError& e) {
    // "winml-make statsu": the word was meant as a subcommand, not a model.
    const CLI::Option* models = app_->get_option_no_throw("models");
    if (!models || models->count() == 0) throw;
    std::vector<std::string> names = kEngineCommands;
    names.insert(names.end(), kToolCommands.begin(), kToolCommands.end());
    const std::string word = models->results().front();
    const std::string meant = nearest_match(word, names);
    if (meant.empty()) throw;
    throw InputError(std::string(e.what()) + "\n'" + word + "' is no subcommand either: did you mean 'winml-make " +
                     meant + "'?");
  }
}

}  // namespace winml::cli
