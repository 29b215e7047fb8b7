#include "compile/ort_backend.h"

#include "compile/backend.h"

#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>

#include "base/error.h"
#include "base/mapped_file.h"
#include "base/path_text.h"
#include "compile/compiled_output.h"
#include "model/epcontext.h"
#include "model/model_io.h"
#include "model/walk.h"
#include "ort/handle.h"
#include "ort/status.h"

namespace winml::compile {

namespace fs = std::filesystem;

namespace {

void say(const OrtBackendOptions& o, const std::string& line) {
  if (o.log) o.log(line);
}

// "Conv x53, Relu x49": the operators of the nodes not in an EPContext node.
std::map<std::string, int> nodes_left(const model::Model& m) {
  std::map<std::string, int> ops;
  model::for_each_graph(m.proto.graph(), [&](const onnx::GraphProto& g, int) {
    for (const auto& n : g.node())
      if (!model::is_epcontext_node(n)) ++ops[(n.domain().empty() ? "" : n.domain() + ":") + n.op_type()];
  });
  return ops;
}

std::string describe(const std::map<std::string, int>& ops) {
  std::string out;
  for (const auto& [op, count] : ops) out += (out.empty() ? "" : ", ") + op + " x" + std::to_string(count);
  return out.empty() ? "none" : out;
}

// Session options for the compile: the config entries, then the EP's device
// with its provider options. The input's external data is read from its
// directory (the model itself is handed over as bytes).
ort::Handle<OrtSessionOptions> session_options(const OrtTarget& t, const OrtBackendOptions& o,
                                               const fs::path& input_dir) {
  const OrtApi& api = t.library->api();
  ort::Handle<OrtSessionOptions> so(api.ReleaseSessionOptions);
  ort::check_build(api, api.CreateSessionOptions(so.out()), "ONNX Runtime's session options");
  for (const auto& [key, value] : o.session_options)
    ort::check(api, api.AddSessionConfigEntry(so.get(), key.c_str(), value.c_str()),
               file_error(o.target.origin, "[compile] session_options: \"" + key + "\""));
  if (!input_dir.empty())
    ort::check_build(api,
                     api.AddSessionConfigEntry(so.get(), "session.model_external_initializers_file_folder_path",
                                               to_utf8(input_dir).c_str()),
                     "the input's external data folder");
  std::vector<const char*> keys, values;
  for (const auto& [key, value] : o.provider_options) {
    keys.push_back(key.c_str());
    values.push_back(value.c_str());
  }
  ort::check(api,
             api.SessionOptionsAppendExecutionProvider_V2(so.get(), t.library->env(), &t.device, 1, keys.data(),
                                                          values.data(), keys.size()),
             file_error(o.target.origin, "[compile] provider_options for " + t.ep_name));
  return so;
}

// The model as bytes, its external data inline, not by path: ORT names
// the partitions it hands an EP after a hash of the path a model was
// loaded from (or of the folder its external data is read from), else of
// the graph's value names, and EPs carry those names into their blobs; a
// path would make the output depend on where the project lies. Only a
// model over 2 GiB with its data is read from its folder.
struct InputModel {
  explicit InputModel(const fs::path& input, const OrtBackendOptions& o)
      : source(model::load_model(input)),
        huge(model::inline_size(source) >= static_cast<std::uint64_t>(INT32_MAX)),
        bytes(huge ? std::string() : model::serialize_inline(source)),
        mapped(huge ? MappedFile::open(input) : nullptr) {
    if (huge)
      say(o, "compile: " + to_utf8(input.filename()) +
                 " exceeds 2 GiB with its data inline: ONNX Runtime reads its data from its folder, which it names "
                 "partitions after");
  }
  const void* data() const { return huge ? static_cast<const void*>(mapped->data()) : bytes.data(); }
  std::size_t size() const { return huge ? static_cast<std::size_t>(mapped->size()) : bytes.size(); }

