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
#include "base/path_text.h"

namespace winml::compile {

namespace fs = std::filesystem;

namespace {

// Where a setting's value came from, as a message says it: "set by -D
// compile.device=npu", "set in /p/winml.toml:7:1", else "in <origin>".
std::string where_set(const OrtTargetSpec& spec, const std::string& key) {
  const auto it = spec.set_by.find(key);
  if (it == spec.set_by.end()) return "in " + spec.origin;
  return (it->second.starts_with("-") ? "set by " : "set in ") + it->second;
}

}  // namespace

OrtHardwareDeviceType hardware_type(const OrtTargetSpec& spec) {
  const std::string& device = spec.device;
  if (device == "cpu") return OrtHardwareDeviceType_CPU;
  if (device == "gpu") return OrtHardwareDeviceType_GPU;
  if (device == "npu") return OrtHardwareDeviceType_NPU;
  throw InputError(spec.settings.device + " = \"" + device + "\" (" + where_set(spec, "device") +
                   ") is not a device ONNX Runtime selects by (cpu, gpu or npu)");
}

fs::path ort_library_path(const std::string& configured, const fs::path& project_dir) {
  if (configured.empty()) return ort::default_library_path();
  const fs::path p = from_utf8(configured);
  return (p.is_absolute() ? p : project_dir / p).lexically_normal();
}

fs::path ref_plugin_path() { return find_companion_file(system_names::kRefPluginEp); }

fs::path ep_library_path(const std::string& configured, const fs::path& project_dir, const std::string& ep) {
  if (configured.empty()) return ep == "ref" ? ref_plugin_path() : fs::path();
  const fs::path p = from_utf8(configured);
  return (p.is_absolute() ? p : project_dir / p).lexically_normal();
}

void set_libraries(OrtTargetSpec& spec, const std::string& ort_library, const std::string& ep_library,
                   const fs::path& project_dir) {
  spec.ort_library = ort_library_path(ort_library, project_dir);
  spec.ort_library_is_default = ort_library.empty();
  spec.ep_library = ep_library_path(ep_library, project_dir, spec.ep);
  if (ep_library.empty() && spec.ep == "ref")
    spec.ep_library_places = companion_file_places(system_names::kRefPluginEp);
}

const ort::Library& load_ort_library(const OrtTargetSpec& spec) {
  try {
    return ort::load(spec.ort_library);
  } catch (const InputError& e) {
    const std::string needs = !spec.settings.needs.empty()
                                  ? spec.settings.needs
                                  : "ep = \"" + spec.ep + "\" compiles through ONNX Runtime (backend = \"ort\")";
    const std::string fix = spec.ort_library_is_default
                                ? "this is the default, " + ort::default_library_origin() +
                                      ". Run scripts/fetch-ort.sh, or set " + spec.settings.ort_library + " to a " +
                                      std::string(system_names::kOrtLibraryKind) + " of 1.23 or newer"
                                : spec.settings.ort_library + " (" + where_set(spec, "ort_library") + ", relative to " +
                                      spec.settings.relative_to + ") names it: point it at a " +
                                      std::string(system_names::kOrtLibraryKind) +
                                      " of 1.23 or newer, or "
                                      "leave it unset for the default (ONNX Runtime " +
                                      ort::kDefaultVersion + " from scripts/fetch-ort.sh)";
    throw InputError(std::string(e.what()) + ". " + needs + ": " + fix +
                     (spec.settings.without.empty() ? "" : "; " + spec.settings.without));
  }
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
  const std::string id = to_utf8(lib.path()) + "|" + to_utf8(spec.ep_library);
  if (registered.count(id)) return;
  std::error_code ec;
  if (!fs::is_regular_file(spec.ep_library, ec)) {
    if (!spec.ep_library_places.empty()) {
      // The default: the plugin EP installed with winml-make, looked for where
      // the model tools are (base/companion_files.h).
      std::string text = "cannot find the `ref` plugin EP (" + std::string(system_names::kRefPluginEp) +
                         "), through which ONNX Runtime runs what is compiled for ep = \"ref\"; looked in:";
      for (const auto& place : spec.ep_library_places) text += "\n  " + to_utf8(place) + ": not there";
      text +=
          "\nbuild it (target winml_ref_ep) or install it with winml-make ('cmake --install <build> --prefix "
          "<dir>'), or point " +
          spec.settings.ep_library + " at it";
      throw InputError(text);
    }
    throw InputError(file_error(to_utf8(spec.ep_library), "no such file: " + spec.settings.ep_library + " (" +
                                                              where_set(spec, "ep_library") + ", relative to " +
                                                              spec.settings.relative_to +
                                                              ") names the plugin library of the "
                                                              "execution provider " +
                                                              spec.ep_name + " that ONNX Runtime loads"));
  }
  const OrtApi& api = lib.api();
  const std::string name = "winml-make:" + to_utf8(spec.ep_library);
  try {
    ort::check(api, api.RegisterExecutionProviderLibrary(lib.env(), name.c_str(), spec.ep_library.c_str()),
               "ONNX Runtime " + lib.version() + " cannot register it as an execution provider library");
  } catch (const std::runtime_error& e) {
    // Whatever ORT's code: the file the user named is not a usable EP library.
    throw InputError(file_error(to_utf8(spec.ep_library), e.what()) + " (" + spec.settings.ep_library + ", " +
                     (spec.ep_library_places.empty() ? where_set(spec, "ep_library") : "left unset: the default") +
                     ")");
  }
  registered.insert(id);
}

OrtTarget find(const OrtTargetSpec& spec) {
  OrtTarget t;
  t.library = &load_ort_library(spec);
  const ort::Library& lib = *t.library;
  const OrtApi& api = lib.api();
  if (!spec.ep_library.empty()) register_ep_library(lib, spec);

  const OrtEpDevice* const* devices = nullptr;
  std::size_t count = 0;
  ort::check_build(api, api.GetEpDevices(lib.env(), &devices, &count), "ONNX Runtime's devices");
  const OrtHardwareDeviceType wanted = hardware_type(spec);
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
  const std::string from = spec.ep_library.empty() ? to_utf8(lib.path()) : to_utf8(spec.ep_library);
  if (same_ep.empty())
    throw InputError(file_error(
        from, "ONNX Runtime " + lib.version() + (spec.ep_library.empty() ? "" : " with this library") +
                  " has no execution provider " + spec.ep_name + " (ep = \"" + spec.ep + "\", " +
                  where_set(spec, "ep") + "); it offers " +
                  (offered.empty() ? std::string("none") : join(offered, ", ")) + ". Point " +
                  spec.settings.ep_library + " at the library that provides " + spec.ep_name + " (relative to " +
                  spec.settings.relative_to + ")" +
                  (spec.settings.command.empty() ? "" : ", give a vendor compiler in " + spec.settings.command) +
                  ", or choose another ep"));
  if (!t.device)
    throw InputError(file_error(from, spec.ep_name + " has no " + spec.device + " device on this machine (" +
                                          spec.settings.device + " = \"" + spec.device + "\", " +
                                          where_set(spec, "device") + "); it offers " + join(same_ep, ", ") + ". Set " +
                                          spec.settings.device +
                                          " to one of them, or use a machine with the "
                                          "device" +
                                          (spec.settings.without.empty() ? "" : "; " + spec.settings.without)));

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
  std::string id = to_utf8(spec.ort_library) + "|" + to_utf8(spec.ep_library) + "|" + spec.ep_name + "|" + spec.device +
                   "|" + spec.origin;
  for (const auto& [key, where] : spec.set_by) id += "|" + key + "=" + where;
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
