#include "ort_ep/harness.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "support/cli_runner.h"
#include "support/temp_dir.h"

namespace winml::test {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path ort_library(OrtVersion v) { return v == OrtVersion::k1_29 ? WINML_ORT_LIBRARY_1_29 : WINML_ORT_LIBRARY_1_30; }
const char* ort_version_name(OrtVersion v) { return v == OrtVersion::k1_29 ? "1.29.0" : "1.30.0"; }
fs::path ref_ep_library() { return WINML_REF_EP_LIBRARY; }

HarnessResult run_harness(const HarnessOptions& o, const std::vector<std::string>& actions,
                          const std::map<std::string, model::TensorFile>& inputs) {
  TempDir scratch;
  std::vector<std::string> argv = {WINML_ORT_HARNESS, "--ort", ort_library(o.ort).string(), "--opt-level",
                                   o.opt_level, "--log-level", o.log_level};
  if (o.plugin) {
    argv.push_back("--plugin");
    argv.push_back(ref_ep_library().string());
  }
  for (const auto& [k, v] : o.provider_options) {
    argv.push_back("--provider-option");
    argv.push_back(k + "=" + v);
  }
  for (const auto& [k, v] : o.dims) {
    argv.push_back("--dim");
    argv.push_back(k + "=" + std::to_string(v));
  }
  int k = 0;
  for (const auto& [name, t] : inputs) {
    const fs::path file = scratch / ("input_" + std::to_string(k++) + ".npy");
    model::write_npy(file, t);
    argv.push_back("--input");
    argv.push_back(name + "=" + file.string());
  }
  argv.insert(argv.end(), actions.begin(), actions.end());
  CliResult r = run_program(argv);
  HarnessResult h;
  h.exit_code = r.exit_code;
  h.err = r.err;
  std::istringstream lines(r.out);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded()) continue;
    if (j.contains("ort_version")) h.ort_version = j["ort_version"];
    else h.reports.push_back(j);
  }
  for (const json& report : h.reports) {
    if (report.value("action", "") != "run") continue;
    std::map<std::string, model::TensorFile> outputs;
    const fs::path dir = report["dir"].get<std::string>();
    for (const json& out : report["outputs"])
      outputs[out["name"]] = model::read_npy(dir / out["file"].get<std::string>());
    h.runs.push_back(std::move(outputs));
  }
  if (!h.runs.empty()) h.outputs = h.runs.back();
  return h;
}

std::vector<std::string> run_action(const fs::path& model, const fs::path& dir) {
  return {"--run", model.string(), dir.string()};
}

HarnessResult compile_with_plugin(const fs::path& in, const fs::path& out, bool embed, const HarnessOptions& options) {
  HarnessOptions o = options;
  o.plugin = true;
  return run_harness(o, {"--embed", embed ? "1" : "0", "--compile", in.string(), out.string()});
}

HarnessResult run_in(const fs::path& model, const HarnessOptions& o,
                     const std::map<std::string, model::TensorFile>& inputs) {
  TempDir outputs;
  HarnessResult r = run_harness(o, {"--run", model.string(), outputs.path().string()}, inputs);
  return r;  // (the outputs were read before the directory goes)
}

double span_relative_diff(const model::TensorFile& got, const model::TensorFile& want) {
  if (got.shape != want.shape || got.dtype != want.dtype) return std::numeric_limits<double>::infinity();
  const std::int64_t n = want.element_count();
  auto at = [](const model::TensorFile& t, std::int64_t i) -> double {
    switch (t.dtype) {
      case onnx::TensorProto::FLOAT: return t.as<float>()[i];
      case onnx::TensorProto::INT64: return static_cast<double>(t.as<std::int64_t>()[i]);
      case onnx::TensorProto::INT32: return t.as<std::int32_t>()[i];
      case onnx::TensorProto::UINT8: return t.as<std::uint8_t>()[i];
      case onnx::TensorProto::INT8: return t.as<std::int8_t>()[i];
      case onnx::TensorProto::UINT16: return t.as<std::uint16_t>()[i];
      case onnx::TensorProto::INT16: return t.as<std::int16_t>()[i];
      case onnx::TensorProto::BOOL: return static_cast<double>(t.as<std::uint8_t>()[i]);
      default: return std::numeric_limits<double>::quiet_NaN();
    }
  };
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, worst = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double w = at(want, i), g = at(got, i);
    if (std::isnan(w) || std::isnan(g)) {
      if (std::isnan(w) != std::isnan(g)) return std::numeric_limits<double>::infinity();
      continue;
    }
    lo = std::min(lo, w);
    hi = std::max(hi, w);
    worst = std::max(worst, std::fabs(g - w));
  }
  const double span = hi > lo ? hi - lo : 1.0;
  return worst / span;
}

}  // namespace winml::test
