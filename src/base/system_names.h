// The names of the files winml-make loads or runs, as each system spells
// them (shared libraries: libX.so or X.dll; Python: /usr/bin/python3 or
// python on PATH). Defined per system, chosen by the include path CMake
// gives (base/posix/platform/, base/windows/platform/).
//
//   kToolsModule         the model tools' module (cli/tools_module.h)
//   kRefPluginEp         the `ref` backend as an ONNX Runtime plugin EP
//   kOrtLibraryInCache   ONNX Runtime's library inside a version's folder of ORT's cache
//   kOrtLibraryKind      how messages name an ONNX Runtime library
//   kPython              the Python the torchvision export recipe runs
//   kTorchInstallHint    how to get it, for the message when it is missing
//   kPackageLibraryDir   where a distribution's package puts the companions (empty: none)
#pragma once

#include "platform/system_names.h"
