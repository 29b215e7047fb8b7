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

}  // namespace

nlohmann::json compile_ort(const fs::path& input, const fs::path& out, const OrtBackendOptions& o) {
  const OrtTarget& t = find_ort_target(o.target);
  const ort::Library& lib = *t.library;
  const OrtApi& api = lib.api();
  const OrtCompileApi& compile = lib.compile_api();
  ScratchDir scratch(out);
  const fs::path staged = scratch.path() / out.filename();

  // The model as bytes, its external data inline, not by path: ORT names
  // the partitions it hands an EP after a hash of the path a model was
  // loaded from (or of the folder its external data is read from), else of
  // the graph's value names, and EPs carry those names into their blobs; a
  // path would make the output depend on where the project lies. Only a
  // model over 2 GiB with its data is read from its folder.
  const model::Model source = model::load_model(input);
  const bool huge = model::inline_size(source) >= static_cast<std::uint64_t>(INT32_MAX);
  const std::string bytes = huge ? std::string() : model::serialize_inline(source);
  const auto mapped = huge ? MappedFile::open(input) : nullptr;
  if (huge)
    say(o, "compile: " + to_utf8(input.filename()) +
               " exceeds 2 GiB with its data inline: ONNX Runtime reads its data from its folder, which it names "
               "partitions after");
  auto so = session_options(t, o, huge ? fs::absolute(input).parent_path() : fs::path());
  ort::Handle<OrtModelCompilationOptions> co(compile.ReleaseModelCompilationOptions);
  ort::check_build(api, compile.CreateModelCompilationOptionsFromSessionOptions(lib.env(), so.get(), co.out()),
                   "ONNX Runtime's compilation options");
  ort::check_build(api,
                   huge ? compile.ModelCompilationOptions_SetInputModelFromBuffer(
                              co.get(), mapped->data(), static_cast<std::size_t>(mapped->size()))
                        : compile.ModelCompilationOptions_SetInputModelFromBuffer(co.get(), bytes.data(), bytes.size()),
                   to_utf8(input));
  ort::check_build(api, compile.ModelCompilationOptions_SetOutputModelPath(co.get(), staged.c_str()), to_utf8(staged));
  ort::check_build(api, compile.ModelCompilationOptions_SetEpContextEmbedMode(co.get(), o.embed), "embed mode");
  // A model at or over the threshold keeps the weights left outside the
  // blobs in its own sidecar, named as every stage names it. ORT places the
  // file next to the output model.
  const bool external = model::inline_size(source) >= o.external_data_threshold;
  const std::string data_file = model::data_file_name(staged);
  if (external)
    ort::check_build(api,
                     compile.ModelCompilationOptions_SetOutputModelExternalInitializersFile(
                         co.get(), from_utf8(data_file).c_str(), model::SaveOptions{}.min_external_tensor_bytes),
                     "external initializers file");

  say(o, "compile: ONNX Runtime " + lib.version() + " (" + to_utf8(lib.path()) + "), " + t.ep_name + " " +
             t.ep_version + " from " + t.ep_vendor + " on " + t.hardware + ", embed = " + (o.embed ? "true" : "false") +
             (external ? ", initializers outside the blobs in " + data_file : ""));
  const auto start = std::chrono::steady_clock::now();
  {
    ort::LogScope log([&](const std::string& line) { say(o, line); });
    ort::check(api, compile.CompileModel(lib.env(), co.get()),
               file_error(to_utf8(input), "ONNX Runtime " + lib.version() + " could not compile it with " + t.ep_name));
  }
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.3f",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  say(o, std::string("compile: ONNX Runtime compiled in ") + seconds + " s");
  if (!fs::exists(staged))
    throw BuildError(file_error(to_utf8(input), "ONNX Runtime " + lib.version() + " reported success but wrote no " +
                                                    to_utf8(staged.filename())));

  std::vector<model::EpContextNode> contexts;
  std::map<std::string, int> left;
  nlohmann::json epcontext_nodes;
  {
    const model::Model compiled = model::load_model(staged);
    contexts = model::find_ep_contexts(compiled.proto, compiled.dir());
    left = nodes_left(compiled);
    if (!contexts.empty()) epcontext_nodes = verify_epcontext_model(compiled);
  }
  if (contexts.empty())
    throw BuildError(
        file_error(to_utf8(input), t.ep_name + " compiled no node of the model (through ONNX Runtime " + lib.version() +
                                       "): it left " + describe(left) +
                                       ". Choose an EP that supports these operators, or compile = false"));
  for (const auto& c : contexts)
    if (!c.source.empty() && c.source != t.ep_name)
      throw BuildError(file_error(to_utf8(input), "EPContext node '" + c.node_name + "' was compiled by " + c.source +
                                                      ", not by the EP asked for (" + t.ep_name + ")"));
  if (!left.empty()) say(o, "compile: left to ONNX Runtime's other EPs: " + describe(left));
  PlacedModel placed = place_compiled_model(scratch.path(), staged, out, epcontext_nodes);

  nlohmann::json metrics;
  metrics["backend"] = "ort";
  metrics["onnxruntime"] = {{"version", lib.version()}, {"api", lib.api_version()}};
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
