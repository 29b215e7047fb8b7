#include "quant/calibration/samples.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include "base/error.h"
#include "base/half.h"
#include "base/path_text.h"
#include "model/input_dims.h"
#include "model/tensor_data.h"
#include "quant/calibration/index_inputs.h"
#include "quant/calibration/random.h"

namespace winml::quant {

namespace fs = std::filesystem;

std::vector<InputSpec> model_inputs(const onnx::ModelProto& m, const std::map<std::string, std::int64_t>& dims,
                                    bool resolve) {
  std::set<std::string> inits;
  for (const auto& t : m.graph().initializer()) inits.insert(t.name());
  const std::map<std::string, std::int64_t> rows = index_input_rows(m.graph());
  std::vector<InputSpec> r;
  for (const auto& in : m.graph().input()) {
    if (inits.count(in.name())) continue;
    InputSpec s;
    s.name = in.name();
    if (auto it = rows.find(in.name()); it != rows.end()) s.index_rows = it->second;
    const auto& tt = in.type().tensor_type();
    s.dtype = tt.elem_type();
    for (int i = 0; i < tt.shape().dim_size(); ++i)
      s.shape.push_back(model::input_dim(in, static_cast<std::size_t>(i), dims).value_or(resolve ? 1 : -1));
    r.push_back(std::move(s));
  }
  return r;
}

std::string sample_file_stem(const std::string& input_name) {
  std::string s = input_name;
  for (auto& c : s)
    if (c == '/' || c == '\\') c = '_';
  return s;
}

std::vector<fs::path> calibration_sample_dirs(const fs::path& dir, std::int64_t samples) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError(file_error(to_utf8(dir), "calibration data directory does not exist"));
  std::vector<fs::path> subdirs;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory()) subdirs.push_back(e.path());
  std::sort(subdirs.begin(), subdirs.end());
  if (subdirs.empty())
    throw InputError(file_error(to_utf8(dir),
                                "calibration data directory has no sample subdirectories (one per "
                                "sample, each with <input>.npy or <input>.pb)"));
  if (samples > 0 && subdirs.size() > static_cast<std::size_t>(samples))
    subdirs.resize(static_cast<std::size_t>(samples));
  return subdirs;
}

std::vector<fs::path> calibration_files(const fs::path& dir, std::int64_t samples) {
  std::vector<fs::path> files;
  for (const auto& d : calibration_sample_dirs(dir, samples)) {
    std::vector<fs::path> here;
    for (const auto& e : fs::directory_iterator(d))
      if (e.is_regular_file() && (e.path().extension() == ".npy" || e.path().extension() == ".pb"))
        here.push_back(e.path());
    std::sort(here.begin(), here.end());
    files.insert(files.end(), here.begin(), here.end());
  }
  return files;
}

namespace {

std::string shape_text(const std::vector<std::int64_t>& s) {
  std::string t = "[";
  for (std::size_t i = 0; i < s.size(); ++i)
    t += (i ? ", " : "") + (s[i] < 0 ? std::string("?") : std::to_string(s[i]));
  return t + "]";
}

class DirectorySamples : public SampleSource {
 public:
  DirectorySamples(fs::path dir, std::int64_t samples, std::vector<InputSpec> inputs)
      : dir_(std::move(dir)), inputs_(std::move(inputs)) {
    subdirs_ = calibration_sample_dirs(dir_, samples);
    // Check every sample's file names up front (cheap), contents as they are read.
    for (const auto& d : subdirs_) files_of(d);
  }
  std::size_t size() const override { return subdirs_.size(); }
  std::string describe() const override { return to_utf8(dir_); }

