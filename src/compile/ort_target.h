// The execution provider a model compiles with through ONNX Runtime, found
// before any stage runs: the plan asks for it (stages/compile_stage.cpp),
// so a missing ORT library, EP library, EP or device is an input error
// (exit 2) before `export` starts, naming what is missing and the key that
// points at it. What is found enters the compile stage's key: ORT's version,
// the digests of the ORT and EP library files, the EP's name, vendor and
// version and the device as ORT reports them.
#pragma once

#include <filesystem>
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
  // How the user sets each, for messages: the config keys, or a subcommand's flags.
  struct Settings {
    std::string ort_library = "[compile] ort_library";
    std::string ep_library = "[compile] ep_library";
    std::string device = "[compile] device";
    std::string command = "[compile] command (backend = \"command\")";
    std::string relative_to = "the project directory";
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
OrtHardwareDeviceType hardware_type(const std::string& device, const std::string& origin);

// Where `[compile] ort_library` and `ep_library` point: relative to the
// project directory. An empty ort_library is ORT's default
// (ort::default_library_path()); an empty ep_library is none (an EP built
// into ORT), but for ep = "ref" the plugin EP installed with winml-make.
std::filesystem::path ort_library_path(const std::string& configured, const std::filesystem::path& project_dir);
std::filesystem::path ep_library_path(const std::string& configured, const std::filesystem::path& project_dir,
                                      const std::string& ep);

// The `ref` backend as an ONNX Runtime plugin EP, libwinml_ref_ep.so: where
// winml-make finds its other companion files (base/companion_files.h).
std::filesystem::path ref_plugin_path();

}  // namespace winml::compile
