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

TEST(AccuracyMeter, AReferenceThatNeverVariesIsConstantNotIdentical) {
  quant::AccuracyMeter meter;
  for (int i = 0; i < 3; ++i) meter.add("logits", floats({2}, {0, 0}), floats({2}, {0, 0}));
  meter.add("varies", floats({2}, {1, 2}), floats({2}, {1, 2}));
  meter.add("varies", floats({2}, {1, 3}), floats({2}, {1, 3}));
  const auto r = meter.results();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_TRUE(r[0].constant);
  EXPECT_FALSE(r[0].sqnr_db.has_value());
  const auto rows = quant::accuracy_json(r);
  EXPECT_EQ(rows[0]["constant"], true);
  EXPECT_FALSE(rows[0].contains("identical"));
  EXPECT_EQ(rows[0]["samples"], 3);
  EXPECT_EQ(quant::constant_output_message(r[0]).rfind("output 'logits' is constant over the 3 samples", 0), 0u);
  // Equal outputs that do vary over the samples: quantization changed nothing.
  EXPECT_FALSE(r[1].constant);
  EXPECT_EQ(rows[1]["identical"], true);
}

TEST(AccuracyMeter, OneSampleCannotShowAConstantOutput) {
  quant::AccuracyMeter meter;
  meter.add("y", floats({2}, {1, 2}), floats({2}, {1, 2.5f}));
  const auto r = meter.results();
  EXPECT_FALSE(r[0].constant);
  EXPECT_TRUE(r[0].sqnr_db.has_value());
}

TEST(AccuracyMeter, MovesWithinFloatRoundingOfItsMagnitudeAreConstant) {
  quant::AccuracyMeter meter;
  meter.add("y", floats({1}, {1000.0f}), floats({1}, {1001.0f}));
  meter.add("y", floats({1}, {1000.001f}), floats({1}, {1001.0f}));
  EXPECT_TRUE(meter.results()[0].constant);
}
