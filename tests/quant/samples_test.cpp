// Calibration samples: directory layout, validation messages, generated data.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <set>

#include "base/error.h"
#include "base/path_text.h"
#include "model/tensor_file.h"
#include "quant/calibration/random.h"
#include "quant/calibration/samples.h"
#include "support/model_builder.h"
#include "support/ort_oracle.h"
#include "support/temp_dir.h"

namespace winml::test {
namespace {

namespace fs = std::filesystem;
using quant::InputSpec;

std::vector<InputSpec> two_inputs() {
  return {{"image", onnx::TensorProto::FLOAT, {1, 3, -1, -1}}, {"meta/scale", onnx::TensorProto::FLOAT, {1}}};
}

void write_sample(const fs::path& dir, float fill, bool pb_for_meta = false) {
  fs::create_directories(dir);
  model::TensorFile img = ones({1, 3, 4, 5});
  for (std::size_t i = 0; i < img.data.size() / 4; ++i) std::memcpy(img.data.data() + 4 * i, &fill, 4);
  model::write_npy(dir / "image.npy", img);
  model::TensorFile meta = ones({1});
  if (pb_for_meta) {
    onnx::TensorProto p;
    p.set_data_type(onnx::TensorProto::FLOAT);
    p.add_dims(1);
    p.add_float_data(fill);
    std::string bytes;
    p.SerializeToString(&bytes);
    write_text(dir / "meta_scale.pb", bytes);
  } else {
    model::write_npy(dir / "meta_scale.npy", meta);
  }
}

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(CalibrationSamples, DirectoryIsReadInNameOrderUpToTheCount) {
  TempDir d;
  write_sample(d / "b", 2.0f, true);
  write_sample(d / "a", 1.0f);
  write_sample(d / "c", 3.0f);
  write_text(d / "README.txt", "not a sample");
  auto src = quant::directory_samples(d.path(), 2, two_inputs());
  ASSERT_EQ(src->size(), 2u);
  auto s0 = src->sample(0), s1 = src->sample(1);
  EXPECT_EQ(s0.at("image").as<float>()[0], 1.0f);
  EXPECT_EQ(s1.at("image").as<float>()[0], 2.0f);
  EXPECT_EQ(s1.at("meta/scale").as<float>()[0], 2.0f);  // from the .pb file
  auto files = quant::calibration_files(d.path(), 2);
  ASSERT_EQ(files.size(), 4u);
  EXPECT_EQ(files[0], d / "a" / "image.npy");
  EXPECT_EQ(files[3], d / "b" / "meta_scale.pb");
  EXPECT_EQ(quant::calibration_files(d.path(), 100).size(), 6u);
}

TEST(CalibrationSamples, ProblemsNameTheFile) {
  TempDir d;
  write_sample(d / "s1", 1.0f);
  fs::remove(d / "s1" / "meta_scale.npy");
  std::string e = error_of([&] { quant::directory_samples(d.path(), 8, two_inputs()); });
  EXPECT_NE(e.find(to_utf8((d / "s1")) + ": calibration sample has no meta_scale.npy or meta_scale.pb for model "
                                         "input 'meta/scale'"),
            std::string::npos)
      << e;

  TempDir d2;
  write_sample(d2 / "s1", 1.0f);
  model::write_npy(d2 / "s1" / "imgae.npy", ones({1}));
  e = error_of([&] { quant::directory_samples(d2.path(), 8, two_inputs()); });
  EXPECT_NE(e.find("imgae.npy: does not name a model input (inputs: image, meta/scale)"), std::string::npos) << e;

  TempDir d3;
  write_sample(d3 / "s1", 1.0f);
  model::write_npy(d3 / "s1" / "image.npy", ones({1, 4, 4, 5}));
  auto src = quant::directory_samples(d3.path(), 8, two_inputs());
  e = error_of([&] { src->sample(0); });
  EXPECT_NE(e.find("image.npy: has shape [1, 4, 4, 5] but model input 'image' is [1, 3, ?, ?]"), std::string::npos)
      << e;

  TempDir empty;
  e = error_of([&] { quant::directory_samples(empty.path(), 8, two_inputs()); });
  EXPECT_NE(e.find("has no sample subdirectories"), std::string::npos) << e;
  e = error_of([&] { quant::directory_samples(empty / "missing", 8, two_inputs()); });
  EXPECT_NE(e.find("calibration data directory does not exist"), std::string::npos) << e;
}

TEST(CalibrationSamples, GeneratedAreSeededAndIndependentOfOrder) {
  std::vector<InputSpec> inputs = {{"x", onnx::TensorProto::FLOAT, {2, 1000}},
                                   {"ids", onnx::TensorProto::INT64, {1, 50}}};
  quant::GeneratorSpec spec{"uniform", -2.0, 3.0, 42};
  auto a = quant::generated_samples(4, inputs, spec);
  auto b = quant::generated_samples(4, inputs, spec);
  EXPECT_EQ(a->sample(3).at("x").data, b->sample(3).at("x").data);  // no need to draw 0..2 first
  EXPECT_NE(a->sample(0).at("x").data, a->sample(1).at("x").data);
  auto x = a->sample(0).at("x");
  double lo = 1e9, hi = -1e9, sum = 0;
  for (std::int64_t i = 0; i < x.element_count(); ++i) {
    lo = std::min<double>(lo, x.as<float>()[i]);
    hi = std::max<double>(hi, x.as<float>()[i]);
    sum += x.as<float>()[i];
  }
  EXPECT_GE(lo, -2.0);
  EXPECT_LT(hi, 3.0);
  EXPECT_NEAR(sum / 2000.0, 0.5, 0.15);
  auto ids = a->sample(0).at("ids");
  for (std::int64_t i = 0; i < 50; ++i) {
    EXPECT_GE(ids.as<std::int64_t>()[i], -2);
    EXPECT_LE(ids.as<std::int64_t>()[i], 3);
  }
  quant::GeneratorSpec other = spec;
  other.seed = 43;
  EXPECT_NE(quant::generated_samples(1, inputs, other)->sample(0).at("x").data, a->sample(0).at("x").data);
}

TEST(CalibrationSamples, NormalDistributionMoments) {
  auto src = quant::generated_samples(1, {{"x", onnx::TensorProto::FLOAT, {100000}}}, {"normal", 1.0, 2.0, 7});
  auto x = src->sample(0).at("x");
  double sum = 0, sq = 0;
  for (std::int64_t i = 0; i < x.element_count(); ++i) {
    double v = x.as<float>()[i];
    sum += v;
    sq += v * v;
  }
  double mean = sum / 100000.0, var = sq / 100000.0 - mean * mean;
  EXPECT_NEAR(mean, 1.0, 0.03);
  EXPECT_NEAR(std::sqrt(var), 2.0, 0.03);
}

TEST(CalibrationSamples, PortableLogMatchesLibm) {
  for (double x : {1e-300, 1e-10, 0.1, 0.5, 0.7, 1.0, 1.5, 2.0, 10.0, 12345.678, 1e300})
    EXPECT_NEAR(quant::portable_log(x), std::log(x), 1e-14 * std::max(1.0, std::fabs(std::log(x)))) << x;
}

// The series stops early only where its remaining terms change nothing: the
// same bits as all 30 terms, so generated samples stay what they were.
TEST(CalibrationSamples, PortableLogEqualsTheFullSeries) {
  auto full_series = [](double x) {
    int e = 0;
    double m = std::frexp(x, &e);
    if (m < 0.70710678118654752) {
      m *= 2.0;
      --e;
    }
    double s = (m - 1.0) / (m + 1.0), s2 = s * s, term = s, sum = 0.0;
    for (int k = 0; k < 30; ++k) {
      sum += term / static_cast<double>(2 * k + 1);
      term *= s2;
    }
    return 2.0 * sum + static_cast<double>(e) * 0.69314718055994530942;
  };
  quant::Rng rng(5);
  for (int i = 0; i < 200000; ++i) {
    double x = i % 2 ? rng.uniform() : std::ldexp(rng.uniform() + 0.5, static_cast<int>(rng.next() % 200) - 100);
    if (x == 0.0) continue;
    ASSERT_EQ(quant::portable_log(x), full_series(x)) << x;
  }
  for (double x : {0.70710678118654752, 0.7071067811865476, 1.0, 1.4142135623730951, 0x1.fffffffffffffp-1})
    EXPECT_EQ(quant::portable_log(x), full_series(x)) << x;
}

// A batch of normals is exactly the values (and leaves the state) of as many
// calls of normal(): odd counts, a spare carried in and out, a million values.
TEST(CalibrationSamples, BatchedNormalsEqualOneAtATime) {
  quant::Rng one(11), batched(11);
  for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{513}, std::size_t{1000000}}) {
    std::vector<double> expected(n), got(n);
    for (auto& x : expected) x = one.normal();
    batched.normals(got.data(), n);
    ASSERT_EQ(got, expected) << n << " values";
  }
  EXPECT_EQ(one.next(), batched.next());
}

