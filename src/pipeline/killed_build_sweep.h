// What a killed build leaves in its output directory, and its removal by the
// next build (which knows the last one was killed from the lock's marker:
// a build that finished leaves nothing to sweep, and the next pays nothing).
#pragma once

#include <filesystem>

#include "store/disk.h"

namespace winml::pipeline {

// Removes, through `disk` and only inside `output_dir`: temporaries beside
// the outputs (in the folder and its model folders), the state folder's own
// temporaries (plan, state, journal, logs and their folders) and its staging
// area. Under the
// build lock every temporary there is a dead build's, whatever pid it names.
void sweep_killed_build(store::DiskInterface& disk, const std::filesystem::path& output_dir);

}  // namespace winml::pipeline
