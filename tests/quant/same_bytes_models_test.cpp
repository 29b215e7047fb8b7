// The same bytes on every machine, on real models: EfficientNet-B0 (100 of
// 972 initializers differed between AVX2 and AVX-512 before the GEMM had
// one order of operations) and the transformer encoder, quantized with the
// defaults by `winml-make quantize` under the machine's default instruction
// set and under WINML_RUNTIME_ISA=avx2: byte-identical. (The generic
// variant's products round twice: its bytes differ, and builds key them
// apart: tests/cli/same_bytes_test.cpp.)
#include <gtest/gtest.h>

#include "support/cli_runner.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

std::string quantized_under(const std::string& model, const std::map<std::string, std::string>& env,
                            const fs::path& out) {
  const test::CliResult r =
      test::run_cli({"quantize", "-m", test::exported_model(model).string(), "-o", out.string()}, {}, env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return fs::exists(out) ? test::read_text(out) : "";
}

}  // namespace

TEST(SameBytesModels, AVX2AndTheMachinesDefaultQuantizeRealModelsToTheSameBytes) {
  test::TempDir dir;
  for (const char* model : {"efficientnet_b0_op13", "transformer_encoder_op17"}) {
    SCOPED_TRACE(model);
    const std::string native = quantized_under(model, {}, dir / (std::string(model) + "_native.onnx"));
    const std::string avx2 =
        quantized_under(model, {{"WINML_RUNTIME_ISA", "avx2"}}, dir / (std::string(model) + "_avx2.onnx"));
    ASSERT_FALSE(native.empty());
    EXPECT_TRUE(native == avx2) << "run `winml-make diff` on the two models in " << dir.path();
  }
}
