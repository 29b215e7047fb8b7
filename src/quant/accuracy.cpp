#include "quant/accuracy.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

#include "base/error.h"
#include "base/half.h"
#include "base/progress.h"
#include "model/tensor_data.h"
#include "quant/sample_workers.h"

namespace winml::quant {

namespace {
template <typename T>
void widen(const model::TensorFile& t, std::vector<double>& out) {
  for (std::size_t i = 0; i < out.size(); ++i) {
    T v;
    std::memcpy(&v, t.data.data() + i * sizeof(T), sizeof(T));
    out[i] = static_cast<double>(v);
  }
}
}  // namespace

std::vector<double> as_doubles(const model::TensorFile& t) {
  std::vector<double> out(static_cast<std::size_t>(t.element_count()));
  using T = onnx::TensorProto;
  switch (t.dtype) {
    case T::FLOAT: widen<float>(t, out); break;
    case T::DOUBLE: widen<double>(t, out); break;
    case T::FLOAT16:
      for (std::size_t i = 0; i < out.size(); ++i) {
        std::uint16_t h;
        std::memcpy(&h, t.data.data() + 2 * i, 2);
        out[i] = half_to_float(h);
      }
      break;
    case T::INT8: widen<std::int8_t>(t, out); break;
    case T::UINT8:
    case T::BOOL: widen<std::uint8_t>(t, out); break;
    case T::INT16: widen<std::int16_t>(t, out); break;
    case T::UINT16: widen<std::uint16_t>(t, out); break;
    case T::INT32: widen<std::int32_t>(t, out); break;
    case T::INT64: widen<std::int64_t>(t, out); break;
    default: throw BuildError("cannot compare outputs of type " + model::data_type_name(t.dtype));
  }
  return out;
}

void AccuracyMeter::add(const std::string& output, const model::TensorFile& reference,
                        const model::TensorFile& candidate) {
  Sums& s = sums_[output];
  if (reference.shape != candidate.shape) {
    ++s.shape_changed;
    return;
  }
  std::vector<double> a = as_doubles(reference), b = as_doubles(candidate);
  if (s.samples == 0) s.first.assign(a.begin(), a.end());
  const bool same_size = s.first.size() == a.size();
  for (std::size_t i = 0; i < a.size(); ++i) {
    s.reference_magnitude = std::max(s.reference_magnitude, std::fabs(a[i]));
    if (same_size) s.reference_spread = std::max(s.reference_spread, std::fabs(a[i] - s.first[i]));
    double d = a[i] - b[i];
    s.signal += a[i] * a[i];
    s.noise += d * d;
    double ad = std::fabs(d);
    if (std::isnan(ad)) ad = INFINITY;
    s.max_abs = std::max(s.max_abs, ad);
  }
  if (!same_size) s.reference_spread = INFINITY;  // a size that varies is not constant
  s.n += a.size();
  ++s.samples;
}

std::vector<OutputAccuracy> AccuracyMeter::results() const {
  std::vector<OutputAccuracy> r;
  for (const auto& [name, s] : sums_) {
    OutputAccuracy a;
    a.output = name;
    a.max_abs_error = s.max_abs;
    a.elements = s.n;
    a.shape_changed = s.shape_changed;
    a.samples = s.samples;
    // One sample cannot show it. Within 1e-5 of its magnitude a float32
    // output is the same up to rounding (a random-weight network whose
    // BatchNorm statistics collapse every input to one answer).
    a.constant = s.samples >= 2 && !(s.reference_spread > kConstantTolerance * s.reference_magnitude);
    if (s.noise > 0 && !a.constant) a.sqnr_db = 10.0 * std::log10(s.signal / s.noise);
    r.push_back(a);
  }
  return r;
}

std::vector<OutputAccuracy> compare_models(const model::Model& reference, const model::Model& candidate,
                                           const SampleSource& samples, const RunnerFactory& runner,
                                           const std::vector<std::optional<Feeds>>& reference_outputs, int workers) {
  if (!runner) throw BuildError("the accuracy report needs a model runner, and none is available");
  AccuracyMeter meter;
  std::unique_ptr<ModelRunner> ref;  // (made only if a sample's outputs are not known)
  // Each sample's pair, in sample order: the sums do not depend on workers.
  const auto add = [&](std::size_t i, Feeds& got) {
    const bool known = i < reference_outputs.size() && reference_outputs[i];
    if (!known && !ref) ref = runner(reference, {});
    const Feeds want = known ? *reference_outputs[i] : ref->run(samples.sample(i), {});
    for (const auto& [name, t] : want) {
      auto it = got.find(name);
      if (it == got.end()) throw BuildError("converted model has no output '" + name + "'");
      meter.add(name, t, it->second);
    }
    progress::report("accuracy", i + 1, samples.size(), "samples");
  };
  const auto run = [&](ModelRunner& r, std::size_t i) { return r.run(samples.sample(i), {}); };
  workers = static_cast<int>(std::min<std::size_t>(std::max(workers, 1), samples.size()));
  if (workers > 1) {
    run_samples_concurrently<Feeds>(samples.size(), workers, runner(candidate, {}),
                                    [&] { return runner(candidate, {}); }, run, add);
  } else {
    std::unique_ptr<ModelRunner> cand = runner(candidate, {});
    for (std::size_t i = 0; i < samples.size(); ++i) {
      Feeds got = run(*cand, i);
      add(i, got);
    }
  }
  return meter.results();
}

nlohmann::json accuracy_json(const std::vector<OutputAccuracy>& table) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& a : table) {
    nlohmann::json row = {{"output", a.output}, {"max_abs_error", a.max_abs_error}, {"elements", a.elements}};
    row["sqnr_db"] = a.sqnr_db ? nlohmann::json(*a.sqnr_db) : nlohmann::json(nullptr);
    // An output the float model never varies tells nothing: not "identical".
    if (a.constant) row["constant"] = true;
    // Identical outputs have no finite SQNR; say so rather than leave a bare null.
    else if (!a.sqnr_db && a.elements > 0 && a.max_abs_error == 0) row["identical"] = true;
    row["samples"] = a.samples;
    // An output empty on every sample (a detector that found nothing) has nothing to compare.
    if (a.elements == 0 && a.shape_changed == 0) row["empty"] = true;
    if (a.shape_changed) row["shape_changed_samples"] = a.shape_changed;
    j.push_back(row);
  }
  return j;
}

