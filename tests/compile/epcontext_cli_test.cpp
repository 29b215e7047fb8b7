// winml-make epcontext (embed <-> extern) and the refusal of damaged,
// missing or unsafe blobs: each a clear error with nothing written.
#include <gtest/gtest.h>

#include <cstring>

#include "base/error.h"
#include "support/compile_util.h"
#include "compile/epcontext_node.h"
#include "compile/validate.h"
#include "model/model_io.h"
#include "model/node_util.h"
#include "runtime/ref_blob/ref_blob.h"
#include "support/cli_runner.h"
#include "support/model_builder.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

// in.onnx compiled with the ref backend to <dir>/c.onnx + c_ref.bin.
void compile_small(const test::TempDir& dir) {
  test::write_model(test::small_model(), dir / "in.onnx");
  auto r = test::run_cli({"compile", "-m", (dir / "in.onnx").string(), "-o", (dir / "c.onnx").string(), "--ep", "ref"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

test::CliResult convert(const test::TempDir& dir, const std::string& mode, const std::string& in,
                        const std::string& out) {
  return test::run_cli({"epcontext", mode, "-m", (dir / in).string(), "-o", (dir / out).string()});
}

void set_context(const fs::path& model_path, const std::string& value) {
  model::Model m = model::load_model(model_path);
  model::set_attr_string(*m.proto.mutable_graph()->mutable_node(0), "ep_cache_context", value);
  test::write_model(m.proto, model_path);
}

}  // namespace

TEST(EpContextCli, ExternEmbedExternRoundTripKeepsBlobBytes) {
  test::TempDir dir;
  compile_small(dir);
  auto r = convert(dir, "--embed", "c.onnx", "e.onnx");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("node winml_ref_0: embedded"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir / "e_ref.bin"));
  model::Model e = model::load_model(dir / "e.onnx");
  EXPECT_EQ(model::find_attr(e.proto.graph().node(0), "embed_mode")->i(), 1);
  EXPECT_EQ(model::find_attr(e.proto.graph().node(0), "ep_cache_context")->s(), test::read_text(dir / "c_ref.bin"));

  r = convert(dir, "--extern", "e.onnx", "x.onnx");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::read_text(dir / "x_ref.bin"), test::read_text(dir / "c_ref.bin"));
  model::Model x = model::load_model(dir / "x.onnx");
  EXPECT_EQ(model::find_attr(x.proto.graph().node(0), "embed_mode")->i(), 0);
  EXPECT_EQ(model::find_attr(x.proto.graph().node(0), "ep_cache_context")->s(), "x_ref.bin");

  auto in = test::random_input({2, 8}, 1);
  auto expected = test::run_model(dir / "in.onnx", {{"x", in}});
  for (const char* m : {"c.onnx", "e.onnx", "x.onnx"}) {
    auto got = test::run_model(dir / m, {{"x", in}});
    for (const auto& [name, t] : expected) EXPECT_TRUE(t.same_as(got.at(name))) << m << " " << name;
  }
}

TEST(EpContextCli, ModeIsRequiredAndExclusive) {
  test::TempDir dir;
  compile_small(dir);
  EXPECT_EQ(convert(dir, "--json", "c.onnx", "o.onnx").exit_code, 2);
  EXPECT_EQ(test::run_cli(
                {"epcontext", "--embed", "--extern", "-m", (dir / "c.onnx").string(), "-o", (dir / "o.onnx").string()})
                .exit_code,
            2);
  auto r = convert(dir, "--embed", "in.onnx", "o.onnx");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("has no EPContext nodes"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir / "o.onnx"));
}

// Each damage: `epcontext` exits 2 with the message and writes nothing; a
// session refuses the model too, except for damaged weights, which only the
// full check reads (validation, conversion) -- see runtime/ref_blob/ref_blob.h.
struct Damage {
  const char* name;
  std::function<void(const test::TempDir&)> apply;
  std::string message;
  bool session_refuses;
};

class BrokenBlob : public ::testing::TestWithParam<int> {};

