// winml-make cache stats | verify | gc --max-size SIZE   [--cache-dir DIR]
#include <CLI/CLI.hpp>
#include <iostream>

#include "base/error.h"
#include "base/text.h"
#include "cli/context.h"
#include "cli/interrupt.h"
#include "cli/project_options.h"
#include "cli/tools_module.h"
#include "store/cache.h"
#include "store/lock.h"
#include "base/path_text.h"

namespace winml::cli {

Command add_cache_command(CLI::App& app) {
  struct Options {
    std::string max_size;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand("cache", "Inspect and maintain the content-addressed cache");
  sub->require_subcommand(1, 1);
  CLI::App* stats = sub->add_subcommand("stats", "Entries, blobs and size");
  CLI::App* verify = sub->add_subcommand("verify", "Re-hash every blob; remove corrupt blobs and broken entries");
  CLI::App* gc = sub->add_subcommand("gc", "Remove least recently used entries until the cache fits --max-size");
  gc->add_option("--max-size", opts->max_size, "Size limit, e.g. 10G, 500M")->required();
  for (CLI::App* s : {stats, verify, gc}) s->fallthrough();
  sub->fallthrough();
  // --cache-dir is global: before `cache`, after it, or after its subcommand.
  return {sub, [opts, stats, verify, gc](const Context& ctx) {
            store::LocalCache cache(cache_dir(ctx.cache_dir));
            std::cout << "cache: " << to_utf8(cache.root()) << "\n";
            if (stats->parsed()) {
              auto s = cache.stats();
              std::cout << s.entries << " entries, " << s.blobs << " blobs, " << human_bytes(s.bytes) << "\n";
              return 0;
            }
            // gc and verify remove files: never while a build stores or restores.
            std::unique_ptr<store::DirectoryLock> lock;
            if (verify->parsed() || gc->parsed()) {
              const std::atomic<bool>& cancel = install_interrupt_handler();
              lock = store::DirectoryLock::acquire(
                  cache.lock_file(),
                  [&](const std::string&) {
                    std::cerr << "winml-make: waiting for the builds that use " << to_utf8(cache.root())
                              << " to finish\n";
                  },
                  -1, &cancel, store::LockMode::kExclusive);
              if (!lock) return static_cast<int>(kExitInterrupted);
            }
            if (verify->parsed()) {
              // Which files an entry's artifact names is read from the
              // artifact by the model tools (a module that fails to load
              // is an error here, not a reason to drop entries).
              const ToolsModule& tools = tools_module();
              auto r = cache.verify(
                  [&tools](const std::filesystem::path& primary) { return tools.artifact_files(primary); });
              for (const auto& p : r.problems) std::cout << p << "\n";
              std::cout << "checked " << r.entries_checked << " entries and " << r.blobs_checked << " blobs ("
                        << human_bytes(r.bytes_checked)
                        << "): " << (r.problems.empty() ? "all good" : std::to_string(r.problems.size()) + " removed")
                        << "\n";
              return r.problems.empty() ? 0 : 1;
            }
            if (gc->parsed()) {
              auto r = cache.gc(store::parse_size(opts->max_size));
              std::cout << "removed " << r.entries_removed << " entries and " << r.blobs_removed
                        << " blobs: " << human_bytes(r.bytes_before) << " -> " << human_bytes(r.bytes_after) << "\n";
              return 0;
            }
            return 0;
          }};
}

}  // namespace winml::cli
