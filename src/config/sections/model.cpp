#include "config/config.h"
#include "config/model_name.h"

namespace winml::config {

std::shared_ptr<const Section<ModelConfig>> model_schema() {
  static auto s = [] {
    auto s = std::make_shared<Section<ModelConfig>>(
        "model",
        "A model target. Use [model] for one model or [[model]] entries for several; a [[model]] entry "
        "may hold its own export/optimize/quantize/compile tables that override the project-wide ones.");
    auto& n = s->key("name", &ModelConfig::name, ValueType::kString,
                     "Model name, used for the output folder and on the command line.");
    n.default_doc = "the source file's stem, the torchvision model name, or the project directory's name";
    n.alternative = "renamed";
    n.validator = [](const json& v) -> std::string {
      const std::string s = v.get<std::string>();
      return s.empty() ? "" : model_name_problem(s);  // empty: derived (and checked) when resolved
    };
    s->key("source", &ModelConfig::source, ValueType::kString,
           "An existing ONNX model (relative to the project) imported as export.onnx, with its sidecars. "
           "Leave empty to produce the model with [export].")
        .alternative = "other.onnx";
    auto& dims =
        s->key("dims", &ModelConfig::dims, ValueType::kIntTable,
               "Sizes for open input dimensions, used by calibration, validation and shape inference: a name sets "
               "every dimension called so ({ batch = 1, sequence = 128 }); \"<input>.<index>\" sets one dimension of "
               "one input, unnamed ones included ({ \"x.2\" = 640 }), and wins over a name. A dimension left open "
               "is sized 1, with a warning in the quantize and compile reports and the build summary.");
    dims.alternative = json{{"batch", 1}};
    // Bounded so that a typo cannot ask calibration for terabytes.
    dims.min = 1, dims.max = 1 << 20;
    return s;
  }();
  return s;
}

std::shared_ptr<const Section<InputTensorSpec>> input_tensor_schema() {
  static auto s = [] {
    auto s = std::make_shared<Section<InputTensorSpec>>("input_tensors", "An input tensor description.");
    s->key("name", &InputTensorSpec::name, ValueType::kString, "Input name as in the model.").alternative = "image";
    auto& d = s->key("dtype", &InputTensorSpec::dtype, ValueType::kString, "Element type.");
    d.choices = {"float32", "float16", "float64", "int8", "uint8", "int16", "uint16", "int32", "int64", "bool"};
    auto& shape = s->key("shape", &InputTensorSpec::shape, ValueType::kShape,
                         "Dimensions: integers, or names resolved from [model] dims (else 1).");
    shape.alternative = json::array({1, 3, 64, 64});
    shape.min = 1, shape.max = 1 << 20;
    shape.validator = [](const json& v) -> std::string {
      double elements = 1;
      for (const auto& d : v)
        if (d.is_number_integer()) elements *= d.get<double>();
      return elements > double(1u << 30) ? "has more than 2^30 elements per sample" : "";
    };
    return s;
  }();
  return s;
}

}  // namespace winml::config
