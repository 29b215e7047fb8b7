#include "cli/project_options.h"

#include <iostream>

#include "base/error.h"
#include "base/text.h"
#include "config/project.h"
#include "store/cache.h"
#include "base/path_text.h"

namespace winml::cli {

namespace fs = std::filesystem;

pipeline::BuildSessionOptions session_options(const Context& ctx, bool write, const std::atomic<bool>* cancel) {
  const std::string& output_dir = ctx.output_dir;
  pipeline::BuildSessionOptions o;
  o.source.project_dir = ctx.project_dir();
  o.source.config_file = ctx.config_file().empty() ? o.source.project_dir / config::kProjectFile : ctx.config_file();
  if (ctx.config_file().empty() && !fs::exists(o.source.config_file))
    throw InputError(file_error(to_utf8(o.source.config_file),
                                "no such file: run winml-make in a project directory (one with winml.toml), or pass "
                                "-C DIR or -c CONFIG"));
  if (!output_dir.empty()) o.source.output_dir_override = fs::absolute(from_utf8(output_dir)).lexically_normal();
  o.source.defines = ctx.defines;
  o.write = write;
  o.cancel = cancel;
  o.on_lock_wait = [](const fs::path& lock_file, const std::string& holder) {
    std::cerr << "winml-make: waiting for " << holder << ", which is building into "
              << to_utf8(lock_file.parent_path().parent_path()) << " (lock " << to_utf8(lock_file) << ")" << std::endl;
  };
  return o;
}


fs::path cache_dir(const std::string& option) {
  if (!option.empty()) return fs::absolute(from_utf8(option)).lexically_normal();
  return store::LocalCache::default_dir();
}

}  // namespace winml::cli
