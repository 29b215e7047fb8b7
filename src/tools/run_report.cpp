#include "tools/run_report.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "base/error.h"
#include "base/text.h"
#include "base/this_process.h"
#include "model/tensor_file.h"
#include "runtime/tensor_stats.h"
#include "base/path_text.h"

namespace winml::tools {

namespace {

std::string shape_text(const runtime::Shape& s) {
  std::string r = "[";
  for (std::size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace

std::pair<std::string, std::string> split_assignment(const std::string& s, const char* what) {
  auto eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
    throw InputError(std::string(what) + " '" + s + "' must look like NAME=VALUE");
  return {s.substr(0, eq), s.substr(eq + 1)};
}

int print_run_report(const RunOptions& o, RunResult r) {
  const std::vector<double>& times = r.times;
  if (!o.output_dir.empty()) {
    for (const auto& [name, t] : r.outputs) {
      std::string file = name;
      std::replace(file.begin(), file.end(), '/', '_');
      model::write_npy(from_utf8(o.output_dir) / (file + ".npy"), runtime::to_tensor_file(t));
    }
  }
  const auto rss = static_cast<std::int64_t>(peak_resident_bytes());

  nlohmann::json report;
  report["model"] = o.model;
  for (const auto& [k, v] : r.header.items()) report[k] = v;
  report["outputs"] = nlohmann::json::array();
  for (const auto& [name, t] : r.outputs) {
    auto s = runtime::tensor_stats(t);
    report["outputs"].push_back({{"name", name},
                                 {"dtype", runtime::dtype_name(t.dtype())},
                                 {"shape", t.shape()},
                                 {"min", s.min},
                                 {"max", s.max},
                                 {"mean", s.mean},
                                 {"nan", s.nan},
                                 {"inf", s.inf}});
  }
  report["first_run_ms"] = r.first_ms;
  if (!times.empty()) {
    report["repeat"] = o.repeat;
    report["median_ms"] = median(times);
    report["min_ms"] = *std::min_element(times.begin(), times.end());
  }
  report["peak_rss_bytes"] = rss;
  if (r.profile.is_object())
    for (const auto& [k, v] : r.profile.items()) report[k] = v;

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
  if (!times.empty() && report.contains("runtime"))
    std::printf("latency: median %.2f ms over %s (min %.2f ms), %s with %s\n", report["median_ms"].get<double>(),
                count_of(o.repeat, "run").c_str(), report["min_ms"].get<double>(), report["runtime"].get<std::string>().c_str(),
                report["execution_provider"].get<std::string>().c_str());
  else if (!times.empty())
    std::printf("latency: median %.2f ms over %s (min %.2f ms), %s, %s\n", report["median_ms"].get<double>(),
                count_of(o.repeat, "run").c_str(), report["min_ms"].get<double>(),
                count_of(report["threads"].get<int>(), "thread").c_str(), report["isa"].get<std::string>().c_str());
  std::printf("peak RSS: %.1f MiB\n", static_cast<double>(rss) / (1024.0 * 1024.0));
  if (report.contains("profile_ms_per_run")) {
    std::vector<std::pair<double, std::string>> rows;
    for (const auto& [op, e] : report["profile_ms_per_run"].items()) rows.emplace_back(e["ms"].get<double>(), op);
    std::sort(rows.rbegin(), rows.rend());
    std::printf("time per run by op type:\n");
    for (const auto& [ms, op] : rows)
      std::printf("  %-24s %9.2f ms  (%s)\n", op.c_str(), ms,
                  count_of(report["profile_ms_per_run"][op]["nodes"].get<int>(), "node").c_str());
    std::printf("slowest nodes:\n");
    for (const auto& n : report["profile_slowest_nodes"])
      std::printf("  %-40s %-16s %9.2f ms\n", n["node"].get<std::string>().c_str(),
                  n["op_type"].get<std::string>().c_str(), n["ms"].get<double>());
  }
  return 0;
}

}  // namespace winml::tools
