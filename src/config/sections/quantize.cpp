#include "config/config.h"

namespace winml::config {

std::string value_range_problem(const QuantizeConfig& q) {
  if (q.value_range.size() != 2) return "";
  const double a = q.value_range[0], b = q.value_range[1];
  if (q.distribution == "normal")
    return b > 0 ? "" : "is [mean, stddev] for normal samples: the standard deviation must be positive";
  return a < b ? "" : "is [low, high] for uniform samples: low must be below high";
}

std::shared_ptr<const Section<QuantizeConfig>> quantize_schema() {
  static auto s = [] {
    const std::vector<std::string> types = {"uint8", "int8", "uint16", "int16"};
    auto s = std::make_shared<Section<QuantizeConfig>>(
        "quantize", "Static QDQ quantization with calibrated scales (ONNX Runtime's format), or float16.");
    s->key("enabled", &QuantizeConfig::enabled, ValueType::kBool,
           "Run the quantize stage; `quantize = false` at the top level is the same.");
    s->key("mode", &QuantizeConfig::mode, ValueType::kString,
           "\"qdq\": QuantizeLinear/DequantizeLinear around quantizable ops; \"fp16\": convert floats to float16; "
           "\"matmulnbits\": weight-only, each MatMul with a constant weight becomes com.microsoft MatMulNBits "
           "(bits, block_size, weight_symmetric, accuracy_level).")
        .choices = {"qdq", "fp16", "matmulnbits"};
    std::vector<std::string> weight_types = types;
    weight_types.insert(weight_types.end(), {"uint4", "int4"});
    s->key("weight_type", &QuantizeConfig::weight_type, ValueType::kString,
           "Element type of quantized weights. uint4 and int4: MatMul and Gemm weights in blocks of block_size "
           "along their reduced dimension, others per channel; the model is converted to opset 21.")
        .choices = weight_types;
    std::vector<std::string> activation_types = types;
    activation_types.push_back("float32");
    s->key("activation_type", &QuantizeConfig::activation_type, ValueType::kString,
           "Element type of quantized activations (16-bit types use com.microsoft Q/DQ below opset 21); "
           "\"float32\": weights only (w4a32, w8a32), no calibration.")
        .choices = activation_types;
    auto& bits = s->key("bits", &QuantizeConfig::bits, ValueType::kInt, "matmulnbits mode: bits per weight, 4 or 8.");
    bits.alternative = 8;
    // No [min, max] range: it would add a second message that calls 5 to 7 valid.
    bits.validator = [](const json& v) -> std::string {
      return v == 4 || v == 8 ? "" : "is " + v.dump() + ", expected 4 or 8";
    };
    auto& block = s->key("block_size", &QuantizeConfig::block_size, ValueType::kInt,
                         "Weights per scale along the reduced dimension, for matmulnbits and 4-bit QDQ weights: a "
                         "power of two from 16 to 256.");
    block.min = 16, block.max = 256;
    block.alternative = 64;
    block.validator = [](const json& v) -> std::string {
      const std::int64_t b = v.get<std::int64_t>();
      return (b & (b - 1)) == 0 ? "" : "must be a power of two (16, 32, 64, 128 or 256)";
    };
    auto& level = s->key("accuracy_level", &QuantizeConfig::accuracy_level, ValueType::kInt,
                         "matmulnbits mode: MatMulNBits' accuracy_level, the lowest precision an execution "
                         "provider may compute A in (0 unset, 1 fp32, 2 fp16, 3 bf16, 4 int8); winml-make's "
                         "runtime always computes in float32.");
    level.min = 0, level.max = 4;
    s->key("per_channel", &QuantizeConfig::per_channel, ValueType::kBool,
           "One scale per output channel for weights (Conv axis 0, ConvTranspose 1, Gemm by transB, MatMul 1).");
    auto& sym = s->optional_key("symmetric", &QuantizeConfig::symmetric, ValueType::kBool,
                                "Shorthand that sets both weight_symmetric and activation_symmetric.");
    sym.default_doc = "unset";
    sym.resolve = [](json& q) {  // the shorthand wins over both
      if (q.value("symmetric", json()).is_null()) return;
      q["weight_symmetric"] = q["activation_symmetric"] = q["symmetric"];
      q["symmetric"] = nullptr;
    };
    auto& ws = s->optional_key("weight_symmetric", &QuantizeConfig::weight_symmetric, ValueType::kBool,
                               "Symmetric weight ranges (zero point at the type's middle).");
    ws.default_doc = "true for signed weight types and matmulnbits, else false";
    ws.resolve = [](json& q) {
      if (!q.value("weight_symmetric", json()).is_null()) return;
      const std::string t = q.value("weight_type", "int8");
      q["weight_symmetric"] = t == "int8" || t == "int16" || t == "int4" || q.value("mode", "qdq") == "matmulnbits";
    };
    auto& as = s->optional_key("activation_symmetric", &QuantizeConfig::activation_symmetric, ValueType::kBool,
                               "Symmetric activation ranges.");
    as.default_doc = "false";
    as.resolve = [](json& q) {
      if (q.value("activation_symmetric", json()).is_null()) q["activation_symmetric"] = false;
    };
    s->key("reduce_range", &QuantizeConfig::reduce_range, ValueType::kBool,
           "Quantize weights to 7 bits (for CPUs without VNNI, as ONNX Runtime's option).");
    s->key("bias_correction", &QuantizeConfig::bias_correction, ValueType::kBool,
           "Remove the mean output shift weight rounding causes: the bias of each Conv, Gemm and MatMul(+Add) "
           "with a quantized weight is lowered by (W_q - W) · E[input], E[input] per channel from calibration.");
    s->key("op_types_to_quantize", &QuantizeConfig::op_types_to_quantize, ValueType::kStringList,
           "Only quantize these operator types; empty means every type the target EP supports quantized.")
        .alternative = json::array({"Conv"});
    s->key("nodes_to_exclude", &QuantizeConfig::nodes_to_exclude, ValueType::kStringList,
           "Node names that stay in float.")
        .alternative = json::array({"first_node"});
    s->key("calibration_method", &QuantizeConfig::calibration_method, ValueType::kString,
           "How activation ranges are chosen from calibration data.")
        .choices = {"minmax", "percentile", "entropy"};
    auto& p = s->key("percentile", &QuantizeConfig::percentile, ValueType::kFloat,
                     "Percentile of |x| kept by the percentile method.");
    p.min = 50.0, p.max = 100.0;
    auto& nb = s->optional_key("num_bins", &QuantizeConfig::num_bins, ValueType::kInt,
                               "Histogram bins for the percentile and entropy methods.");
    nb.default_doc = "2048 for percentile, 128 for entropy";
    nb.min = 8, nb.max = 1 << 16;
    nb.example = 1024;
    nb.resolve = [](json& q) {
      if (q.value("num_bins", json()).is_null())
        q["num_bins"] = q.value("calibration_method", "minmax") == "entropy" ? 128 : 2048;
    };
    auto& sqnr = s->optional_key("min_sqnr_db", &QuantizeConfig::min_sqnr_db, ValueType::kFloat,
                                 "Fail the quantize stage when the quantized model's SQNR against the float model, "
                                 "on the calibration samples, is below this for any output (or cannot be measured).");
    sqnr.default_doc = "no limit";
    sqnr.alternative = -50.0;  // a change of the key that no model of the tests falls below
    sqnr.example = 30.0;
    s->key("allow_constant_outputs", &QuantizeConfig::allow_constant_outputs, ValueType::kBool,
           "With min_sqnr_db set, let an output pass that the float model gives the same values on every "
           "calibration sample (its accuracy cannot be measured); otherwise such an output fails the stage.");
    auto& n = s->key("samples", &QuantizeConfig::samples, ValueType::kInt,
                     "Number of calibration samples (from calibration_data, or generated).");
    n.min = 1, n.max = 100000;
    s->key("calibration_data", &QuantizeConfig::calibration_data, ValueType::kString,
           "Directory with one subdirectory per sample, each holding <input>.npy or <input>.pb for every model "
           "input ('/' in a name written as '_'). Empty: generate samples from input_tensors.")
        .alternative = "calibration";
    s->key("distribution", &QuantizeConfig::distribution, ValueType::kString,
           "Distribution of generated calibration samples.")
        .choices = {"uniform", "normal"};
    auto& vr = s->key("value_range", &QuantizeConfig::value_range, ValueType::kFloatList,
                      "[low, high] of uniform samples, or [mean, stddev] of normal samples. An integer input that "
                      "indexes a table (token or position ids: a Gather of an initializer) is drawn over the "
                      "table's rows instead.");
    vr.alternative = json::array({-1.0, 1.0});
    vr.validator = [](const json& v) -> std::string {
      if (v.size() != 2) return "must have exactly two numbers";
      return "";
    };
    s->key("seed", &QuantizeConfig::seed, ValueType::kInt, "Seed of generated calibration samples.");
    s->table_list("input_tensors", &QuantizeConfig::input_tensors, input_tensor_schema(),
                  "Inputs to generate calibration samples for; default: the model's inputs with symbolic dims "
                  "from [model] dims.");
    s->key("keep_io_types", &QuantizeConfig::keep_io_types, ValueType::kBool,
           "fp16 mode: keep float32 model inputs and outputs (Casts at the boundary).");
    s->key("op_block_list", &QuantizeConfig::op_block_list, ValueType::kStringList,
           "fp16 mode: operator types that stay in float32.")
        .alternative = json::array({"Conv"});
    s->key("requantize", &QuantizeConfig::requantize, ValueType::kBool,
           "Allow an input that is already QDQ-quantized: its Q/DQ pairs are removed and it is quantized again.");
    // winml-make quantize's flags (tools/schema_flags.h).
    s->flag("mode", {"mode", "qdq (default), fp16 or matmulnbits (weight-only MatMulNBits)"});
    s->flag("weight_type", {"weight-type", "uint8, int8 (default), uint16, int16, uint4, int4 (opset 21)"});
    s->flag("activation_type", {"activation-type", "uint8 (default), int8, uint16, int16, float32 (weights only)"});
    s->flag("bits", {"bits", "matmulnbits: 4 (default) or 8 bits per weight"});
    s->flag("block_size", {"block-size", "matmulnbits and 4-bit weights: weights per scale (default 32)"});
    s->flag("accuracy_level", {"accuracy-level", "matmulnbits: MatMulNBits' accuracy_level 0-4 (default 0)"});
    s->flag("weight_symmetric", {"weight-asymmetric", "Asymmetric weight ranges (with zero points)", false});
    s->flag("per_channel", {"per-channel", "One weight scale per output channel", true});
    s->flag("symmetric", {"symmetric", "Symmetric weight and activation ranges", true});
    s->flag("reduce_range", {"reduce-range", "7-bit weights", true});
    s->flag("bias_correction", {"no-bias-correction", "Keep biases as they are (no bias correction)", false});
    s->flag("calibration_method", {"calibration-method", "minmax (default), percentile, entropy"});
    s->flag("percentile", {"percentile", "Percentile kept by the percentile method (default 99.999)"});
    s->flag("num_bins", {"num-bins", "Histogram bins for percentile/entropy"});
    s->flag("samples", {"samples", "Number of calibration samples (default 8)"});
    s->flag("calibration_data",
            {"calibration-data",
             "Directory with one subdirectory per sample (<input>.npy or <input>.pb); default: generated"});
    s->flag("distribution", {"distribution", "Generated samples: uniform (default) or normal"});
    s->flag("value_range", {"value-range", "Generated samples: LOW HIGH, or MEAN STDDEV", nullptr, 2});
    s->flag("seed", {"seed", "Seed of generated samples"});
    s->flag("op_types_to_quantize", {"op-types", "Only quantize these operator types"});
    s->flag("nodes_to_exclude", {"exclude-nodes", "Node names that stay float"});
    s->flag("op_block_list", {"block-ops", "fp16: operator types that stay float32"});
    s->flag("keep_io_types", {"fp16-io", "fp16: make the model's inputs and outputs float16 too", false});
    s->flag("requantize", {"requantize", "Accept a QDQ model: remove its Q/DQ and quantize again", true});
    return s;
  }();
  return s;
}

}  // namespace winml::config
