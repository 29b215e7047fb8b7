#include "cli/tools_module.h"

#include <system_error>

#include "base/companion_files.h"
#include "base/error.h"
#include "base/rules.h"
#include "base/shared_library.h"
#include "base/this_executable.h"
#include "cli/tools_stamp.h"
#include "base/path_text.h"

namespace winml::cli {

namespace fs = std::filesystem;

fs::path tools_module_path() {
  static const fs::path path = find_companion_file(kToolsFileName);
  return path;
}

namespace {

// Why no place held a module this binary can use: each place and what was
// found there, and what to copy where.
std::string no_module_message(const std::vector<std::pair<fs::path, std::string>>& tried) {
  std::string text = std::string("cannot find winml-make's model tools (") + kToolsFileName +
                     "), which it loads to read or write models; looked in:";
  for (const auto& [place, what] : tried) text += "\n  " + to_utf8(place) + ": " + what;
  text += std::string("\ncopy ") + kToolsFileName + " from the folder this winml-make was built in (" +
          kToolsBuildDir + ") next to " + to_utf8(this_executable()) +
          ", or install both with 'cmake --install <build> --prefix <dir>' (docs/getting-started.md)";
  return text;
}

}  // namespace

const ToolsModule& tools_module() {
  static std::once_flag once;
  static const ToolsModule* module = nullptr;
  // Every library opened, never closed: held here so it stays reachable (not a leak).
  static auto* const opened = new std::vector<const SharedLibrary*>();
  std::call_once(once, [] {
    std::vector<std::pair<fs::path, std::string>> tried;
    std::error_code ec;
    for (const fs::path& path : companion_file_places(kToolsFileName)) {
      if (!fs::exists(path, ec)) {
        tried.emplace_back(path, "not there");
        continue;
      }
      try {
        // Kept for the life of the process, even when refused: its stages and
        // runners are in use until exit, and libprotobuf must never be unloaded.
        const auto* library = opened->emplace_back(new SharedLibrary({to_utf8(path)}));
        using Entry = const ToolsModule* (*)();
        const ToolsModule* m = library->function<Entry>(kToolsEntryPoint)();
        if (std::string(m->stamp) != kToolsStamp) {
          tried.emplace_back(path, std::string("from another build of winml-make (") + m->stamp + ", this binary " +
                                       kToolsStamp + "): install both from one build");
          continue;
        }
        m->use_rules(rules::active());
        module = m;
        return;
      } catch (const BuildError& e) {
        tried.emplace_back(path, e.what());
      }
    }
    throw BuildError(no_module_message(tried));
  });
  return *module;
}

const pipeline::StageRegistry& tool_stages() {
  static const pipeline::StageRegistry registry = pipeline::StageRegistry::deferred(
      "model tools", {tools_module_path()}, [](pipeline::StageRegistry& r) { tools_module().register_stages(r); });
  return registry;
}

graph::NodeRunner& ToolRunner::runner() {
  std::call_once(once_, [this] { runner_ = tools_module().make_runner(session_); });
  return *runner_;
}

}  // namespace winml::cli
