// The execution provider a model compiles with through ONNX Runtime, found
// before any stage runs: the plan asks for it (stages/compile_stage.cpp),
// so a missing ORT library, EP library, EP or device is an input error
// (exit 2) before `export` starts, naming what is missing and the key that
// points at it. What is found enters the compile stage's key: ORT's version,
// the digests of the ORT and EP library files, the EP's name, vendor and
// version and the device as ORT reports them.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <onnxruntime_c_api.h>

#include "ort/library.h"
#include "store/digest.h"

namespace winml::compile {

struct OrtTargetSpec {
  std::filesystem::path ort_library;  // absolute
  std::filesystem::path ep_library;   // absolute, or empty: an EP built into ORT
  std::string ep_name;                // as ORT names it: the EP table's ep_type ("QNNExecutionProvider")
  std::string ep;                     // winml-make's name ("qnn"), for messages
  std::string device;                 // "cpu", "gpu" or "npu"
  std::string origin = "the configuration";  // names the config file in messages
  // Where "ort_library", "ep_library", "device" and "ep" were set, when the
  // user set them: "-D compile.ep_library=x.so", "--ep-library x.so" or
  // "<file>:<line>:<column>" (config::ModelSettings::set_by). Absent: the
  // default, or, when nothing is known, somewhere in `origin`.
  std::map<std::string, std::string> set_by;
  bool ort_library_is_default = false;  // ort::default_library_path(), chosen by the environment
  // Where the default EP library was looked for (ep = "ref" and none named:
  // the plugin EP installed with winml-make); empty otherwise.
  std::vector<std::filesystem::path> ep_library_places;
  // How the user sets each, for messages: the config keys, or a subcommand's flags.
  struct Settings {
    std::string ort_library = "[compile] ort_library";
    std::string ep_library = "[compile] ep_library";
    std::string device = "[compile] device";
    std::string command = "[compile] command (backend = \"command\")";  // empty: none to give
    std::string relative_to = "the project directory";
    // What needs ONNX Runtime, and what does without it.
    std::string needs;  // empty: `ep = "qnn" compiles through ONNX Runtime (backend = "ort")`
    std::string without = "a build with compile = false needs none of them";
  } settings;
};

struct OrtTarget {
  const ort::Library* library = nullptr;
  const OrtEpDevice* device = nullptr;  // ORT's, valid while the library is loaded (the process)
  store::Digest ort_library_digest;
  store::Digest ep_library_digest;  // zero without an EP library
  std::string ep_name, ep_vendor, ep_version;
  std::string hardware;        // "npu, vendor Qualcomm (0x5143), device 0x0"
  std::string driver_version;  // the EP's os_driver_version, when it reports one
};

// Loads ORT, registers the EP library, finds the EP's device of the given
// type. Once per spec per process (a failure too). InputError otherwise.
const OrtTarget& find_ort_target(const OrtTargetSpec& spec);

// ORT's device type for "cpu", "gpu", "npu" (InputError for another).
OrtHardwareDeviceType hardware_type(const OrtTargetSpec& spec);

// spec.ort_library, loaded; InputError naming it, where it was set (or the
// default and the environment that chose its folder) and the fix.
const ort::Library& load_ort_library(const OrtTargetSpec& spec);

// Where `[compile] ort_library` and `ep_library` point: relative to the
// project directory. An empty ort_library is ORT's default
// (ort::default_library_path()); an empty ep_library is none (an EP built
// into ORT), but for ep = "ref" the plugin EP installed with winml-make.
std::filesystem::path ort_library_path(const std::string& configured, const std::filesystem::path& project_dir);
std::filesystem::path ep_library_path(const std::string& configured, const std::filesystem::path& project_dir,
                                      const std::string& ep);
// Fills the spec's paths, and what messages say of where they came from, from
// the values given (relative to project_dir) and where each was set.
void set_libraries(OrtTargetSpec& spec, const std::string& ort_library, const std::string& ep_library,
                   const std::filesystem::path& project_dir);

// The `ref` backend as an ONNX Runtime plugin EP, libwinml_ref_ep.so: where
// winml-make finds its other companion files (base/companion_files.h).
std::filesystem::path ref_plugin_path();

}  // namespace winml::compile