std::string format_accuracy(const std::vector<OutputAccuracy>& table) {
  std::ostringstream o;
  char line[512];
  std::snprintf(line, sizeof line, "  %-32s %10s %16s\n", "output", "SQNR (dB)", "max abs error");
  o << line;
  for (const auto& a : table) {
    char sqnr[32] = "inf";
    if (a.sqnr_db) std::snprintf(sqnr, sizeof sqnr, "%.2f", *a.sqnr_db);
    else if (a.constant) std::snprintf(sqnr, sizeof sqnr, "-");
    else if (a.elements == 0) std::snprintf(sqnr, sizeof sqnr, a.shape_changed ? "-" : "empty");
    std::snprintf(line, sizeof line, "  %-32s %10s %16.6g\n", a.output.c_str(), sqnr, a.max_abs_error);
    o << line;
    if (a.constant) o << "    (" << constant_output_message(a) << ")\n";
    if (a.shape_changed)
      o << "    (another shape on " << a.shape_changed << " sample" << (a.shape_changed == 1 ? "" : "s")
        << ", not compared: the output's size depends on its values)\n";
  }
  return o.str();
}

std::string constant_output_message(const OutputAccuracy& a) {
  return "output '" + a.output + "' is constant over the " + std::to_string(a.samples) +
         " samples: no accuracy figure (the float model gives every sample the same values; random weights "
         "with BatchNorm's default statistics or a zero head do)";
}

}  // namespace winml::quant
