// winml-make's command line: the global options, the build (no subcommand)
// and the subcommands, parsed and run with the tool's exit codes.
//
// It is defined in two places from this one class. The binary defines the
// engine's commands (build, status, clean, graph, config, cache) and a
// stand-in for each model tool (kToolCommands); the model tools' module
// (src/tools) defines the same line with the tools themselves. A stand-in,
// or a request for help, hands the untouched arguments to the module.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cli/context.h"

namespace winml::cli {

// The engine's subcommands (add_engine_commands), and those the model
// tools' module defines (src/tools).
inline const std::vector<std::string> kEngineCommands = {"config", "status", "clean", "graph", "cache"};
inline const std::vector<std::string> kToolCommands = {"inspect", "optimize",  "analyze",     "run", "quantize",
                                                       "compile", "epcontext", "diff",        "check", "completions",
                                                       "man"};

// Whether the arguments name a subcommand or ask for help. A build (no
// subcommand) then needs none of them defined: their CLI11 objects cost a
// millisecond, a third of a no-op build of one model.
bool names_a_subcommand(int argc, char** argv);

class CommandLine {
 public:
  // The global options and the build.
  CommandLine();
  ~CommandLine();
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  CLI::App& app() { return *app_; }
  const Command& build() const { return build_; }
  void add(Command command) { commands_.push_back(std::move(command)); }
  void add_engine_commands();
  // When help is asked for, or a stand-in is parsed, `elsewhere` runs with
  // the arguments as given.
  void hand_over(std::function<int(int, char**)> elsewhere) { elsewhere_ = std::move(elsewhere); }
  // Subcommands defined elsewhere.
  void add_stand_ins(const std::vector<std::string>& names);

  int run(int argc, char** argv);

 private:
  int dispatch();

  // Behind a pointer, so that the entry points (main.cpp, tools/module.cpp)
  // need not compile CLI11's inline code: 5-7 s of build each.
  std::unique_ptr<CLI::App> app_;
  Context ctx_;
  Command build_;
  std::vector<Command> commands_;
  std::vector<CLI::App*> stand_ins_;
  std::function<int(int, char**)> elsewhere_;
  std::vector<bool> shorthand_given_;
  std::string min_sqnr_;
};

}  // namespace winml::cli
