// Bad model input: each case is refused with an InputError naming the file.
#include <gtest/gtest.h>

#include <random>

#include "base/error.h"
#include "model/external_data.h"
#include "model/model_io.h"
#include "support/model_builder.h"
#include "support/platform.h"
#include "support/temp_dir.h"

using namespace winml;
using namespace winml::model;
namespace fs = std::filesystem;

namespace {

// Loading must fail with InputError whose message names `names_file` and says `fragment`.
void expect_refused(const fs::path& model, const std::string& names_file, const std::string& fragment) {
  try {
    load_model(model);
    FAIL() << "loaded " << model;
  } catch (const InputError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find(names_file), std::string::npos) << msg;
    EXPECT_NE(msg.find(fragment), std::string::npos) << msg;
  }
}

// A model whose weights live in "<dir>/m.onnx.data", with the location string replaced.
fs::path external_model(const test::TempDir& dir, const std::string& location) {
  auto proto = test::linear_model(32, 32);
  Model m;
  m.proto = proto;
  m.path = dir / "m.onnx";
  SaveOptions opts;
  opts.external = ExternalData::kAlways;
  save_model(m, dir / "m.onnx", opts);
  if (location != "m.onnx.data") {
    for (auto& t : *m.proto.mutable_graph()->mutable_initializer())
      for (auto& kv : *t.mutable_external_data())
        if (kv.key() == "location") kv.set_value(location);
    test::write_text(dir / "m.onnx", serialize_deterministic(m.proto));
  }
  return dir / "m.onnx";
}

}  // namespace

TEST(BadModel, EmptyFile) {
  test::TempDir dir;
  test::write_text(dir / "empty.onnx", "");
  expect_refused(dir / "empty.onnx", "empty.onnx", "empty file");
}

TEST(BadModel, RandomBytes) {
  test::TempDir dir;
  std::mt19937 rng(7);
  std::string bytes(4096, '\0');
  for (auto& c : bytes) c = static_cast<char>(rng());
  test::write_text(dir / "noise.onnx", bytes);
  expect_refused(dir / "noise.onnx", "noise.onnx", "not a");
}

TEST(BadModel, TruncatedAtEveryTenthOfTheFile) {
  test::TempDir dir;
  std::string full = serialize_deterministic(test::linear_model(32, 16));
  for (int tenth = 1; tenth < 10; ++tenth) {
    test::write_text(dir / "cut.onnx", full.substr(0, full.size() * tenth / 10));
    expect_refused(dir / "cut.onnx", "cut.onnx", "");
  }
}

TEST(BadModel, MissingSidecar) {
  test::TempDir dir;
  auto model = external_model(dir, "m.onnx.data");
  fs::remove(dir / "m.onnx.data");
  expect_refused(model, "m.onnx", "missing");
}

TEST(BadModel, SidecarShorterThanOffsetPlusLength) {
  test::TempDir dir;
  auto model = external_model(dir, "m.onnx.data");
  fs::resize_file(dir / "m.onnx.data", fs::file_size(dir / "m.onnx.data") - 100);
  expect_refused(model, "m.onnx.data", "too short");
}

TEST(BadModel, ParentDirectoryLocation) {
  test::TempDir dir;
  fs::create_directories(dir / "sub");
  auto model = external_model(dir, "../x");
  expect_refused(model, "m.onnx", "'../x' is refused");
}

TEST(BadModel, AbsoluteLocation) {
  test::TempDir dir;
  auto model = external_model(dir, "/etc/passwd");
  expect_refused(model, "m.onnx", "'/etc/passwd' is refused");
}

TEST(BadModel, SymlinkLeavingTheDirectory) {
  test::TempDir outside, dir;
  auto model = external_model(dir, "link.data");
  fs::rename(dir / "m.onnx.data", outside / "real.data");
  WINML_MAKE_SYMLINK_OR_SKIP(outside / "real.data", dir / "link.data");
  expect_refused(model, "m.onnx", "outside the model's directory");
}

TEST(BadModel, SymlinkInsideTheDirectoryIsFine) {
  test::TempDir dir;
  auto model = external_model(dir, "link.data");
  WINML_MAKE_SYMLINK_OR_SKIP("m.onnx.data", dir / "link.data");
  EXPECT_NO_THROW(load_model(model));
}

TEST(BadModel, DanglingNodeInput) {
  test::TempDir dir;
  auto proto = test::linear_model(4, 4);
  proto.mutable_graph()->mutable_node(1)->set_input(0, "nowhere");
  test::write_text(dir / "m.onnx", serialize_deterministic(proto));
  expect_refused(dir / "m.onnx", "m.onnx", "'nowhere'");
}

TEST(BadModel, RawDataSizeContradictsShape) {
  test::TempDir dir;
  auto proto = test::linear_model(4, 4);
  proto.mutable_graph()->mutable_initializer(0)->mutable_raw_data()->resize(10);
  test::write_text(dir / "m.onnx", serialize_deterministic(proto));
  expect_refused(dir / "m.onnx", "m.onnx", "holds 10 bytes");
}
