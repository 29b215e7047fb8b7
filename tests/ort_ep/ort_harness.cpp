// ort_harness: ONNX Runtime itself, through its C/C++ API, for the tests and
// benchmarks of the plugin EP. It opens a given libonnxruntime (1.29, 1.30,
// ...) with dlopen, optionally registers libwinml_ref_ep.so and appends its
// EP (ORT's CPU EP takes what it leaves), and runs a list of actions in
// order, printing one JSON line per action. It links no part of
// winml-make's runtime: what it reports is ORT's.
//
// usage: ort_harness --ort LIBONNXRUNTIME [--plugin LIB] [options] ACTION...
//   --plugin LIB          register LIB and append its WinmlMakeRefExecutionProvider device
//   --provider-option K=V a provider option of the plugin EP (repeatable)
//   --opt-level L         disabled | basic | extended | all (default: all)
//   --log-level L         ORT's (and the plugin's) log to stderr: verbose | info | warning (default) | error
//   --threads N           ORT's intra-op threads (default: ORT's)
//   --dim NAME=SIZE       a symbolic input dimension for generated inputs (others: 1)
//   --input NAME=FILE     an input from .npy/.pb (others: seeded uniform [-1, 1), integers 0)
//   --seed N              the generated inputs' seed (default 1)
//   --embed 0|1           blobs of later --compile actions inside the model (default 0)
// actions:
//   --compile IN OUT      ORT's compile API (OrtCompileApi) with the session's EPs
//   --run MODEL DIR       a session for MODEL, one run, outputs to DIR/<k>.npy
//   --time MODEL N        N sessions for MODEL, one after another (the first warms the page cache):
//                         wall and process CPU time of each
// Exit 1 with ORT's message when ORT fails, 2 on a usage error.
#define ORT_API_MANUAL_INIT
#include <time.h>
#include <onnxruntime_cxx_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "base/path_text.h"
#include "base/shared_library.h"
#include "model/tensor_file.h"

namespace fs = std::filesystem;
namespace model = winml::model;
using nlohmann::json;

