// Options that the chosen mode never reads are refused (exit 2, nothing
// written), each with one message that names the flag and the mode that
// reads it; a verification key with an explicit read-write mode stops the
// build before any request.
#include <gtest/gtest.h>

#include "support/project.h"
#include "support/temp_dir.h"

using namespace winml;
using test::Project;
namespace fs = std::filesystem;

namespace {

test::CliResult quantize(const Project& p, std::vector<std::string> flags) {
  std::vector<std::string> args = {"quantize", "-m", (p.root() / "net.onnx").string(), "-o",
                                   (p.root() / "q.onnx").string(), "--no-accuracy", "--samples", "1"};
  args.insert(args.end(), flags.begin(), flags.end());
  return p.run(args);
}

void expect_refused(const Project& p, std::vector<std::string> flags, const std::string& message) {
  const test::CliResult r = quantize(p, flags);
  EXPECT_EQ(r.exit_code, 2) << testing::PrintToString(flags) << r.out << r.err;
  EXPECT_EQ(r.first_error_line(), "winml-make: error: " + message) << r.err;
  EXPECT_FALSE(fs::exists(p.root() / "q.onnx"));
}

}  // namespace

TEST(IgnoredOptions, QuantizeFlagsAnotherModeReadsAreRefused) {
  Project p;
  p.write_small_project();
  expect_refused(p, {"--bits", "8"},
                 "--bits: only --mode matmulnbits reads it (the mode is qdq); for 4-bit QDQ weights use "
                 "--weight-type int4 or uint4");
  expect_refused(p, {"--accuracy-level", "4"}, "--accuracy-level: only --mode matmulnbits reads it (the mode is qdq)");
  expect_refused(p, {"--block-size", "64"},
                 "--block-size: only --mode matmulnbits and 4-bit QDQ weights (--weight-type int4 or uint4) read it "
                 "(the mode is qdq, weights int8)");
  expect_refused(p, {"--mode", "fp16", "--block-size", "64"},
                 "--block-size: only --mode matmulnbits and 4-bit QDQ weights (--weight-type int4 or uint4) read it "
                 "(the mode is fp16)");
  expect_refused(p, {"--mode", "matmulnbits", "--weight-type", "int4"},
                 "--weight-type: --mode matmulnbits does not read it; choose its weight width with --bits 4 or 8");
}

TEST(IgnoredOptions, BadBitsGetOneRule) {
  Project p;
  p.write_small_project();
  const test::CliResult r = quantize(p, {"--mode", "matmulnbits", "--bits", "3"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "winml-make: error: --bits: 'quantize.bits' is 3, expected 4 or 8\n");
}

TEST(IgnoredOptions, VerifyKeyWithReadWriteModeStopsTheBuild) {
  Project p;
  p.write_small_project();
  test::write_text(p.root() / "cache.pub", "not read: the contradiction is found first\n");
  const test::CliResult r = p.run({}, {{"WINML_MAKE_REMOTE_CACHE", "http://127.0.0.1:9"},
                                              {"WINML_MAKE_REMOTE_CACHE_MODE", "read-write"},
                                              {"WINML_MAKE_REMOTE_CACHE_VERIFY_KEY", (p.root() / "cache.pub").string()}});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("WINML_MAKE_REMOTE_CACHE_MODE=read-write with WINML_MAKE_REMOTE_CACHE_VERIFY_KEY"),
            std::string::npos)
      << r.err;
}
