// POSIX: the names of files winml-make loads or runs (see base/system_names.h).
#pragma once

namespace winml::system_names {

inline constexpr const char* kToolsModule = "winml-make-tools.so";
inline constexpr const char* kRefPluginEp = "libwinml_ref_ep.so";
// ONNX Runtime's library inside one version's folder of scripts/fetch-ort.sh's cache.
inline constexpr const char* kOrtLibraryInCache = "lib/libonnxruntime.so.1";
inline constexpr const char* kOrtLibraryKind = "libonnxruntime.so";
inline constexpr const char* kPython = "/usr/bin/python3";
inline constexpr const char* kTorchInstallHint =
    "with Debian's python3-torch and python3-torchvision: apt install python3 python3-torch python3-torchvision";
// Where a distribution's package puts the companion files; empty: none.
inline constexpr const char* kPackageLibraryDir = "/usr/lib/winml-make";

}  // namespace winml::system_names
