// winml-make run -m MODEL [--input NAME=FILE ...] [--ones | --random [--seed N]] [--dim NAME=VALUE ...]
//                [--threads N] [--repeat N [--profile]] [--output-dir DIR] [--json]
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
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

namespace winml::cli {

namespace {

// How many nodes `--profile` lists by time.
constexpr std::size_t kSlowestNodes = 60;

struct Options {
  std::string model;
  std::vector<std::string> inputs, dims;
  bool ones = false, random = false, json = false, profile = false;
  std::uint64_t seed = 0;
  int threads = 0, repeat = 0;
  std::string output_dir;
};

std::pair<std::string, std::string> split_assignment(const std::string& s, const char* what) {
  auto eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
    throw InputError(std::string(what) + " '" + s + "' must look like NAME=VALUE");
  return {s.substr(0, eq), s.substr(eq + 1)};
}

std::string shape_text(const runtime::Shape& s) {
  std::string r = "[";
  for (std::size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

// A step's op type as the profile shows it: a Conv with a Relu folded in
// is "Conv+Relu", so the Relu's time is not missing from the table.
std::string profiled_op(const runtime::Step& step) { return step.relu_output ? step.op_type + "+Relu" : step.op_type; }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

int run(const Options& o) {
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

  auto t0 = std::chrono::steady_clock::now();
  auto outputs = session.run(feeds);
  double first_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::vector<double> times;
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
  if (!o.output_dir.empty()) {
    for (const auto& [name, t] : outputs) {
      std::string file = name;
      std::replace(file.begin(), file.end(), '/', '_');
      model::write_npy(std::filesystem::path(o.output_dir) / (file + ".npy"), runtime::to_tensor_file(t));
    }
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::int64_t rss = static_cast<std::int64_t>(usage.ru_maxrss) * 1024;

  nlohmann::json report;
  report["model"] = o.model;
  report["threads"] = session.threads();
  report["isa"] = runtime::gemm_isa();
  report["outputs"] = nlohmann::json::array();
  for (const auto& info : session.outputs()) {
    const runtime::Tensor& t = outputs.at(info.name);
    auto s = runtime::tensor_stats(t);
    report["outputs"].push_back({{"name", info.name},
                                 {"dtype", runtime::dtype_name(t.dtype())},
                                 {"shape", t.shape()},
                                 {"min", s.min},
                                 {"max", s.max},
                                 {"mean", s.mean},
                                 {"nan", s.nan},
                                 {"inf", s.inf}});
  }
  report["first_run_ms"] = first_ms;
  if (!times.empty()) {
    report["repeat"] = o.repeat;
    report["median_ms"] = median(times);
    report["min_ms"] = *std::min_element(times.begin(), times.end());
  }
  report["peak_rss_bytes"] = rss;
  if (o.profile && o.repeat > 0) {
    nlohmann::json ops = nlohmann::json::object();
    for (const auto& [op, e] : op_ms) ops[op] = {{"ms", e.first / o.repeat}, {"nodes", e.second}};
    report["profile_ms_per_run"] = ops;
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
    report["profile_slowest_nodes"] = slowest;
  }

  if (o.json) {
    std::cout << report.dump(2) << "\n";
    return 0;
  }
  for (const auto& out : report["outputs"]) {
    std::printf("%s: %s%s  min %.6g  max %.6g  mean %.6g  nan %lld  inf %lld\n", out["name"].get<std::string>().c_str(),
                out["dtype"].get<std::string>().c_str(), shape_text(out["shape"].get<runtime::Shape>()).c_str(),
                out["min"].get<double>(), out["max"].get<double>(), out["mean"].get<double>(),
                out["nan"].get<long long>(), out["inf"].get<long long>());
  }
  if (!times.empty())
    std::printf("latency: median %.2f ms over %d runs (min %.2f ms), %d threads, %s\n",
                report["median_ms"].get<double>(), o.repeat, report["min_ms"].get<double>(), session.threads(),
                runtime::gemm_isa());
  std::printf("peak RSS: %.1f MiB\n", static_cast<double>(rss) / (1024.0 * 1024.0));
  if (report.contains("profile_ms_per_run")) {
    std::vector<std::pair<double, std::string>> rows;
    for (const auto& [op, e] : report["profile_ms_per_run"].items()) rows.emplace_back(e["ms"].get<double>(), op);
    std::sort(rows.rbegin(), rows.rend());
    std::printf("time per run by op type:\n");
    for (const auto& [ms, op] : rows)
      std::printf("  %-24s %9.2f ms  (%d nodes)\n", op.c_str(), ms,
                  report["profile_ms_per_run"][op]["nodes"].get<int>());
    std::printf("slowest nodes:\n");
    for (const auto& n : report["profile_slowest_nodes"])
      std::printf("  %-40s %-16s %9.2f ms\n", n["node"].get<std::string>().c_str(),
                  n["op_type"].get<std::string>().c_str(), n["ms"].get<double>());
  }
  return 0;
}

}  // namespace

Command add_run_command(CLI::App& app) {
  auto opts = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand("run", "Run a model on the CPU runtime and summarize its outputs");
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
  return {sub, [opts](const Context&) { return run(*opts); }};
}

}  // namespace winml::cli
