// The output layout (docs/output-layout.md): <output_dir>/<model>/<file>.
#pragma once

namespace winml::pipeline {

inline constexpr const char* kExportFile = "export.onnx";
inline constexpr const char* kOptimizedFile = "optimized.onnx";
inline constexpr const char* kQuantizedFile = "quantized.onnx";
inline constexpr const char* kCompiledFile = "compiled.onnx";
inline constexpr const char* kModelFile = "model.onnx";
inline constexpr const char* kAnalyzeFile = "analyze_result.json";
inline constexpr const char* kManifestFile = "build_manifest.json";
inline constexpr const char* kBuildConfigFile = "winml_build_config.json";
inline constexpr const char* kStateDir = ".winml-make";  // inside the output directory
// Beside the stored plan in the state folder: what running and reporting need
// from the configuration (plan_contexts.h).
inline constexpr const char* kContextsFile = "contexts";

}  // namespace winml::pipeline
