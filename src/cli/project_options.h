// What build, status, clean and graph share: finding the project's plan and
// state, and choosing models.
#pragma once

#include <atomic>
#include <set>
#include <string>
#include <vector>

#include "cli/context.h"
#include "pipeline/build_session.h"

namespace winml::cli {

// -C/-c from the context, -o `output_dir` (may be empty).
pipeline::BuildSessionOptions session_options(const Context& ctx, bool write, const std::atomic<bool>* cancel);

using pipeline::select_models;

// The cache directory: --cache-dir, else $WINML_MAKE_CACHE_DIR, else ~/.cache/winml-make.
std::filesystem::path cache_dir(const std::string& option);

}  // namespace winml::cli
