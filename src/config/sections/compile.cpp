#include "config/config.h"
#include "ep/ep_table.h"

namespace winml::config {

std::shared_ptr<const Section<CompileConfig>> compile_schema() {
  static auto s = [] {
    auto s = std::make_shared<Section<CompileConfig>>(
        "compile", "Compilation for the target execution provider, validation and packaging.");
    s->key("enabled", &CompileConfig::enabled, ValueType::kBool,
           "Run the compile stage; `compile = false` at the top level is the same.");
    s->key("ep", &CompileConfig::ep, ValueType::kString,
           "Target execution provider (rules/ep/<ep>.toml); also the EP that analyze, optimize and quantize "
           "consult for operator support.")
        .dynamic_choices = ep::ep_table_names;
    auto& dev =
        s->key("device", &CompileConfig::device, ValueType::kString, "Target device of the EP (cpu, gpu, npu).");
    dev.default_doc = "the EP's default_device";
    dev.alternative = "npu";
    dev.resolve = [](json& c) {
      if (c.value("device", "").empty()) c["device"] = ep::load_ep_table(c.value("ep", "cpu")).default_device;
    };
    s->key("embed", &CompileConfig::embed, ValueType::kBool,
           "Store EPContext blobs inside the model (embed_mode = 1) instead of a .bin sidecar.");
    s->key("validate", &CompileConfig::validate, ValueType::kBool,
           "Run the compiled model and fail on NaN or Inf outputs: on the first sample of [quantize] "
           "calibration_data when set, else on all-ones inputs.");
    s->key("command", &CompileConfig::command, ValueType::kStringList,
           "Vendor compiler for SDK-bound EPs, with {input}, {output}, {output_dir}, {embed} and {device} "
           "placeholders.")
        .alternative = json::array({"sh", "compile.sh", "{input}", "{output}"});
    s->key("env", &CompileConfig::env, ValueType::kStringList,
           "Environment variables passed to the vendor compiler (e.g. PATH, QNN_SDK_ROOT); their values enter the "
           "compile key. No others pass.")
        .alternative = json::array({"COMPILER_HOME"});
    return s;
  }();
  return s;
}

}  // namespace winml::config
