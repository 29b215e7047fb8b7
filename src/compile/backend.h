// A compile backend: how compile_model (compile/compile.h) turns a model
// into its compiled form. Each lives in its own file, with the function
// below that reads what it needs from CompileOptions into its own typed
// options and logs what it made; compile.cpp's table names them by the
// values of [compile] backend.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "compile/compile.h"
#include "ep/ep_table.h"
#include "model/model_io.h"

namespace winml::compile {

struct BackendCall {
  model::Model& in;  // loaded; a backend that reads the file itself drops it
  const std::filesystem::path& input;
  const std::filesystem::path& output;
  const CompileOptions& options;
  const ep::EpTable& ep_table;
};

struct Backend {
  std::string_view name;
  nlohmann::json (*compile)(const BackendCall& call);
  // Compiles inside ONNX Runtime: its EP is found before anything is
  // written, and its output is validated there.
  bool in_ort = false;
};

// The backend of that name; BuildError for a name none has.
const Backend& backend_named(const std::string& name);

// A line of the stage's log (CompileOptions::log).
void say(const CompileOptions& options, const std::string& line);

nlohmann::json compile_with_ort(const BackendCall& call);      // ort_backend.cpp
nlohmann::json compile_with_ref(const BackendCall& call);      // ref_backend.cpp
nlohmann::json compile_with_prepare(const BackendCall& call);  // prepare_backend.cpp
nlohmann::json compile_with_command(const BackendCall& call);  // external_backend.cpp

}  // namespace winml::compile