  std::map<std::string, model::TensorFile> sample(std::size_t i) const override {
    std::map<std::string, model::TensorFile> feeds;
    for (const auto& file : files_of(subdirs_.at(i))) {
      const std::string& name = file.first;  // (clang 14 cannot capture a structured binding)
      const fs::path& path = file.second;
      model::TensorFile t = model::read_tensor_file(path);
      const InputSpec& spec =
          *std::find_if(inputs_.begin(), inputs_.end(), [&](const InputSpec& s) { return s.name == name; });
      if (t.dtype != spec.dtype)
        throw InputError(file_error(to_utf8(path), "holds " + model::data_type_name(t.dtype) + " but model input '" +
                                                       name + "' is " + model::data_type_name(spec.dtype)));
      bool fits = t.shape.size() == spec.shape.size();
      for (std::size_t k = 0; fits && k < t.shape.size(); ++k) fits = spec.shape[k] < 0 || spec.shape[k] == t.shape[k];
      if (!fits)
        throw InputError(file_error(to_utf8(path), "has shape " + shape_text(t.shape) + " but model input '" + name +
                                                       "' is " + shape_text(spec.shape)));
      feeds.emplace(name, std::move(t));
    }
    return feeds;
  }

 private:
  std::map<std::string, fs::path> files_of(const fs::path& d) const {
    std::map<std::string, std::string> stem_to_input;
    for (const auto& in : inputs_) stem_to_input[sample_file_stem(in.name)] = in.name;
    std::map<std::string, fs::path> found;
    for (const auto& e : fs::directory_iterator(d)) {
      if (!e.is_regular_file()) continue;
      auto ext = e.path().extension();
      if (ext != ".npy" && ext != ".pb") continue;
      auto it = stem_to_input.find(to_utf8(e.path().stem()));
      if (it == stem_to_input.end())
        throw InputError(file_error(to_utf8(e.path()), "does not name a model input (inputs: " + input_list() + ")"));
      if (found.count(it->second))
        throw InputError(file_error(to_utf8(e.path()), "input '" + it->second + "' is given twice (.npy and .pb)"));
      found[it->second] = e.path();
    }
    for (const auto& in : inputs_)
      if (!found.count(in.name))
        throw InputError(file_error(to_utf8(d), "calibration sample has no " + sample_file_stem(in.name) + ".npy or " +
                                                    sample_file_stem(in.name) + ".pb for model input '" + in.name +
                                                    "'"));
    return found;
  }

  std::string input_list() const {
    std::string s;
    for (const auto& in : inputs_) s += (s.empty() ? "" : ", ") + in.name;
    return s;
  }

  fs::path dir_;
  std::vector<InputSpec> inputs_;
  std::vector<fs::path> subdirs_;
};

template <typename T>
void put(std::vector<std::byte>& out, std::size_t i, T v) {
  std::memcpy(out.data() + i * sizeof(T), &v, sizeof(T));
}

template <typename T>
T clamp_int(double v) {
  double lo = static_cast<double>(std::numeric_limits<T>::lowest()),
         hi = static_cast<double>(std::numeric_limits<T>::max());
  return static_cast<T>(std::clamp(v, lo, hi));
}

// A row of a table of `rows` from a uniform draw in [0, 1).
double index_value(double uniform, std::int64_t rows) {
  return std::min(std::floor(uniform * static_cast<double>(rows)), static_cast<double>(rows - 1));
}

class GeneratedSamples : public SampleSource {
 public:
  GeneratedSamples(std::int64_t samples, std::vector<InputSpec> inputs, GeneratorSpec spec)
      : count_(static_cast<std::size_t>(samples)), inputs_(std::move(inputs)), spec_(std::move(spec)) {
    for (const auto& in : inputs_) {
      if (model::element_size(in.dtype) == 0 || in.dtype == onnx::TensorProto::BFLOAT16 ||
          in.dtype == onnx::TensorProto::COMPLEX64 || in.dtype == onnx::TensorProto::COMPLEX128 ||
          in.dtype == onnx::TensorProto::UINT32 || in.dtype == onnx::TensorProto::UINT64 || in.dtype > 16)
        throw InputError("cannot generate calibration data for input '" + in.name + "' of type " +
                         model::data_type_name(in.dtype) + "; provide calibration_data instead");
    }
  }
  std::size_t size() const override { return count_; }
  std::string describe() const override {
    return "generated (" + spec_.distribution + ", seed " + std::to_string(spec_.seed) + ")";
  }

