// winml-make run -m MODEL [--input NAME=FILE ...] [--ones | --random [--seed N]] [--dim NAME=VALUE ...]
//                [--threads N] [--repeat N [--profile]] [--output-dir DIR] [--json]
//                [--runtime ort [--ort-library SO] [--ep EP [--ep-library SO] [--device D]
//                               [--provider-option K=V ...]]]
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <numeric>

#include "base/error.h"
#include "cli/context.h"
#include "model/model_io.h"
#include "model/tensor_file.h"
#include "runtime/gemm.h"
#include "runtime/session.h"
#include "runtime/tensor_stats.h"
#include "tools/commands.h"
#include "tools/dim_flags.h"
#include "tools/run_report.h"

namespace winml::tools {

namespace {

// How many nodes `--profile` lists by time.
constexpr std::size_t kSlowestNodes = 60;

// A step's op type as the profile shows it: a Conv with a Relu folded in
// is "Conv+Relu", so the Relu's time is not missing from the table.
std::string profiled_op(const runtime::Step& step) { return step.relu_output ? step.op_type + "+Relu" : step.op_type; }

int run(const RunOptions& o) {
  if (o.runtime == "ort") return run_in_ort(o);
  if (!o.ort_library.empty() || !o.ep.empty() || !o.ep_library.empty() || !o.device.empty() ||
      !o.provider_options.empty())
    throw InputError("--ort-library, --ep, --ep-library, --device and --provider-option choose how ONNX Runtime runs "
                     "the model: add --runtime ort");
  runtime::SessionOptions so;
  so.threads = o.threads;
  so.dims = parse_dim_flags(o.dims);
  so.observed = std::set<std::string>{};  // (outputs only)
  so.fold_constant_dequantize = true;
  // Embedded blobs are used where they lie in the file, not copied out of it.
  model::Model m = model::load_model(o.model, {.map_blobs = true});
  runtime::Session session(m, so);

  std::map<std::string, runtime::Tensor> feeds;
  for (const auto& spec : o.inputs) {
    auto [name, file] = split_assignment(spec, "--input");
    feeds[name] = runtime::from_tensor_file(model::read_tensor_file(file));
  }
  runtime::Fill fill = o.random ? runtime::Fill::kRandom : runtime::Fill::kOnes;
  std::uint64_t seed = o.seed;
  for (const auto& in : session.inputs()) {
    if (feeds.count(in.name) || in.has_default) continue;
    feeds[in.name] = runtime::filled_tensor(in.dtype ? in.dtype : onnx::TensorProto::FLOAT, in.shape, fill, seed++);
  }

  RunResult r;
  auto t0 = std::chrono::steady_clock::now();
  auto outputs = session.run(feeds);
  r.first_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::vector<double>& times = r.times;
  std::map<std::string, std::pair<double, int>> op_ms;  // per op type: total over timed runs, node count
  std::vector<double> step_ms;                            // per step: total over timed runs
  for (int i = 0; i < o.repeat; ++i) {
    runtime::RunProfile profile;
    auto s = std::chrono::steady_clock::now();
    outputs = session.run(feeds, {}, o.profile ? &profile : nullptr);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s).count());
    step_ms.resize(profile.step_ms.size());
    for (std::size_t k = 0; k < profile.step_ms.size(); ++k) {
      auto& e = op_ms[profiled_op(session.plan().steps[k])];
      e.first += profile.step_ms[k];
      if (i == 0) ++e.second;
      step_ms[k] += profile.step_ms[k];
    }
  }
  for (const auto& info : session.outputs()) r.outputs.emplace_back(info.name, outputs.at(info.name));
  r.header["threads"] = session.threads();
  r.header["isa"] = runtime::gemm_isa();
  if (o.profile && o.repeat > 0) {
    nlohmann::json ops = nlohmann::json::object();
    for (const auto& [op, e] : op_ms) ops[op] = {{"ms", e.first / o.repeat}, {"nodes", e.second}};
    r.profile["profile_ms_per_run"] = ops;
    // The slowest nodes: which layer of an op type costs what.
    std::vector<std::size_t> order(step_ms.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return step_ms[a] > step_ms[b]; });
    nlohmann::json slowest = nlohmann::json::array();
    for (std::size_t k : order) {
      if (slowest.size() == kSlowestNodes) break;
      const auto& step = session.plan().steps[k];
      slowest.push_back({{"node", step.node_name}, {"op_type", profiled_op(step)}, {"ms", step_ms[k] / o.repeat}});
    }
    r.profile["profile_slowest_nodes"] = slowest;
  }
  return print_run_report(o, std::move(r));
}

}  // namespace

cli::Command add_run_command(CLI::App& app) {
  auto opts = std::make_shared<RunOptions>();
  CLI::App* sub = app.add_subcommand("run", "Run a model on the CPU runtime or in ONNX Runtime and summarize its outputs");
  sub->add_option("-m,--model", opts->model, "ONNX model file")->required();
  sub->add_option("--input", opts->inputs, "NAME=FILE (.npy or .pb) for an input; repeatable");
  auto* ones = sub->add_flag("--ones", opts->ones, "Fill inputs not given with ones (the default)");
  auto* random = sub->add_flag("--random", opts->random, "Fill inputs not given with seeded random values");
  ones->excludes(random);
  sub->add_option("--seed", opts->seed, "Seed for --random (default 0)");
  sub->add_option("--dim", opts->dims, "NAME=VALUE for a symbolic input dimension (default 1); repeatable");
  sub->add_option("--threads", opts->threads, "Worker threads (default: one per core)")->check(CLI::NonNegativeNumber);
  sub->add_option("--repeat", opts->repeat, "Time N more runs after the first and report the median")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--output-dir", opts->output_dir, "Write each output to DIR/<name>.npy");
  sub->add_flag("--profile", opts->profile, "With --repeat: report the time spent per op type");
  sub->add_flag("--json", opts->json, "Print JSON instead of text");
  sub->add_option("--runtime", opts->runtime,
                  "winml (winml-make's CPU runtime) or ort (ONNX Runtime, as an application loads the model)")
      ->check(CLI::IsMember({"winml", "ort"}))
      ->capture_default_str();
  sub->add_option("--ort-library", opts->ort_library,
                  "With --runtime ort: the libonnxruntime.so to load (default: ONNX Runtime 1.29.0 from "
                  "scripts/fetch-ort.sh)");
  sub->add_option("--ep", opts->ep,
                  "With --runtime ort: the execution provider (rules/ep/<ep>.toml) for the model, ORT's CPU EP taking "
                  "the nodes it leaves (default: ORT's CPU EP alone)");
  sub->add_option("--ep-library", opts->ep_library, "With --ep: a plugin EP's library that ONNX Runtime registers");
  sub->add_option("--device", opts->device, "With --ep: cpu, gpu or npu (default: the EP's)");
  sub->add_option("--provider-option", opts->provider_options, "With --ep: a provider option, KEY=VALUE (repeatable)")
      ->allow_extra_args(false);
  return {sub, [opts](const cli::Context&) { return run(*opts); }};
}

}  // namespace winml::tools
