// Windows: the names of files winml-make loads or runs (see base/system_names.h).
#pragma once

namespace winml::system_names {

inline constexpr const char* kToolsModule = "winml-make-tools.dll";
inline constexpr const char* kRefPluginEp = "winml_ref_ep.dll";
// ONNX Runtime's DLL inside one version's folder of scripts/fetch-ort.sh's cache.
inline constexpr const char* kOrtLibraryInCache = "win-x64/onnxruntime.dll";
inline constexpr const char* kOrtLibraryKind = "onnxruntime.dll";
// The Python launcher's name on PATH (python.org's installer and the Store's).
inline constexpr const char* kPython = "python";
inline constexpr const char* kTorchInstallHint =
    "on PATH with PyTorch and torchvision: install Python from python.org, then pip install torch torchvision";
inline constexpr const char* kPackageLibraryDir = "";

}  // namespace winml::system_names
