#include "compile/ort_target.h"

#include <cstdio>
#include <map>
#include <mutex>
#include <set>

#include "base/companion_files.h"
#include "base/error.h"
#include "base/system_names.h"
#include "base/text.h"
#include "ort/status.h"

namespace winml::compile {

namespace fs = std::filesystem;

OrtHardwareDeviceType hardware_type(const std::string& device, const std::string& origin) {
  if (device == "cpu") return OrtHardwareDeviceType_CPU;
  if (device == "gpu") return OrtHardwareDeviceType_GPU;
  if (device == "npu") return OrtHardwareDeviceType_NPU;
  throw InputError(file_error(origin, "[compile] device = \"" + device +
                                          "\" is not a device ONNX Runtime selects by (cpu, gpu or npu)"));
}

fs::path ort_library_path(const std::string& configured, const fs::path& project_dir) {
  if (configured.empty()) return ort::default_library_path();
  const fs::path p(configured);
  return (p.is_absolute() ? p : project_dir / p).lexically_normal();
}

fs::path ref_plugin_path() { return find_companion_file(system_names::kRefPluginEp); }

fs::path ep_library_path(const std::string& configured, const fs::path& project_dir, const std::string& ep) {
  if (configured.empty()) return ep == "ref" ? ref_plugin_path() : fs::path();
  const fs::path p(configured);
  return (p.is_absolute() ? p : project_dir / p).lexically_normal();
}

namespace {

const char* device_name(OrtHardwareDeviceType t) {
  switch (t) {
    case OrtHardwareDeviceType_CPU: return "cpu";
    case OrtHardwareDeviceType_GPU: return "gpu";
    case OrtHardwareDeviceType_NPU: return "npu";
  }
  return "device";
}

std::string hex(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%x", v);
  return buf;
}

std::string metadata(const OrtApi& api, const OrtKeyValuePairs* pairs, const char* key) {
  if (!pairs) return "";
  const char* v = api.GetKeyValue(pairs, key);
  return v ? v : "";
}

// Each plugin library is registered once per process (ORT refuses a name twice).
void register_ep_library(const ort::Library& lib, const OrtTargetSpec& spec) {
  static std::mutex mutex;
  static std::set<std::string> registered;  // "<ORT library>|<EP library>"
  std::lock_guard lock(mutex);
  const std::string id = lib.path().string() + "|" + spec.ep_library.string();
  if (registered.count(id)) return;
  std::error_code ec;
  if (!fs::is_regular_file(spec.ep_library, ec))
    throw InputError(file_error(spec.ep_library.string(),
                                "no such file: " + spec.settings.ep_library + " (in " + spec.origin +
                                    (spec.ep == "ref" ? "; for ep = \"ref\" it defaults to the plugin EP built and "
                                                        "installed with winml-make, " + std::string(system_names::kRefPluginEp)
                                                      : "") +
                                    ", relative to " + spec.settings.relative_to + ") names the plugin library of the "
                                    "execution provider " +
                                    spec.ep_name + " that ONNX Runtime loads"));
  const OrtApi& api = lib.api();
  const std::string name = "winml-make:" + spec.ep_library.string();
  try {
    ort::check(api, api.RegisterExecutionProviderLibrary(lib.env(), name.c_str(), spec.ep_library.c_str()),
               "ONNX Runtime " + lib.version() + " cannot register it as an execution provider library");
  } catch (const std::runtime_error& e) {
    // Whatever ORT's code: the file the user named is not a usable EP library.
    throw InputError(file_error(spec.ep_library.string(), e.what()) + " (" + spec.settings.ep_library + " in " + spec.origin + ")");
  }
  registered.insert(id);
}

OrtTarget find(const OrtTargetSpec& spec) {
  OrtTarget t;
  try {
    t.library = &ort::load(spec.ort_library);
  } catch (const InputError& e) {
    throw InputError(std::string(e.what()) + ". ep = \"" + spec.ep +
                     "\" compiles through ONNX Runtime (backend = \"ort\"): set " + spec.settings.ort_library + " (in " +
                     spec.origin +
                     ", relative to " + spec.settings.relative_to + ") to a libonnxruntime.so of 1.23 or newer, or run "
                     "scripts/fetch-ort.sh for the default (ONNX Runtime " +
                     ort::kDefaultVersion + "); a build with compile = false needs neither");
  }
  const ort::Library& lib = *t.library;
  const OrtApi& api = lib.api();
  if (!spec.ep_library.empty()) register_ep_library(lib, spec);

  const OrtEpDevice* const* devices = nullptr;
  std::size_t count = 0;
  ort::check_build(api, api.GetEpDevices(lib.env(), &devices, &count), "ONNX Runtime's devices");
  const OrtHardwareDeviceType wanted = hardware_type(spec.device, spec.origin);
  std::vector<std::string> offered, same_ep;
  for (std::size_t i = 0; i < count; ++i) {
    const OrtEpDevice* d = devices[i];
    const std::string name = api.EpDevice_EpName(d);
    const OrtHardwareDeviceType type = api.HardwareDevice_Type(api.EpDevice_Device(d));
    offered.push_back(name + " (" + device_name(type) + ")");
    if (name != spec.ep_name) continue;
    same_ep.push_back(device_name(type));
    if (type == wanted && !t.device) t.device = d;
  }
  const std::string from =
      spec.ep_library.empty() ? lib.path().string() : spec.ep_library.string();
  if (same_ep.empty())
    throw InputError(file_error(
        from, "ONNX Runtime " + lib.version() + (spec.ep_library.empty() ? "" : " with this library") +
                  " has no execution provider " + spec.ep_name + " (ep = \"" + spec.ep + "\" in " + spec.origin +
                  "); it offers " + (offered.empty() ? std::string("none") : join(offered, ", ")) +
                  ". Point " + spec.settings.ep_library + " at the library that provides " + spec.ep_name +
                  " (relative to " + spec.settings.relative_to + "), give a vendor compiler in " + spec.settings.command +
                  ", or choose another ep"));
  if (!t.device)
    throw InputError(file_error(from, spec.ep_name + " has no " + spec.device + " device on this machine (" + spec.settings.device + " = \"" +
                                          spec.device + "\" in " + spec.origin + "); it offers " + join(same_ep, ", ") +
                                          ". Set " + spec.settings.device + " to one of them, or build on a machine with the "
                                          "device; a build with compile = false needs no EP"));

  const OrtEpDevice* d = t.device;
  const OrtHardwareDevice* hw = api.EpDevice_Device(d);
  t.ep_name = api.EpDevice_EpName(d);
  t.ep_vendor = api.EpDevice_EpVendor(d) ? api.EpDevice_EpVendor(d) : "";
  t.ep_version = metadata(api, api.EpDevice_EpMetadata(d), "version");
  t.driver_version = metadata(api, api.EpDevice_EpMetadata(d), "os_driver_version");
  const char* hw_vendor = api.HardwareDevice_Vendor(hw);
  t.hardware = std::string(device_name(api.HardwareDevice_Type(hw))) + ", vendor " + (hw_vendor ? hw_vendor : "") +
               " (" + hex(api.HardwareDevice_VendorId(hw)) + "), device " + hex(api.HardwareDevice_DeviceId(hw));
  t.ort_library_digest = store::hash_file(lib.path());
  if (!spec.ep_library.empty()) t.ep_library_digest = store::hash_file(spec.ep_library);
  return t;
}

}  // namespace

const OrtTarget& find_ort_target(const OrtTargetSpec& spec) {
  static std::mutex mutex;
  static std::map<std::string, std::pair<OrtTarget, std::string>> found;  // a target, or why not
  const std::string id = spec.ort_library.string() + "|" + spec.ep_library.string() + "|" + spec.ep_name + "|" +
                         spec.device + "|" + spec.origin;
  std::lock_guard lock(mutex);
  auto it = found.find(id);
  if (it == found.end()) {
    std::pair<OrtTarget, std::string> entry;
    try {
      entry.first = find(spec);
    } catch (const InputError& e) {
      entry.second = e.what();
    }
    it = found.emplace(id, std::move(entry)).first;
  }
  if (!it->second.second.empty()) throw InputError(it->second.second);
  return it->second.first;
}

}  // namespace winml::compile
