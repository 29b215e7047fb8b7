#include "config/config.h"
#include "ep/ep_table.h"

namespace winml::config {

namespace {

// The backend a winml-cli user expects: ONNX Runtime for the EPs it
// compiles; a vendor compiler when one is given; winml-make's own for `ref`;
// the prepared model for EPs that compile at load time.
std::string default_backend(const json& c) {
  if (c.contains("command") && c["command"].is_array() && !c["command"].empty()) return "command";
  const std::string ep = c.value("ep", "cpu");
  if (ep == "ref") return "ref";
  return ep::load_ep_table(ep).aot_compile ? "ort" : "prepare";
}

}  // namespace

std::string backend_problem(const CompileConfig& c) {
  const std::string b = c.backend.value_or("");
  const bool aot = ep::load_ep_table(c.ep).aot_compile;
  if (b == "ref" && c.ep != "ref")
    return "backend = \"ref\" is winml-make's own compiler, for ep = \"ref\" only; ep = \"" + c.ep +
           "\" compiles with backend = \"ort\" or \"command\"";
  if (b == "prepare" && aot)
    return "backend = \"prepare\" writes the model for EPs that compile at load time; ep = \"" + c.ep +
           "\" needs it compiled ahead of time: backend = \"ort\" or \"command\"";
  if (b == "command" && c.command.empty())
    return "backend = \"command\" runs the vendor compiler in [compile] command, which is empty";
  if (b == "command" && !aot)
    return "a vendor compiler ([compile] command) is only used for EPs compiled ahead of time (aot_compile = true "
           "in rules/ep/<ep>.toml); ep = \"" +
           c.ep + "\" compiles at load time";
  if (b != "command" && !c.command.empty())
    return "[compile] command is set but backend = \"" + b + "\" does not run it; set backend = \"command\"";
  if (b != "ort") {
    for (const auto& [key, set] : {std::pair<const char*, bool>{"ort_library", !c.ort_library.empty()},
                                   {"ep_library", !c.ep_library.empty()},
                                   {"provider_options", !c.provider_options.empty()},
                                   {"session_options", !c.session_options.empty()}})
      if (set) return std::string("[compile] ") + key + " is used by backend = \"ort\" only (backend = \"" + b + "\")";
  }
  return "";
}

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
    auto& backend = s->optional_key(
        "backend", &CompileConfig::backend, ValueType::kString,
        "How the model is compiled: \"ort\" (ONNX Runtime's compile API with the EP, built into the ORT "
        "library or registered from ep_library), \"command\" (the vendor compiler in command), \"ref\" "
        "(winml-make's own compiler, for ep = \"ref\") or \"prepare\" (the checked, shape-annotated model, for "
        "EPs that compile at load time).");
    backend.choices = kCompileBackends;
    backend.default_doc =
        "\"command\" when command is set, \"ref\" for ep = \"ref\", \"prepare\" for EPs that compile at load "
        "time (cpu, dml), else \"ort\"";
    backend.example = "ort";
    backend.resolve = [](json& c) {
      if (!c.contains("backend") || c["backend"].is_null()) c["backend"] = default_backend(c);
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
    auto& ort_library = s->key(
        "ort_library", &CompileConfig::ort_library, ValueType::kString,
        "The ONNX Runtime library (libonnxruntime.so, 1.23 or newer) that backend = \"ort\" loads, relative to "
        "the project. Its version and the digest of the file enter the compile key.");
    ort_library.default_doc =
        "ONNX Runtime 1.29.0 from scripts/fetch-ort.sh: $WINML_ORT_CACHE, else "
        "${XDG_CACHE_HOME:-~/.cache}/winml-make/ort, then 1.29.0/lib/libonnxruntime.so.1";
    ort_library.alternative = "ort/libonnxruntime.so.1";
    s->key("ep_library", &CompileConfig::ep_library, ValueType::kString,
           "A plugin execution provider's library that ONNX Runtime registers (RegisterExecutionProviderLibrary), "
           "relative to the project; empty: an EP built into the ORT library, and for ep = \"ref\" the plugin EP "
           "installed with winml-make (libwinml_ref_ep.so). The digest of the file and the EP's name, vendor and "
           "version as ORT reports them enter the compile key.")
        .alternative = "ep/libplugin_ep.so";
    s->key("provider_options", &CompileConfig::provider_options, ValueType::kStringTable,
           "The EP's provider options for backend = \"ort\" (SessionOptionsAppendExecutionProvider_V2), e.g. "
           "{ htp_performance_mode = \"burst\" } for QNN.")
        .alternative = json{{"dims", "batch=1"}};  // (an option of the ref plugin EP, for the contract test)
    s->key("session_options", &CompileConfig::session_options, ValueType::kStringTable,
           "Session config entries for backend = \"ort\" (AddSessionConfigEntry), e.g. "
           "{ \"session.disable_cpu_ep_fallback\" = \"1\" } to fail unless the EP takes every node.")
        .alternative = json{{"session.disable_cpu_ep_fallback", "1"}};
    return s;
  }();
  return s;
}

}  // namespace winml::config