namespace {

constexpr const char* kPluginEp = "WinmlMakeRefExecutionProvider";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Action {
  std::string kind;  // compile | run | time
  std::string model, target;
  bool embed = false;
  int count = 0;
};

struct Options {
  std::string ort, plugin, opt_level = "all";
  OrtLoggingLevel log_level = ORT_LOGGING_LEVEL_WARNING;
  std::vector<std::pair<std::string, std::string>> provider_options;
  int threads = 0;
  std::map<std::string, std::int64_t> dims;
  std::map<std::string, std::string> inputs;
  std::uint32_t seed = 1;
  std::vector<Action> actions;
};

std::pair<std::string, std::string> split_pair(const std::string& s, const char* flag) {
  auto eq = s.find('=');
  if (eq == std::string::npos || eq == 0) throw UsageError(std::string(flag) + " needs NAME=VALUE, got '" + s + "'");
  return {s.substr(0, eq), s.substr(eq + 1)};
}

OrtLoggingLevel log_level_of(const std::string& s) {
  if (s == "verbose") return ORT_LOGGING_LEVEL_VERBOSE;
  if (s == "info") return ORT_LOGGING_LEVEL_INFO;
  if (s == "warning") return ORT_LOGGING_LEVEL_WARNING;
  if (s == "error") return ORT_LOGGING_LEVEL_ERROR;
  throw UsageError("--log-level must be verbose, info, warning or error");
}

Options parse(int argc, char** argv) {
  Options o;
  bool embed = false;
  auto value = [&](int& i) -> std::string {
    if (i + 1 >= argc) throw UsageError(std::string(argv[i]) + " needs a value");
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--ort") o.ort = value(i);
    else if (a == "--plugin") o.plugin = value(i);
    else if (a == "--provider-option") o.provider_options.push_back(split_pair(value(i), "--provider-option"));
    else if (a == "--opt-level") o.opt_level = value(i);
    else if (a == "--log-level") o.log_level = log_level_of(value(i));
    else if (a == "--threads") o.threads = std::stoi(value(i));
    else if (a == "--dim") {
      auto [k, v] = split_pair(value(i), "--dim");
      o.dims[k] = std::stoll(v);
    } else if (a == "--input") {
      auto [k, v] = split_pair(value(i), "--input");
      o.inputs[k] = v;
    } else if (a == "--seed") o.seed = static_cast<std::uint32_t>(std::stoul(value(i)));
    else if (a == "--embed") embed = value(i) == "1";
    else if (a == "--compile" || a == "--run" || a == "--time") {
      Action act;
      act.kind = a.substr(2);
      act.model = value(i);
      act.target = value(i);
      act.embed = embed;
      if (act.kind == "time") act.count = std::stoi(act.target);
      o.actions.push_back(act);
    } else {
      throw UsageError("unknown argument '" + a + "'");
    }
  }
  if (o.ort.empty()) throw UsageError("--ort LIBONNXRUNTIME is required");
  if (o.actions.empty()) throw UsageError("no action (--compile, --run or --time)");
  return o;
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// CPU time of the whole process (every thread of ORT's pools): on a shared
// machine a wall time mostly measures the other processes.
double cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

GraphOptimizationLevel level_of(const std::string& s) {
  if (s == "disabled") return ORT_DISABLE_ALL;
  if (s == "basic") return ORT_ENABLE_BASIC;
  if (s == "extended") return ORT_ENABLE_EXTENDED;
  if (s == "all") return ORT_ENABLE_ALL;
  throw UsageError("--opt-level must be disabled, basic, extended or all");
}

// ORT, opened from the file given (its symbols kept to itself: two versions
// could sit side by side).
const OrtApiBase* open_ort(const std::string& path) {
  static std::vector<std::unique_ptr<winml::SharedLibrary>> opened;
  opened.push_back(std::make_unique<winml::SharedLibrary>(std::vector<std::string>{path}));
  using GetApiBase = const OrtApiBase* (*)();
  return opened.back()->function<GetApiBase>("OrtGetApiBase")();
}

// A path as ONNX Runtime takes it (ORTCHAR_T: wide on Windows).
std::basic_string<ORTCHAR_T> ort_path(const std::string& utf8) { return winml::from_utf8(utf8).native(); }

class Harness {
 public:
  explicit Harness(const Options& o) : o_(o), env_(o.log_level, "ort_harness") {
    if (!o_.plugin.empty()) {
      env_.RegisterExecutionProviderLibrary(kPluginEp, fs::absolute(winml::from_utf8(o_.plugin)).native());
      for (const auto& d : env_.GetEpDevices())
        if (std::string(d.EpName()) == kPluginEp) devices_.push_back(d);
      if (devices_.empty()) throw std::runtime_error(o_.plugin + " offers no " + kPluginEp + " device");
    }
  }

  Ort::SessionOptions session_options() {
    Ort::SessionOptions s;
    s.SetGraphOptimizationLevel(level_of(o_.opt_level));
    if (o_.threads > 0) s.SetIntraOpNumThreads(o_.threads);
    if (!devices_.empty()) {
      std::unordered_map<std::string, std::string> options(o_.provider_options.begin(), o_.provider_options.end());
      s.AppendExecutionProvider_V2(env_, devices_, options);
    }
    return s;
  }

  json compile(const Action& a) {
    Ort::SessionOptions s = session_options();
    Ort::ModelCompilationOptions c(env_, s);
    c.SetInputModelPath(ort_path(a.model).c_str());
    c.SetOutputModelPath(ort_path(a.target).c_str());
    c.SetEpContextEmbedMode(a.embed);
    c.SetFlags(OrtCompileApiFlags_ERROR_IF_NO_NODES_COMPILED);
    const double t0 = now_ms();
    Ort::Status status = Ort::CompileModel(env_, c);
    const double ms = now_ms() - t0;
    if (!status.IsOK()) throw std::runtime_error("compile " + a.model + ": " + status.GetErrorMessage());
    return {{"action", "compile"}, {"model", a.model}, {"output", a.target}, {"embed", a.embed}, {"ms", ms}};
  }

  json run(const Action& a) {
    const double t0 = now_ms();
    Ort::Session session(env_, ort_path(a.model).c_str(), session_options());
    const double session_ms = now_ms() - t0;
    Ort::AllocatorWithDefaultOptions allocator;
    std::vector<std::string> input_names, output_names;
    std::vector<Ort::Value> feeds;
    std::vector<model::TensorFile> held;  // the bytes the feeds view
    held.reserve(session.GetInputCount());
    for (std::size_t i = 0; i < session.GetInputCount(); ++i) {
      input_names.push_back(session.GetInputNameAllocated(i, allocator).get());
      held.push_back(input(input_names.back(), session.GetInputTypeInfo(i)));
      feeds.push_back(as_value(held.back()));
    }
    for (std::size_t i = 0; i < session.GetOutputCount(); ++i)
      output_names.push_back(session.GetOutputNameAllocated(i, allocator).get());
    std::vector<const char*> in, out;
    for (const auto& n : input_names) in.push_back(n.c_str());
    for (const auto& n : output_names) out.push_back(n.c_str());
    const double t1 = now_ms();
    std::vector<Ort::Value> results =
        session.Run(Ort::RunOptions{nullptr}, in.data(), feeds.data(), feeds.size(), out.data(), out.size());
    const double run_ms = now_ms() - t1;
    fs::create_directories(a.target);
    json outputs = json::array();
    for (std::size_t k = 0; k < results.size(); ++k) {
      model::TensorFile t = as_file(results[k], output_names[k]);
      const std::string file = std::to_string(k) + ".npy";
      model::write_npy(fs::path(a.target) / file, t);
      outputs.push_back({{"name", output_names[k]}, {"file", file}, {"shape", t.shape}});
    }
    return {{"action", "run"}, {"model", a.model}, {"dir", a.target}, {"session_ms", session_ms}, {"run_ms", run_ms},
            {"outputs", outputs}};
  }

  json time(const Action& a) {
    std::vector<double> ms, cpu;
    for (int i = 0; i < a.count; ++i) {
      const double t0 = now_ms(), c0 = cpu_ms();
      { Ort::Session session(env_, ort_path(a.model).c_str(), session_options()); }
      ms.push_back(now_ms() - t0);
      cpu.push_back(cpu_ms() - c0);
    }
    return {{"action", "time"}, {"model", a.model}, {"session_ms", ms}, {"session_cpu_ms", cpu}};
  }

 private:
  model::TensorFile input(const std::string& name, const Ort::TypeInfo& info) const {
    auto it = o_.inputs.find(name);
    if (it != o_.inputs.end()) return model::read_tensor_file(it->second);
    auto tensor = info.GetTensorTypeAndShapeInfo();
    model::TensorFile t;
    t.dtype = static_cast<std::int32_t>(tensor.GetElementType());
    std::vector<std::int64_t> dims = tensor.GetShape();
    std::vector<const char*> symbols(dims.size(), nullptr);
    tensor.GetSymbolicDimensions(symbols.data(), symbols.size());
    for (std::size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] >= 0) continue;
      auto d = symbols[i] ? o_.dims.find(symbols[i]) : o_.dims.end();
      dims[i] = d != o_.dims.end() ? d->second : 1;
    }
    t.shape = dims;
    std::int64_t n = 1;
    for (auto d : dims) n *= d;
    const std::size_t element = element_size(tensor.GetElementType());
    t.data.assign(static_cast<std::size_t>(n) * element, std::byte{0});
    if (t.dtype == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) {
      std::mt19937 rng(o_.seed + static_cast<std::uint32_t>(std::hash<std::string>{}(name)));
      std::uniform_real_distribution<float> u(-1.0f, 1.0f);
      auto* p = reinterpret_cast<float*>(t.data.data());
      for (std::int64_t i = 0; i < n; ++i) p[i] = u(rng);
    }
    return t;
  }