  std::map<std::string, model::TensorFile> sample(std::size_t index) const override {
    // Each sample has its own stream: sample i never depends on how many came before.
    Rng rng(spec_.seed * 0x100000001b3ull + index + 1);
    std::map<std::string, model::TensorFile> feeds;
    for (const auto& in : inputs_) {
      model::TensorFile t;
      t.dtype = in.dtype;
      t.shape = in.shape;
      for (auto& d : t.shape) d = std::max<std::int64_t>(d, 1);
      auto n = static_cast<std::size_t>(t.element_count());
      t.data.resize(n * model::element_size(t.dtype));
      bool normal = spec_.distribution == "normal";
      // Booleans draw a uniform value after each normal one; other types
      // draw only the normals, which come faster as one batch.
      const bool batched = normal && t.dtype != onnx::TensorProto::BOOL;
      std::vector<double> normals(batched ? n : 0);
      rng.normals(normals.data(), normals.size());
      if (batched && t.dtype == onnx::TensorProto::FLOAT) {  // the common case, as one vector loop
        std::vector<float> values(n);
        for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<float>(spec_.a + spec_.b * normals[i]);
        std::memcpy(t.data.data(), values.data(), n * sizeof(float));
        feeds.emplace(in.name, std::move(t));
        continue;
      }
      for (std::size_t i = 0; i < n; ++i) {
        double real = !normal ? spec_.a + (spec_.b - spec_.a) * rng.uniform()
                              : spec_.a + spec_.b * (batched ? normals[i] : rng.normal());
        // Uniform samples draw their integer value whatever the type (the
        // stream does not depend on it); normal ones round the real value.
        // An index is drawn uniformly over its table's rows in either.
        const double drawn =
            in.index_rows > 0 ? index_value(rng.uniform(), in.index_rows)
            : normal          ? 0.0
                     : std::min(std::floor(spec_.a + (spec_.b - spec_.a + 1.0) * rng.uniform()), std::floor(spec_.b));
        auto integer = [&] { return normal && in.index_rows == 0 ? std::nearbyint(real) : drawn; };
        using T = onnx::TensorProto;
        switch (t.dtype) {
          case T::FLOAT: put(t.data, i, static_cast<float>(real)); break;
          case T::DOUBLE: put(t.data, i, real); break;
          case T::FLOAT16: put(t.data, i, float_to_half(static_cast<float>(real))); break;
          case T::BOOL: put(t.data, i, static_cast<std::uint8_t>(rng.uniform() < 0.5)); break;
          case T::INT8: put(t.data, i, clamp_int<std::int8_t>(integer())); break;
          case T::UINT8: put(t.data, i, clamp_int<std::uint8_t>(integer())); break;
          case T::INT16: put(t.data, i, clamp_int<std::int16_t>(integer())); break;
          case T::UINT16: put(t.data, i, clamp_int<std::uint16_t>(integer())); break;
          case T::INT32: put(t.data, i, clamp_int<std::int32_t>(integer())); break;
          case T::INT64: put(t.data, i, clamp_int<std::int64_t>(integer())); break;
          default: break;
        }
      }
      feeds.emplace(in.name, std::move(t));
    }
    return feeds;
  }

 private:
  std::size_t count_;
  std::vector<InputSpec> inputs_;
  GeneratorSpec spec_;
};

}  // namespace

std::unique_ptr<SampleSource> directory_samples(const fs::path& dir, std::int64_t samples,
                                                std::vector<InputSpec> inputs) {
  return std::make_unique<DirectorySamples>(dir, samples, std::move(inputs));
}

std::unique_ptr<SampleSource> generated_samples(std::int64_t samples, std::vector<InputSpec> inputs,
                                                const GeneratorSpec& spec) {
  return std::make_unique<GeneratedSamples>(samples, std::move(inputs), spec);
}

}  // namespace winml::quant
