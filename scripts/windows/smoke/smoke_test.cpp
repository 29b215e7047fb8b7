// What the Windows build relies on from each library of the prefix, run
// under Wine: ONNX (parse, check, infer shapes) over protobuf, XXH3 through
// libxxhash's x86 dispatch, the header-only libraries, a death test,
// std::thread, and an exception thrown in a DLL.
#include <windows.h>  // before the ONNX headers: _NO_W32_PSEUDO_MODIFIERS keeps OPTIONAL defined away

#include <gtest/gtest.h>
#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <xxhash.h>
#define XXH_DISPATCH_DISABLE_REPLACE
#include <xxh_x86dispatch.h>

#include <CLI/CLI.hpp>
#include <Eigen/Dense>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <toml.hpp>
#include <vector>

#include "action_result.pb.h"
#include "thrower.h"

namespace {

onnx::ModelProto load_model() {
  std::ifstream in(SMOKE_MODEL, std::ios::binary);
  EXPECT_TRUE(in) << SMOKE_MODEL;
  onnx::ModelProto model;
  EXPECT_TRUE(model.ParseFromIstream(&in));
  return model;
}

std::string hex(XXH128_hash_t h) {
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return buf;
}

}  // namespace

TEST(Onnx, ParsesChecksAndInfersTheQuickstartModel) {
  onnx::ModelProto model = load_model();
  EXPECT_EQ(model.ir_version(), 8);
  ASSERT_EQ(model.opset_import_size(), 1);
  EXPECT_EQ(model.opset_import(0).version(), 17);
  EXPECT_EQ(model.graph().node_size(), 26);
  EXPECT_EQ(model.graph().output(0).name(), "logits");
  EXPECT_NO_THROW(onnx::checker::check_model(model, /*full_check=*/true));
  onnx::ShapeInferenceOptions options(/*check_type_val=*/true, /*strict_mode_val=*/1, /*data_prop_val=*/false);
  onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), options);
  // What Debian's ONNX 1.12 infers on Linux (python3-onnx, strict mode).
  ASSERT_EQ(model.graph().value_info_size(), 25);
  const auto& last = model.graph().value_info(24);
  EXPECT_EQ(last.name(), "/head/head.2/Mul_1_output_0");
  ASSERT_EQ(last.type().tensor_type().shape().dim_size(), 2);
  EXPECT_EQ(last.type().tensor_type().shape().dim(1).dim_value(), 128);
}

TEST(Onnx, KnowsOpsetsUpTo22) {
  auto versions = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  EXPECT_EQ(versions.at(onnx::ONNX_DOMAIN).second, 22);
}

TEST(Onnx, ACorruptModelIsRefused) {
  onnx::ModelProto model;
  EXPECT_FALSE(model.ParseFromString(std::string("\x0a\xff\xff\xff\xff\x0f", 6)));
}

TEST(Protobuf, MessagesFromTheHostProtocRoundTrip) {
  winml::remote::wire::ActionResult result;
  result.set_exit_code(3);
  result.add_output_files()->set_path("out/model.onnx");
  std::string bytes = result.SerializeAsString();
  winml::remote::wire::ActionResult back;
  ASSERT_TRUE(back.ParseFromString(bytes));
  EXPECT_EQ(back.exit_code(), 3);
  EXPECT_EQ(back.output_files(0).path(), "out/model.onnx");
}

TEST(Xxhash, DispatchAndBaselineGiveLinuxsDigests) {
  std::vector<unsigned char> buf(1 << 20);
  for (size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<unsigned char>((i * 2654435761u) >> 13);
  // Computed on Linux with Debian's libxxhash 0.8.1.
  EXPECT_EQ(hex(XXH3_128bits_dispatch(buf.data(), buf.size())), "490d2e4880066606e2786b358eab4a67");
  EXPECT_EQ(hex(XXH3_128bits(buf.data(), buf.size())), "490d2e4880066606e2786b358eab4a67");
  EXPECT_EQ(hex(XXH3_128bits_dispatch(buf.data(), 100)), "09386db44501f7e4acedade9575c6f25");
  XXH3_state_t* state = XXH3_createState();
  XXH3_128bits_reset(state);
  XXH3_128bits_update_dispatch(state, buf.data(), 4096);
  XXH3_128bits_update_dispatch(state, buf.data() + 4096, buf.size() - 4096);
  EXPECT_EQ(hex(XXH3_128bits_digest(state)), "490d2e4880066606e2786b358eab4a67");
  XXH3_freeState(state);
}

TEST(HeaderOnly, JsonTomlCliEigen) {
  auto json = nlohmann::json::parse(R"({"a": [1, 2, 3]})");
  EXPECT_EQ(json["a"][2], 3);
  std::istringstream toml_text("[build]\njobs = 4\n");
  auto toml_value = toml::parse(toml_text, "winml.toml");
  EXPECT_EQ(toml::find<int>(toml_value, "build", "jobs"), 4);
  CLI::App app;
  int jobs = 0;
  app.add_option("-j", jobs);
  const char* args[] = {"winml-make", "-j", "7"};
  app.parse(3, args);
  EXPECT_EQ(jobs, 7);
  Eigen::Matrix<float, 8, 8> m = Eigen::Matrix<float, 8, 8>::Identity() * 2.0f;
  EXPECT_FLOAT_EQ((m * m).trace(), 32.0f);
}

TEST(Runtime, AThreadRuns) {
  std::atomic<int> value{0};
  std::thread t([&] { value = 42; });
  t.join();
  EXPECT_EQ(value, 42);
}

TEST(Runtime, AnExceptionThrownInADllIsCaughtByType) {
  EXPECT_EQ(smoke_throw_if(0), "not thrown");
  try {
    smoke_throw_if(7);
    FAIL() << "nothing thrown";
  } catch (const SmokeError& e) {
    EXPECT_STREQ(e.what(), "thrown in the DLL: 7");
  }
}

TEST(DeathTest, AbortAndExitCodes) {
  EXPECT_DEATH(
      {
        std::fputs("about to abort\n", stderr);
        std::abort();
      },
      "about to abort");
  EXPECT_EXIT(std::exit(3), testing::ExitedWithCode(3), "");
}
