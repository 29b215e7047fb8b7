// winml-make clean [MODEL...|--dead] [-o DIR]: removes what the build records
// say winml-make wrote for the models (pipeline/clean.h), and the build records
// themselves; never a file it did not write, and not the shared cache.
// --dead: only models winml.toml no longer configures (pipeline/dead_models.h).
#include <CLI/CLI.hpp>
#include <iostream>
#include <set>

#include "base/error.h"
#include "base/path_text.h"
#include "base/text.h"
#include "cli/context.h"
#include "cli/interrupt.h"
#include "cli/project_options.h"
#include "cli/tools_module.h"
#include "pipeline/clean.h"
#include "pipeline/dead_models.h"
#include "pipeline/registry.h"
#include "store/confined_dir.h"

namespace winml::cli {

namespace fs = std::filesystem;

namespace {

// One line per model folder: what went, and what stays and why.
std::string cleaned_line(const pipeline::CleanedModel& m) {
  const std::string removed = count_of(m.files, "file") + ", " + human_bytes(m.bytes);
  if (m.dir_removed) return "removed " + to_utf8(m.dir) + " (" + (m.files ? removed : "it was empty") + ")\n";
  if (m.others.empty()) return m.files ? "removed " + removed + " from " + to_utf8(m.dir) + "\n" : "";
  std::string line =
      m.files ? "removed " + removed + " from " + to_utf8(m.dir) + "; kept the folder" : "kept " + to_utf8(m.dir);
  line += ": it holds " + count_of(m.other_count, "entry", "entries") + " winml-make did not write (" +
          join(m.others, ", ") + (m.other_count > m.others.size() ? ", ..." : "") + ")\n";
  return line;
}

}  // namespace

Command add_clean_command(CLI::App& app) {
  struct Options {
    std::vector<std::string> models;
    bool dead = false;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand(
      "clean", "Remove the files winml-make wrote for the models, and the build records (the cache stays)");
  auto* models = sub->add_option("models", opts->models, "Models to clean (default: all, and the build records)");
  sub->add_flag("--dead", opts->dead,
                "Only the folders of models winml.toml no longer configures (winml-make status lists them)")
      ->excludes(models);
  sub->fallthrough();
  return {sub, [opts](const Context& ctx) {
            const std::atomic<bool>& cancel = install_interrupt_handler();
            pipeline::BuildSession session(session_options(ctx, /*write=*/true, &cancel), tool_stages());
            if (!session.open()) return static_cast<int>(kExitInterrupted);
            graph::ModelSelection selected;
            if (opts->dead) {
              std::set<std::string> dead;
              for (const auto& m : pipeline::dead_models(session)) {
                if (m.recorded) dead.insert(m.name);
                else
                  std::cout << "kept " << to_utf8(m.dir)
                            << ": no build records for it (winml-make deletes only files it recorded writing)\n";
              }
              if (dead.empty()) {
                std::cout << "no folders of unconfigured models to remove\n";
                return 0;
              }
              selected = graph::ModelSelection::only(std::move(dead));
            } else {
              selected = select_models(session, opts->models);
            }
            int exit_code = 0;
            for (const auto& m : pipeline::clean_models(session, selected)) {
              if (!m.problem.empty()) {
                std::cerr << "winml-make: error: " << m.problem << "\n";
                exit_code = static_cast<int>(kExitBuildFailure);
                continue;
              }
              std::cout << cleaned_line(m);
            }
            if (selected.is_every_model() && exit_code == 0) {
              // Every record but the lock this process holds.
              store::DiskInterface& disk = *session.options().disk;
              const store::ConfinedDir owned(session.plan().output_dir, disk);
              const std::set<std::string> records = {"state",       "journal", "plan", "contexts",
                                                     "ingredients", "staging", "logs", "running"};
              for (const auto& e : disk.list_dir(session.state_dir()))
                if (records.count(e.name)) owned.remove_tree(session.state_dir() / e.name);
              std::cout << "removed build records in " << to_utf8(session.state_dir()) << "\n";
            }
            return exit_code;
          }};
}

}  // namespace winml::cli