TEST(CalibrationSamples, ModelInputsResolveSymbolicDims) {
  GraphBuilder b;
  b.input("x", {"batch", 3, "h", "w"});
  b.initializer("W", {1}, {1.0f});
  auto* in = b.graph().add_input();  // an initializer listed as input is not a model input
  in->set_name("W");
  b.node("Identity", {"x"}, {"y"});
  b.output("y", {"batch", 3, "h", "w"});
  onnx::ModelProto m = make_model(b.graph());
  auto specs = quant::model_inputs(m, {{"batch", 2}, {"h", 8}}, true);
  ASSERT_EQ(specs.size(), 1u);
  EXPECT_EQ(specs[0].shape, (std::vector<std::int64_t>{2, 3, 8, 1}));
  EXPECT_EQ(quant::model_inputs(m, {}, false)[0].shape, (std::vector<std::int64_t>{-1, 3, -1, -1}));
}

// Token ids (through a Cast, as some exports have them) and position ids
// index embedding tables: generated samples draw them over the tables' rows,
// not from value_range, and an attention mask stays in value_range.
TEST(CalibrationSamples, IndexInputsAreDrawnOverTheRowsOfTheirTable) {
  GraphBuilder b;
  b.input("input_ids", {1, 64}, onnx::TensorProto::INT64);
  b.input("position_ids", {1, 64}, onnx::TensorProto::INT64);
  b.input("attention_mask", {1, 64}, onnx::TensorProto::INT64);
  b.initializer("tokens", {1000, 4}, std::vector<float>(4000, 0.5f));
  b.initializer("positions", {128, 4}, std::vector<float>(512, 0.25f));
  set_attr(b.node("Cast", {"input_ids"}, {"ids32"}), "to", std::int64_t{onnx::TensorProto::INT32});
  b.node("Gather", {"tokens", "ids32"}, {"t"});
  b.node("Gather", {"positions", "position_ids"}, {"p"});
  b.node("Add", {"t", "p"}, {"y"});
  b.node("Cast", {"attention_mask"}, {"mask"});
  b.output("y", {1, 64, 4});
  b.output("mask", {1, 64}, onnx::TensorProto::INT64);
  const auto specs = quant::model_inputs(make_model(b.graph()), {}, true);
  ASSERT_EQ(specs.size(), 3u);
  EXPECT_EQ(specs[0].index_rows, 1000);
  EXPECT_EQ(specs[1].index_rows, 128);
  EXPECT_EQ(specs[2].index_rows, 0);

  for (const char* distribution : {"uniform", "normal"}) {
    const auto sample = quant::generated_samples(1, specs, {distribution, 0.0, 1.0, 5})->sample(0);
    for (const auto& [name, bound] : {std::pair{"input_ids", 1000}, {"position_ids", 128}, {"attention_mask", 2}}) {
      if (std::string(name) == "attention_mask" && std::string(distribution) == "normal")
        continue;  // (rounded normals)
      const auto* values = sample.at(name).as<std::int64_t>();
      std::set<std::int64_t> distinct(values, values + 64);
      EXPECT_GE(*distinct.begin(), 0) << name << " " << distribution;
      EXPECT_LT(*distinct.rbegin(), bound) << name << " " << distribution;
      if (std::string(name) != "attention_mask") EXPECT_GT(distinct.size(), 32u) << name << " " << distribution;
    }
  }
}

}  // namespace
}  // namespace winml::test
