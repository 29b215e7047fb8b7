// The accuracy report's sums: an output whose size depends on its values (a
// detector's detections) may come out with another shape after
// quantization; that sample is counted, not compared, and the build goes on.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "quant/accuracy.h"

using namespace winml;

namespace {
model::TensorFile floats(std::vector<std::int64_t> shape, const std::vector<float>& v) {
  model::TensorFile t;
  t.dtype = onnx::TensorProto::FLOAT;
  t.shape = std::move(shape);
  t.data.resize(v.size() * sizeof(float));
  std::memcpy(t.data.data(), v.data(), t.data.size());
  return t;
}
}  // namespace

TEST(AccuracyMeter, ASampleWhoseOutputChangedShapeIsCountedAndTheOthersCompared) {
  quant::AccuracyMeter meter;
  meter.add("boxes", floats({2, 1}, {1, 2}), floats({2, 1}, {1, 2.5f}));
  meter.add("boxes", floats({2, 1}, {1, 2}), floats({1, 1}, {1}));  // one detection fewer
  const auto r = meter.results();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].shape_changed, 1u);
  EXPECT_EQ(r[0].elements, 2u);
  ASSERT_TRUE(r[0].sqnr_db.has_value());
  EXPECT_NEAR(*r[0].sqnr_db, 10 * std::log10(5.0 / 0.25), 1e-9);

  const auto row = quant::accuracy_json(r)[0];
  EXPECT_EQ(row["shape_changed_samples"], 1);
  EXPECT_FALSE(row.contains("empty"));
  EXPECT_NE(quant::format_accuracy(r).find("another shape on 1 sample"), std::string::npos);
}

TEST(AccuracyMeter, AnOutputThatChangedShapeOnEverySampleIsNotCalledEmpty) {
  quant::AccuracyMeter meter;
  meter.add("masks", floats({3}, {1, 2, 3}), floats({2}, {1, 2}));
  const auto row = quant::accuracy_json(meter.results())[0];
  EXPECT_TRUE(row["sqnr_db"].is_null());
  EXPECT_EQ(row["shape_changed_samples"], 1);
  EXPECT_FALSE(row.contains("empty")) << "it was not empty: it was not comparable";
  EXPECT_FALSE(row.contains("identical"));
}
