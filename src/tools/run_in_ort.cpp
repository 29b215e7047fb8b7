#include <chrono>
#include <filesystem>
#include <optional>

#include "base/error.h"
#include "compile/ort_run.h"
#include "compile/ort_target.h"
#include "ep/ep_table.h"
#include "model/model_io.h"
#include "model/tensor_file.h"
#include "tools/compiled_for_ep.h"
#include "tools/dim_flags.h"
#include "tools/run_report.h"

namespace winml::tools {

namespace {

std::map<std::string, std::string> parse_provider_options(const std::vector<std::string>& flags) {
  std::map<std::string, std::string> out;
  for (const auto& f : flags) out.insert(split_assignment(f, "--provider-option"));
  return out;
}

}  // namespace

// --runtime ort: ORT's CPU EP, or the EP named (built into ORT or from
// --ep-library) with ORT's CPU EP taking the nodes it leaves.
int run_in_ort(const RunOptions& o) {
  if (o.profile) throw InputError("--profile times the steps of winml-make's runtime; not with --runtime ort");
  compile::OrtTargetSpec spec;
  spec.origin = "the command line";
  spec.settings = {.ort_library = "--ort-library",
                   .ep_library = "--ep-library",
                   .device = "--device",
                   .command = "",
                   .relative_to = "the working directory",
                   .needs = "run --runtime ort loads ONNX Runtime",
                   .without = "run without --runtime ort needs no ONNX Runtime"};
  ort::SessionSettings settings;
  settings.threads = o.threads;
  const ort::Library* library = nullptr;
  std::string ep_name;
  if (!o.ep.empty()) {
    const ep::EpTable ep = ep::load_ep_table(o.ep);
    spec.ep = ep.name;
    spec.ep_name = ep.ep_type;
    compile::set_libraries(spec, o.ort_library, o.ep_library, std::filesystem::current_path());
    spec.device = o.device.empty() ? ep.default_device : o.device;
    const compile::OrtTarget& t = compile::find_ort_target(spec);
    settings = compile::ort_session_settings(t, parse_provider_options(o.provider_options), o.threads);
    library = t.library;
    ep_name = t.ep_name;
  } else {
    if (!o.ep_library.empty() || !o.device.empty() || !o.provider_options.empty())
      throw InputError("--ep-library, --device and --provider-option choose the EP of --ep: give --ep");
    compile::set_libraries(spec, o.ort_library, "", std::filesystem::current_path());
    library = &compile::load_ort_library(spec);
    ep_name = "CPUExecutionProvider";
  }
  model::Model m = model::load_model(o.model);
  std::map<std::string, model::TensorFile> given;
  for (const auto& spec_text : o.inputs) {
    auto [name, file] = split_assignment(spec_text, "--input");
    given[name] = model::read_tensor_file(file);
  }
  const auto feeds = compile::ort_feeds(m.proto.graph(), given, parse_dim_flags(o.dims),
                                        o.random ? runtime::Fill::kRandom : runtime::Fill::kOnes, o.seed);
  std::optional<ort::Session> loaded;
  try {
    loaded.emplace(*library, o.model, settings);
  } catch (const InputError& e) {
    // ORT's refusal of EPContext nodes names neither the EP they need nor the flag.
    const std::string fix = compiled_for_other_ep(m.proto, ep_name);
    if (fix.empty()) throw;
    std::string said = e.what();
    if (said.starts_with(o.model + ": ")) said.erase(0, o.model.size() + 2);
    throw InputError(file_error(o.model, fix + ". " + said));
  }
  const ort::Session& session = *loaded;

  RunResult r;
  auto t0 = std::chrono::steady_clock::now();
  auto outputs = session.run(feeds);
  r.first_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  for (int i = 0; i < o.repeat; ++i) {
    auto s = std::chrono::steady_clock::now();
    outputs = session.run(feeds);
    r.times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s).count());
  }
  for (const auto& info : session.outputs())
    r.outputs.emplace_back(info.name, runtime::from_tensor_file(compile::from_ort(outputs.at(info.name))));
  r.header["runtime"] = "onnxruntime " + library->version();
  r.header["execution_provider"] = ep_name;
  return print_run_report(o, std::move(r));
}

}  // namespace winml::tools
