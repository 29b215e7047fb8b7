// A stage's run as the request a worker process is handed: every field comes
// back as it was, whatever bytes its paths hold, and a damaged request is
// refused rather than run with wrong paths.
#include <gtest/gtest.h>

#include "pipeline/stage_request.h"

using namespace winml;
using pipeline::StageRequest;

namespace {

StageRequest awkward_request() {
  StageRequest r;
  r.kind = "optimize.auto";
  r.declared.config = {{"quantize", {{"samples", 2}, {"calibration", "data/a b\nc.npz"}}}};
  r.declared.rules = {"ep/cpu.toml", "optimize/presets.toml"};
  r.declared.environment = {"EXPORT_FLAVOR"};
  r.declared.writes_models = true;
  r.source_dir = "/projects/with space";
  r.config_file = "/projects/with space/winml.toml";
  r.project_dir = "/projects/with space";
  // Paths are bytes: a newline, a tab, a byte that is not UTF-8.
  r.input = "/out/.winml-make/staging/net.optimize.1/in\nput\t\xff.onnx";
  r.input_files = {r.input, "/out/in.onnx.data"};
  r.output = "/out/.winml-make/staging/net.quantize.1/quantized.onnx";
  r.files = {};
  r.log_file = "/out/.winml-make/logs/net.quantize.log";
  r.progress_file = "/out/.winml-make/logs/net.quantize.progress";
  return r;
}

}  // namespace

TEST(StageRequest, EveryFieldComesBackWhateverBytesItsPathsHold) {
  const StageRequest r = awkward_request();
  const auto back = pipeline::decode_stage_request(pipeline::encode_stage_request(r));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, r);
  EXPECT_EQ(back->input.native(), r.input.native());
  // Empty lists and paths too (export has no input).
  StageRequest bare;
  bare.kind = "export";
  const auto bare_back = pipeline::decode_stage_request(pipeline::encode_stage_request(bare));
  ASSERT_TRUE(bare_back.has_value());
  EXPECT_EQ(*bare_back, bare);
}

TEST(StageRequest, ADamagedOrCutRequestIsRefused) {
  const std::string whole = pipeline::encode_stage_request(awkward_request());
  // Cut anywhere before its end: never a request with some fields missing.
  for (std::size_t n = 0; n < whole.size(); n += 7)
    EXPECT_FALSE(pipeline::decode_stage_request(whole.substr(0, n)).has_value()) << n;
  // Another record's text (a contexts file's) is not a request.
  EXPECT_FALSE(pipeline::decode_stage_request("winml-make-contexts\n").has_value());
  // One record, not two.
  EXPECT_FALSE(pipeline::decode_stage_request(whole + whole).has_value());
}