  const model::Model source;
  const bool huge;
  const std::string bytes;
  const std::shared_ptr<const MappedFile> mapped;
};

// ORT's compilation options: the input, the staged output, the embed mode
// and, for a model at or over the threshold, the sidecar that keeps the
// weights left outside the blobs (named as every stage names it; ORT places
// it next to the output model).
ort::Handle<OrtModelCompilationOptions> compilation_options(const OrtTarget& t, const OrtBackendOptions& o,
                                                            const fs::path& input, const InputModel& model,
                                                            const fs::path& staged, bool external) {
  const ort::Library& lib = *t.library;
  const OrtApi& api = lib.api();
  const OrtCompileApi& compile = lib.compile_api();
  auto so = session_options(t, o, model.huge ? fs::absolute(input).parent_path() : fs::path());
  ort::Handle<OrtModelCompilationOptions> co(compile.ReleaseModelCompilationOptions);
  ort::check_build(api, compile.CreateModelCompilationOptionsFromSessionOptions(lib.env(), so.get(), co.out()),
                   "ONNX Runtime's compilation options");
  ort::check_build(api, compile.ModelCompilationOptions_SetInputModelFromBuffer(co.get(), model.data(), model.size()),
                   to_utf8(input));
  ort::check_build(api, compile.ModelCompilationOptions_SetOutputModelPath(co.get(), staged.c_str()), to_utf8(staged));
  ort::check_build(api, compile.ModelCompilationOptions_SetEpContextEmbedMode(co.get(), o.embed), "embed mode");
  if (external)
    ort::check_build(
        api,
        compile.ModelCompilationOptions_SetOutputModelExternalInitializersFile(
            co.get(), from_utf8(model::data_file_name(staged)).c_str(), model::SaveOptions{}.min_external_tensor_bytes),
        "external initializers file");
  return co;
}

// Compiles, with ORT's log in the stage's, and says how long it took.
void compile_in_ort(const OrtTarget& t, const OrtBackendOptions& o, OrtModelCompilationOptions* co,
                    const fs::path& input) {
  const ort::Library& lib = *t.library;
  const auto start = std::chrono::steady_clock::now();
  {
    ort::LogScope log([&](const std::string& line) { say(o, line); });
    ort::check(lib.api(), lib.compile_api().CompileModel(lib.env(), co),
               file_error(to_utf8(input), "ONNX Runtime " + lib.version() + " could not compile it with " + t.ep_name));
  }
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.3f",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  say(o, std::string("compile: ONNX Runtime compiled in ") + seconds + " s");
}

// What ORT wrote: its EPContext nodes (verified) and the nodes it left to
// other EPs. BuildError when it compiled nothing, or with another EP.
struct Compiled {
  std::map<std::string, int> left;
  nlohmann::json epcontext_nodes;
};

Compiled check_compiled(const OrtTarget& t, const fs::path& input, const fs::path& staged) {
  const std::string& version = t.library->version();
  if (!fs::exists(staged))
    throw BuildError(file_error(
        to_utf8(input), "ONNX Runtime " + version + " reported success but wrote no " + to_utf8(staged.filename())));
  Compiled c;
  const model::Model compiled = model::load_model(staged);
  const std::vector<model::EpContextNode> contexts = model::find_ep_contexts(compiled.proto, compiled.dir());
  c.left = nodes_left(compiled);
  if (contexts.empty())
    throw BuildError(file_error(
        to_utf8(input), t.ep_name + " compiled no node of the model (through ONNX Runtime " + version + "): it left " +
                            describe(c.left) + ". Choose an EP that supports these operators, or compile = false"));
  c.epcontext_nodes = verify_epcontext_model(compiled);
  for (const auto& n : contexts)
    if (!n.source.empty() && n.source != t.ep_name)
      throw BuildError(file_error(to_utf8(input), "EPContext node '" + n.node_name + "' was compiled by " + n.source +
                                                      ", not by the EP asked for (" + t.ep_name + ")"));
  return c;
}

nlohmann::json metrics_of(const OrtTarget& t, const OrtBackendOptions& o, const PlacedModel& placed,
                          const std::map<std::string, int>& left) {
  nlohmann::json metrics;
  metrics["backend"] = "ort";
  metrics["onnxruntime"] = {{"version", t.library->version()}, {"api", t.library->api_version()}};
  metrics["execution_provider"] = {
      {"name", t.ep_name}, {"vendor", t.ep_vendor}, {"version", t.ep_version}, {"hardware", t.hardware}};
  if (!t.driver_version.empty()) metrics["execution_provider"]["driver_version"] = t.driver_version;
  metrics["embed"] = o.embed;
  metrics["epcontext_nodes"] = placed.epcontext_nodes;
  metrics["blobs"] = placed.blobs;
  metrics["nodes_not_compiled"] = nlohmann::json(left);
  if (!placed.discarded.empty()) metrics["discarded_files"] = placed.discarded;
  return metrics;
}

}  // namespace

nlohmann::json compile_ort(const fs::path& input, const fs::path& out, const OrtBackendOptions& o) {
  const OrtTarget& t = find_ort_target(o.target);
  ScratchDir scratch(out);
  const fs::path staged = scratch.path() / out.filename();
  Compiled compiled;
  {
    const InputModel model(input, o);
    const bool external = model::inline_size(model.source) >= o.external_data_threshold;
    auto co = compilation_options(t, o, input, model, staged, external);
    say(o, "compile: ONNX Runtime " + t.library->version() + " (" + to_utf8(t.library->path()) + "), " + t.ep_name +
               " " + t.ep_version + " from " + t.ep_vendor + " on " + t.hardware +
               ", embed = " + (o.embed ? "true" : "false") +
               (external ? ", initializers outside the blobs in " + model::data_file_name(staged) : ""));
    compile_in_ort(t, o, co.get(), input);
  }
  compiled = check_compiled(t, input, staged);
  if (!compiled.left.empty()) say(o, "compile: left to ONNX Runtime's other EPs: " + describe(compiled.left));
  const PlacedModel placed = place_compiled_model(scratch.path(), staged, out, compiled.epcontext_nodes);
  return metrics_of(t, o, placed, compiled.left);
}

nlohmann::json compile_with_ort(const BackendCall& call) {
  const CompileOptions& o = call.options;
  OrtBackendOptions oo;
  oo.target = ort_target_spec(o, call.ep_table);
  oo.embed = o.embed;
  oo.provider_options = o.provider_options;
  oo.session_options = o.session_options;
  oo.external_data_threshold = o.external_data_threshold;
  oo.log = o.log;
  call.in = model::Model();  // ORT reads the file itself
  nlohmann::json metrics = compile_ort(call.input, call.output, oo);
  for (const auto& b : metrics["blobs"])
    say(o, "compile: blob " + b["file"].get<std::string>() + " (" + std::to_string(b["bytes"].get<std::uint64_t>()) +
               " bytes)");
  return metrics;
}

}  // namespace winml::compile