const std::vector<Damage>& damages() {
  static const std::vector<Damage> d = {
      {"missing", [](const test::TempDir& dir) { fs::remove(dir / "c_ref.bin"); },
       "EPContext blob 'c_ref.bin' of node 'winml_ref_0' is missing", true},
      {"wrong version",
       [](const test::TempDir& dir) {
         std::string b = test::read_text(dir / "c_ref.bin");
         std::uint32_t v = 1;  // an older format: no packed weights
         std::memcpy(b.data() + 8, &v, 4);
         test::write_text(dir / "c_ref.bin", b);
       },
       "c_ref.bin: ref blob format version 1 is not supported", true},
      {"damaged plan", [](const test::TempDir& dir) { test::flip_byte(dir / "c_ref.bin", 100); },
       "c_ref.bin: ref blob checksum mismatch in its header and plan", true},
      {"damaged weights",
       [](const test::TempDir& dir) { test::flip_byte(dir / "c_ref.bin", fs::file_size(dir / "c_ref.bin") - 2); },
       "c_ref.bin: ref blob checksum mismatch in its weights", false},
      {"truncated",
       [](const test::TempDir& dir) { fs::resize_file(dir / "c_ref.bin", fs::file_size(dir / "c_ref.bin") - 4); },
       "c_ref.bin: ref blob is truncated", true},
      {"not a blob", [](const test::TempDir& dir) { test::write_text(dir / "c_ref.bin", "QNN context binary"); },
       "c_ref.bin: not a ref blob", true},
      {"parent reference", [](const test::TempDir& dir) { set_context(dir / "c.onnx", "../c_ref.bin"); },
       "EPContext ep_cache_context '../c_ref.bin' is refused: it must be a relative path inside the model's "
       "directory (no absolute path, no '..')",
       true},
      {"absolute path", [](const test::TempDir& dir) { set_context(dir / "c.onnx", (dir / "c_ref.bin").string()); },
       "' is refused: it must be a relative path inside the model's directory", true},
  };
  return d;
}

TEST_P(BrokenBlob, IsAClearErrorAndNothingIsWritten) {
  const Damage& d = damages()[static_cast<std::size_t>(GetParam())];
  test::TempDir dir;
  compile_small(dir);
  d.apply(dir);
  for (const char* mode : {"--embed", "--extern"}) {
    auto r = convert(dir, mode, "c.onnx", "out.onnx");
    EXPECT_EQ(r.exit_code, 2) << d.name << " " << mode << ": " << r.err;
    EXPECT_NE(r.err.find(d.message), std::string::npos) << d.name << ": " << r.err;
    EXPECT_FALSE(fs::exists(dir / "out.onnx")) << d.name;
    EXPECT_FALSE(fs::exists(dir / "out_ref.bin")) << d.name;
  }
  auto in = test::random_input({1, 8}, 1);
  if (d.session_refuses) {
    try {
      test::run_model(dir / "c.onnx", {{"x", in}});
      ADD_FAILURE() << d.name << ": the session loaded";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(d.message), std::string::npos) << d.name << ": " << e.what();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Damages, BrokenBlob, ::testing::Range(0, 8), [](const auto& info) {
  std::string n = damages()[static_cast<std::size_t>(info.param)].name;
  for (auto& c : n)
    if (c == ' ') c = '_';
  return n;
});

TEST(EpContextCli, ValidationReadsEveryWeightByte) {
  test::TempDir dir;
  compile_small(dir);
  test::flip_byte(dir / "c_ref.bin", fs::file_size(dir / "c_ref.bin") - 2);
  try {
    compile::validate_compiled(dir / "c.onnx", {});
    ADD_FAILURE() << "validated";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("c_ref.bin: ref blob checksum mismatch in its weights"), std::string::npos)
        << e.what();
  }
}

TEST(EpContextCli, SwappedSidecarOfAnotherPartitionIsRefused) {
  test::TempDir dir;
  test::write_model(test::model_with_custom_op(), dir / "in.onnx");
  ASSERT_EQ(test::run_cli({"compile", "-m", (dir / "in.onnx").string(), "-o", (dir / "c.onnx").string(), "--ep", "ref",
                           "--no-validate"})
                .exit_code,
            0);
  fs::rename(dir / "c_ref.bin", dir / "tmp.bin");
  fs::rename(dir / "c_ref_1.bin", dir / "c_ref.bin");
  fs::rename(dir / "tmp.bin", dir / "c_ref_1.bin");
  try {
    test::run_model(dir / "c.onnx", {{"x", test::random_input({1, 6}, 1)}});
    ADD_FAILURE() << "loaded";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("holds partition 'winml_ref_1', but node 'winml_ref_0' expects partition "
                                         "'winml_ref_0'"),
              std::string::npos)
        << e.what();
  }
}
