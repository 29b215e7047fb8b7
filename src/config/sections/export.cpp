#include <cctype>

#include "config/config.h"

namespace winml::config {

std::shared_ptr<const Section<ExportConfig>> export_schema() {
  static auto s = [] {
    auto s = std::make_shared<Section<ExportConfig>>(
        "export",
        "How export.onnx is produced when [model] source is not set: a command, or the built-in "
        "torchvision recipe.");
    s->key("command", &ExportConfig::command, ValueType::kStringList,
           "Command that writes the model to {output} (it may also write {output}.data). Run in the project "
           "directory with a clean environment; its text is part of the stage key.")
        .alternative = json::array({"sh", "export.sh", "{output}"});
    s->key("inputs", &ExportConfig::inputs, ValueType::kStringList,
           "Files and glob patterns (relative to the project) whose contents enter the export key, e.g. the "
           "export script and weights.")
        .alternative = json::array({"export.sh"});
    s->key("env", &ExportConfig::env, ValueType::kStringList,
           "Environment variables passed to the command; their values enter the export key. No others pass.")
        .alternative = json::array({"EXPORT_FLAVOR"});
    auto& tv = s->key("torchvision", &ExportConfig::torchvision, ValueType::kString,
                      "Export this torchvision model (e.g. \"resnet50\", \"vit_b_16\") with Debian's "
                      "python3-torchvision.");
    tv.alternative = "squeezenet1_0";
    tv.validator = [](const json& v) -> std::string {
      // A builder function's name in torchvision.models (it also names the model's folder).
      for (char c : v.get<std::string>())
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
          return "is not a torchvision model name (letters, digits and '_', e.g. \"resnet50\")";
      return "";
    };
    s->key("weights", &ExportConfig::weights, ValueType::kString,
           "The torchvision model's weights. \"DEFAULT\" or a name of the model's weights enum (e.g. "
           "\"IMAGENET1K_V1\"; names are upper-case letters, digits and '_'): torchvision's pretrained weights, "
           "loaded offline from its cache, $TORCH_HOME/hub/checkpoints/ (else $XDG_CACHE_HOME/torch/..., else "
           "~/.cache/torch/...; the files and their URLs per model: rules/export/torchvision_weights.toml); the "
           "checkpoint's content enters the export key, and a missing one stops the build, naming where to put "
           "it. Any other value: a state_dict .pt file in the project. Empty: random weights (seed 0) with "
           "BatchNorm statistics measured on random inputs, so that outputs vary with the input; for trying the "
           "pipeline, not for accuracy.")
        .alternative = "weights.pt";
    auto& o = s->key("opset", &ExportConfig::opset, ValueType::kInt, "ONNX opset of the exported model.");
    o.min = 7, o.max = 17;
    auto& b = s->key("batch_size", &ExportConfig::batch_size, ValueType::kInt, "Batch dimension of the example input.");
    b.min = 1;
    s->table_list("input_tensors", &ExportConfig::input_tensors, input_tensor_schema(),
                  "Example inputs for tracing; default: the model family's usual input (e.g. 3x224x224 images).");
    auto& d = s->key("dynamic_axes", &ExportConfig::dynamic_axes, ValueType::kJson,
                     "Dynamic dimensions per input/output name: { input = { \"0\" = \"batch\" } }.");
    d.alternative = json{{"image", {{"0", "batch"}}}};
    d.validator = [](const json& v) -> std::string {
      for (const auto& [name, axes] : v.items()) {
        if (!axes.is_object()) return "entry '" + name + "' must be a table of axis index -> dimension name";
        for (const auto& [axis, dim] : axes.items()) {
          if (axis.empty() || axis.find_first_not_of("0123456789") != std::string::npos)
            return "entry '" + name + "' has axis '" + axis + "', which is not a non-negative integer";
          if (!dim.is_string()) return "entry '" + name + "." + axis + "' must be a dimension name (string)";
        }
      }
      return "";
    };
    return s;
  }();
  return s;
}

}  // namespace winml::config
