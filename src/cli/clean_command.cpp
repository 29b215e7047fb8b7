// winml-make clean [TARGET...] [-o DIR]: removes the models' output folders
// and their build records (not the shared cache).
#include <CLI/CLI.hpp>
#include <iostream>

#include "base/error.h"
#include "base/text.h"
#include "cli/context.h"
#include "cli/interrupt.h"
#include "cli/project_options.h"
#include "stages/registry.h"

namespace winml::cli {

namespace fs = std::filesystem;

namespace {

std::uint64_t tree_size(const fs::path& p) {
  std::uint64_t n = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file(ec)) n += it->file_size(ec);
  return n;
}

}  // namespace

Command add_clean_command(CLI::App& app) {
  struct Options {
    std::vector<std::string> targets;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand("clean", "Remove the models' output folders and build records (the cache stays)");
  sub->add_option("targets", opts->targets, "Models to clean (default: all, and the build records)");
  sub->fallthrough();
  return {sub, [opts](const Context& ctx) {
            const std::atomic<bool>& cancel = install_interrupt_handler();
            stages::Session session(session_options(ctx, /*write=*/true, &cancel),
                                    stages::builtin_stages());
            if (!session.open()) return static_cast<int>(kExitInterrupted);
            auto selected = select_targets(session, opts->targets);
            const auto& plan = session.plan();
            std::error_code ec;
            for (const auto& t : plan.graph.targets) {
              if (!selected.empty() && !selected.count(t)) continue;
              const fs::path dir = session.target_dir(t);
              if (fs::exists(dir, ec)) {
                std::uint64_t size = tree_size(dir);
                fs::remove_all(dir, ec);
                std::cout << "removed " << dir.string() << " (" << human_bytes(size) << ")\n";
              }
              for (const auto& n : plan.graph.nodes)
                if (n.target == t) session.state().erase(n.id());  // (clean is rare: no index needed)
            }
            if (selected.empty()) {
              // Everything but the lock we hold.
              for (const char* f : {"state", "journal", "plan", "ingredients", "staging"})
                fs::remove_all(session.state_dir() / f, ec);
              std::cout << "removed build records in " << session.state_dir().string() << "\n";
            } else {
              session.state().save();
            }
            return 0;
          }};
}

}  // namespace winml::cli
