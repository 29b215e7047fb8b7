// Compile through a vendor's tool for SDK-bound EPs (qnn, vitisai, openvino,
// ...): `[compile] command` runs with {input}, {output}, {output_dir}, {embed}
// and {device} placeholders against a fresh directory, then the result is
// verified and placed as compiled_output.h says (EPContext nodes, safe
// non-empty blobs with content-addressed names, stray files discarded).
#pragma once

#include <atomic>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compile/compiled_output.h"
#include "ep/ep_table.h"

namespace winml::compile {

struct ExternalOptions {
  std::vector<std::string> command;                 // with placeholders
  std::map<std::string, std::string> env;           // the tool's entire environment
  bool embed = false;                               // {embed}: "1" or "0"
  std::string device;                               // {device}: [compile] device, else the EP's default
  std::filesystem::path cwd;                        // where the tool runs (the project directory)
  std::filesystem::path log_file;                   // the tool's stdout and stderr (appended)
  std::string config_origin = "[compile] command";  // names the setting in messages
  const std::atomic<bool>* cancel = nullptr;        // stops the tool (see ProcessSpec)
};

nlohmann::json compile_external(const std::filesystem::path& input, const std::filesystem::path& out,
                                const ep::EpTable& ep_table, const ExternalOptions& options);

}  // namespace winml::compile
