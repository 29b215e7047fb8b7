// The `ref` blob format on its own: plans round-trip exactly, the bytes are
// deterministic, and damaged or foreign blobs are refused with messages.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include <cstring>

#include "base/error.h"
#include "base/memory_pages.h"
#include "support/compile_util.h"
#include "model/model_io.h"
#include "runtime/errors.h"
#include "runtime/ref_blob/plan_codec.h"
#include "runtime/ref_blob/ref_blob.h"
#include "runtime/session.h"
#include "support/model_builder.h"

using namespace winml;
namespace rb = winml::runtime::ref_blob;

namespace {

struct Planned {
  model::Model model;
  std::shared_ptr<const runtime::Plan> plan;
};

Planned plan_small() {
  Planned p;
  p.model.proto = test::small_model();
  p.plan = runtime::build_plan(p.model, {{{"batch", 3}}, true});
  return p;
}

std::string blob_of(const Planned& p) {
  return rb::blob_bytes({*p.plan, p.model.proto.graph(), "part_a", {{"batch", 3}}});
}

template <typename Fn>
std::string error_of(Fn fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(RefBlob, PlanRoundTripsAndRunsBitIdentically) {
  Planned p = plan_small();
  std::string blob = blob_of(p);
  rb::BlobSummary s = rb::check_blob(blob, "blob", true);
  EXPECT_EQ(s.version, rb::kFormatVersion);
  EXPECT_EQ(s.total_bytes, blob.size());
  EXPECT_EQ(s.partition_name, "part_a");
  EXPECT_EQ(s.dims.at("batch"), 3);
  EXPECT_EQ(s.steps, p.plan->steps.size());
  EXPECT_EQ(s.constants, p.plan->constants.size());
  EXPECT_EQ(s.arena_bytes, p.plan->arena_bytes);

  auto loaded = rb::load_plan(blob, nullptr, "blob");
  ASSERT_EQ(loaded->steps.size(), p.plan->steps.size());
  for (std::size_t i = 0; i < loaded->steps.size(); ++i) {
    EXPECT_EQ(loaded->steps[i].op_type, p.plan->steps[i].op_type);
    EXPECT_EQ(loaded->steps[i].inputs, p.plan->steps[i].inputs);
    EXPECT_EQ(loaded->steps[i].release, p.plan->steps[i].release);
  }
  for (std::size_t i = 0; i < loaded->values.size(); ++i) {
    EXPECT_EQ(loaded->values[i].name, p.plan->values[i].name);
    EXPECT_EQ(loaded->values[i].shape, p.plan->values[i].shape);
    EXPECT_EQ(loaded->values[i].buffer, p.plan->values[i].buffer);
    EXPECT_EQ(loaded->find(loaded->values[i].name), static_cast<int>(i));
  }
  EXPECT_GT(p.plan->arena_bytes, 0);  // the memory plan is exercised

  runtime::Session original(p.plan), restored(loaded);
  auto x = test::random_input({3, 8}, 11);
  auto a = original.run({{"x", x}});
  auto b = restored.run({{"x", x}});
  for (const char* name : {"y", "z"}) EXPECT_TRUE(a.at(name).same_as(b.at(name))) << name;
}

TEST(RefBlob, WeightsAreViewsOfTheBlob) {
  Planned p = plan_small();
  std::string blob = blob_of(p);
  auto loaded = rb::load_plan(blob, nullptr, "blob");
  for (const auto& [id, t] : loaded->constants) {
    const std::byte* at = t.raw();
    EXPECT_GE(reinterpret_cast<const char*>(at), blob.data());
    EXPECT_LT(reinterpret_cast<const char*>(at), blob.data() + blob.size()) << loaded->values[id].name;
  }
}

TEST(RefBlob, PackedWeightsAreStoredAndLoadingPacksNothing) {
  Planned p = plan_small();
  ASSERT_FALSE(p.plan->packed.empty()) << "the MatMul's constant weights are packed at plan time";
  std::string blob = blob_of(p);
  // A 64-byte aligned copy, as a mapped sidecar is: the panels are used in place.
  std::shared_ptr<char> aligned(static_cast<char*>(aligned_allocate((blob.size() + 63) / 64 * 64, 64)), aligned_free);
  std::memcpy(aligned.get(), blob.data(), blob.size());
  auto loaded = rb::load_plan(std::string_view(aligned.get(), blob.size()), aligned, "blob");
  ASSERT_EQ(loaded->packed.size(), p.plan->packed.size()) << "every stored panel was handed to a kernel";
  for (std::size_t i = 0; i < loaded->packed.size(); ++i) {
    const char* at = reinterpret_cast<const char*>(loaded->packed[i]->data.get());
    EXPECT_GE(at, aligned.get());
    EXPECT_LT(at, aligned.get() + blob.size());
    EXPECT_EQ(std::memcmp(at, p.plan->packed[i]->data.get(), p.plan->packed[i]->bytes()), 0);
  }
}

// A MatMul of 91 outputs over a depth of 1024 (a detector's class scores)
// packs its weights in several slabs of an odd extent: each slab starts
// 64-byte aligned (the kernels store and load them with aligned vector
// instructions; back to back, packing faulted on AVX-512), the gaps between
// them are zeros (the same blob bytes every time), and the panels a blob
// stores run as they were packed.
TEST(RefBlob, PanelsOfAnOddExtentOverSeveralSlabsRoundTrip) {
  auto planned = [] {
    Planned p;
    p.model.proto = test::linear_model(1024, 91);
    p.plan = runtime::build_plan(p.model, {{{"batch", 3}}, true});
    return p;
  };
  Planned p = planned();
  ASSERT_EQ(p.plan->packed.size(), 1u);
  const auto& w = *p.plan->packed[0];
  EXPECT_LT(w.kc, w.k) << "several slabs";
  const std::string blob = blob_of(p);
  EXPECT_EQ(blob, blob_of(planned()));
  std::shared_ptr<char> aligned(static_cast<char*>(aligned_allocate((blob.size() + 63) / 64 * 64, 64)), aligned_free);
  std::memcpy(aligned.get(), blob.data(), blob.size());
  auto loaded = rb::load_plan(std::string_view(aligned.get(), blob.size()), aligned, "blob");
  ASSERT_EQ(loaded->packed.size(), 1u);
  EXPECT_EQ(loaded->packed[0]->bytes(), w.bytes());
  runtime::Session original(p.plan), restored(loaded);
  auto x = test::random_input({3, 1024}, 5);
  EXPECT_TRUE(original.run({{"x", x}}).at("y").same_as(restored.run({{"x", x}}).at("y")));
}

TEST(RefBlob, BytesAreDeterministic) {
  Planned p1 = plan_small(), p2 = plan_small();
  EXPECT_EQ(blob_of(p1), blob_of(p2));
}

TEST(RefBlob, WrongVersionIsRefused) {
  std::string blob = blob_of(plan_small());
  std::uint32_t v = 7;
  std::memcpy(blob.data() + 8, &v, 4);
  std::string e = error_of([&] { rb::load_plan(blob, nullptr, "m_ref.bin"); });
  EXPECT_EQ(e,
            "m_ref.bin: ref blob format version 7 is not supported (this winml-make reads version 3); recompile "
            "the model with ep = \"ref\"");
}

TEST(RefBlob, DamagedPlanIsRefusedAtLoad) {
  std::string blob = blob_of(plan_small());
  std::uint64_t meta_bytes;
  std::memcpy(&meta_bytes, blob.data() + 24, 8);
  blob[80 + meta_bytes / 2] ^= 1;  // inside the metadata
  std::string e = error_of([&] { rb::load_plan(blob, nullptr, "m_ref.bin"); });
  EXPECT_NE(e.find("m_ref.bin: ref blob checksum mismatch in its header and plan"), std::string::npos) << e;
}

TEST(RefBlob, DamagedWeightsAreFoundByTheFullCheck) {
  std::string blob = blob_of(plan_small());
  blob[blob.size() - 3] ^= 1;  // inside the last constant
  // A session maps weights without reading them all (documented)...
  EXPECT_NO_THROW(rb::load_plan(blob, nullptr, "m_ref.bin"));
  // ...the full check, which winml-make runs whenever it handles a blob, reads them.
  std::string e = error_of([&] { rb::check_blob(blob, "m_ref.bin", true); });
  EXPECT_NE(e.find("m_ref.bin: ref blob checksum mismatch in its weights"), std::string::npos) << e;
}

TEST(RefBlob, TruncatedForeignAndEmptyBlobsAreRefused) {
  std::string blob = blob_of(plan_small());
  EXPECT_NE(error_of([&] { rb::check_blob(blob.substr(0, blob.size() - 1), "b", false); }).find("truncated"),
            std::string::npos);
  EXPECT_NE(error_of([&] { rb::check_blob(blob + "x", "b", false); }).find("stray bytes"), std::string::npos);
  EXPECT_NE(error_of([&] { rb::check_blob("QNN context binary", "b", false); }).find("not a ref blob"),
            std::string::npos);
  EXPECT_NE(error_of([&] { rb::check_blob("", "b", false); }).find("not a ref blob"), std::string::npos);
  EXPECT_NE(error_of([&] { rb::check_blob(blob.substr(0, 40), "b", false); }).find("truncated"), std::string::npos);
}

TEST(RefBlob, InconsistentMetadataIsRefusedNotFollowed) {
  // Checksums only catch accidents; indices are still checked against the
  // tables so a crafted blob cannot make the runtime read out of bounds.
  rb::Meta m;
  m.values.resize(2);
  m.values[0].name = "a";
  m.values[1].name = "b";
  m.inputs = {0};
  m.outputs = {5};
  std::string e = error_of([&] { rb::decode_meta(rb::encode_meta(m), 0, "b"); });
  EXPECT_NE(e.find("out of range in the outputs"), std::string::npos) << e;

  m.outputs = {1};
  m.constants.push_back({1, onnx::TensorProto::FLOAT, {4}, 0, 16});
  e = error_of([&] { rb::decode_meta(rb::encode_meta(m), 8, "b"); });
  EXPECT_NE(e.find("outside the data section"), std::string::npos) << e;

  m.constants[0].bytes = 12;
  e = error_of([&] { rb::decode_meta(rb::encode_meta(m), 64, "b"); });
  EXPECT_NE(e.find("has 12 bytes for shape [4]"), std::string::npos) << e;

  m.constants.clear();
  m.values[1].shape = runtime::Shape{1024};
  m.values[1].dtype = onnx::TensorProto::FLOAT;
  m.values[1].buffer = 0;
  m.buffers.push_back({0, 64});
  m.arena_bytes = 64;
  e = error_of([&] { rb::decode_meta(rb::encode_meta(m), 0, "b"); });
  EXPECT_NE(e.find("does not fit its arena buffer"), std::string::npos) << e;

  // Sizes that overflow 64 bits (found by fuzz_ref_blob): refused, not wrapped.
  m.values[1].shape = runtime::Shape{std::int64_t{1} << 40, std::int64_t{1} << 40};
  e = error_of([&] { rb::decode_meta(rb::encode_meta(m), 0, "b"); });
  EXPECT_NE(e.find("has a shape of more than 2^64 bytes"), std::string::npos) << e;
  m.values[1].shape = runtime::Shape{16};
  m.constants.push_back({1, onnx::TensorProto::FLOAT, {std::int64_t{1} << 62, 8}, 0, 0});
  e = error_of([&] { rb::decode_meta(rb::encode_meta(m), 64, "b"); });
  EXPECT_NE(e.find("has 0 bytes for shape"), std::string::npos) << e;
  m.constants.clear();

  std::string truncated = rb::encode_meta(m).substr(0, 30);
  e = error_of([&] { rb::decode_meta(truncated, 0, "b"); });
  EXPECT_NE(e.find("b: ref blob metadata is corrupt"), std::string::npos) << e;
}