  static std::size_t element_size(ONNXTensorElementDataType t) {
    switch (t) {
      case ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL:
      case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8:
      case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8: return 1;
      case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16:
      case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16:
      case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16:
      case ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16: return 2;
      case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT:
      case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32:
      case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32: return 4;
      case ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE:
      case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64:
      case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64: return 8;
      default: throw std::runtime_error("tensors of element type " + std::to_string(t) + " are not supported here");
    }
  }

  static Ort::Value as_value(model::TensorFile& t) {
    auto memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
    return Ort::Value::CreateTensor(memory, t.data.data(), t.data.size(), t.shape.data(), t.shape.size(),
                                    static_cast<ONNXTensorElementDataType>(t.dtype));
  }

  static model::TensorFile as_file(const Ort::Value& v, const std::string& name) {
    if (!v.IsTensor()) throw std::runtime_error("output '" + name + "' is not a tensor");
    auto info = v.GetTensorTypeAndShapeInfo();
    model::TensorFile t;
    t.dtype = static_cast<std::int32_t>(info.GetElementType());
    t.shape = info.GetShape();
    const std::size_t bytes = info.GetElementCount() * element_size(info.GetElementType());
    const auto* p = static_cast<const std::byte*>(v.GetTensorRawData());
    t.data.assign(p, p + bytes);
    return t;
  }

  const Options& o_;
  Ort::Env env_;
  std::vector<Ort::ConstEpDevice> devices_;
};

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    o = parse(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ort_harness: %s\n", e.what());
    return 2;
  }
  try {
    const OrtApiBase* base = open_ort(o.ort);
    const OrtApi* api = base->GetApi(ORT_API_VERSION);
    if (!api) throw std::runtime_error(o.ort + " is ONNX Runtime " + base->GetVersionString() +
                                       ", older than the API " + std::to_string(ORT_API_VERSION) + " needed");
    Ort::InitApi(api);
    Harness h(o);
    std::printf("%s\n", json({{"ort_version", base->GetVersionString()}}).dump().c_str());
    for (const Action& a : o.actions) {
      json r = a.kind == "compile" ? h.compile(a) : a.kind == "run" ? h.run(a) : h.time(a);
      std::printf("%s\n", r.dump().c_str());
      std::fflush(stdout);
    }
  } catch (const UsageError& e) {
    std::fprintf(stderr, "ort_harness: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ort_harness: %s\n", e.what());
    return 1;
  }
  return 0;
}
