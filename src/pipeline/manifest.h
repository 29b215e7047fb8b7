// Per model, after every build that touched it:
//
//   build_manifest.json       what this build did, stage by stage (schema in docs/output-layout.md)
//   winml_build_config.json   the resolved config, auto-discovered optimization
//                             flags merged in and `auto = false`: replaying it
//                             with -c rebuilds byte-identical artifacts
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/config.h"
#include "graph/builder.h"
#include "pipeline/build_plan.h"
#include "store/disk.h"

namespace winml::pipeline {

inline constexpr int kManifestSchemaVersion = 2;

// `nodes`: the model's node indices in plan.graph.
nlohmann::json manifest_json(const BuildPlan& plan, const config::ModelSettings& settings,
                             const std::vector<std::size_t>& nodes, const std::vector<graph::NodeResult>& results,
                             bool interrupted);

// The replayable config: `settings` with `discovered_flags` merged into
// [optimize] (explicit settings win) and `auto = false`.
std::string build_config_text(const config::ModelSettings& settings, const nlohmann::json& discovered_flags);

// The build record that lists the two report files of a model, beside its
// stages' records ("<model>/reports"), so that clean knows them and a build
// repairs them when they are missing or changed.
inline constexpr const char* kReportsRecord = "reports";

// Writes both files into `dir` (atomically); returns them as recorded outputs.
std::vector<store::OutputFile> write_model_reports(const BuildPlan& plan, const config::ModelSettings& settings,
                                                   const std::vector<std::size_t>& nodes,
                                                   const std::vector<graph::NodeResult>& results,
                                                   const std::filesystem::path& dir, bool interrupted,
                                                   store::DiskInterface& disk);

}  // namespace winml::pipeline
