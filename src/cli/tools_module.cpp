#include "cli/tools_module.h"

#include <system_error>

#include "base/error.h"
#include "base/rules.h"
#include "base/shared_library.h"
#include "base/this_executable.h"
#include "cli/tools_stamp.h"

namespace winml::cli {

namespace fs = std::filesystem;

fs::path tools_module_path() {
  static const fs::path path = [] {
    const fs::path dir = this_executable().parent_path();
    const fs::path beside = dir / kToolsFileName;
    std::error_code ec;
    if (fs::exists(beside, ec)) return beside;
    return (dir / ".." / "lib" / "winml-make" / kToolsFileName).lexically_normal();
  }();
  return path;
}

const ToolsModule& tools_module() {
  static std::once_flag once;
  static const ToolsModule* module = nullptr;
  std::call_once(once, [] {
    const fs::path path = tools_module_path();
    // Kept for the life of the process: its stages and runners are in use
    // until exit, and libprotobuf must never be unloaded.
    static SharedLibrary library({path.string()});
    using Entry = const ToolsModule* (*)();
    const ToolsModule* m = library.function<Entry>(kToolsEntryPoint)();
    if (std::string(m->stamp) != kToolsStamp)
      throw BuildError(path.string() + " belongs to another build of winml-make (" + m->stamp + ", this binary " +
                       kToolsStamp + "): install both from one build");
    m->use_rules(rules::active());
    module = m;
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
