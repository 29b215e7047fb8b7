// .npy/.pb tensor files, checked against NumPy and ONNX Runtime.
#include <gtest/gtest.h>

#include <cstring>

#include "base/error.h"
#include "model/model_io.h"
#include "model/tensor_file.h"
#include "support/cli_runner.h"
#include "support/model_builder.h"
#include "support/ort_oracle.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

TEST(TensorFile, NpyRoundTripAndNumpyAgrees) {
  test::TempDir dir;
  auto t = test::random_tensor({2, 3, 4}, 5);
  model::write_npy(dir / "a.npy", t);
  auto back = model::read_npy(dir / "a.npy");
  EXPECT_EQ(back.shape, t.shape);
  EXPECT_EQ(back.data, t.data);
  // NumPy reads what we write and writes what we read.
  auto r = test::run_program({"/usr/bin/python3", "-c",
                              "import numpy as np, sys; a = np.load(sys.argv[1]); "
                              "assert a.shape == (2, 3, 4) and a.dtype == np.float32; "
                              "np.save(sys.argv[2], (a * 2).astype(np.int64))",
                              (dir / "a.npy").string(), (dir / "b.npy").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto b = model::read_npy(dir / "b.npy");
  EXPECT_EQ(b.dtype, onnx::TensorProto::INT64);
  EXPECT_EQ(b.element_count(), 24);
}

TEST(TensorFile, OnnxTestDataPbReads) {
  auto t = model::read_tensor_pb("/usr/share/libonnx-testdata/data/node/test_add/test_data_set_0/input_0.pb");
  EXPECT_EQ(t.dtype, onnx::TensorProto::FLOAT);
  EXPECT_EQ(t.shape, (std::vector<std::int64_t>{3, 4, 5}));
}

TEST(TensorFile, MalformedFilesAreInputErrors) {
  test::TempDir dir;
  test::write_text(dir / "x.npy", "not numpy");
  EXPECT_THROW(model::read_npy(dir / "x.npy"), InputError);
  test::write_text(dir / "x.pb", "\xff\xff\xff");
  EXPECT_THROW(model::read_tensor_pb(dir / "x.pb"), InputError);
}

// Found by fuzzing: shapes whose size overflows, or that are not numbers,
// were multiplied (or thrown as std::invalid_argument) before any check.
TEST(TensorFile, HugeOrGarbledShapesAreInputErrors) {
  test::TempDir dir;
  auto npy_with_shape = [&](const std::string& shape) {
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
    header.resize(118, ' ');
    header += '\n';
    std::string bytes =
        std::string("\x93NUMPY\x01\x00", 8) + char(header.size() & 0xff) + char(header.size() >> 8) + header;
    test::write_text(dir / "x.npy", bytes + std::string(16, '\0'));
    try {
      model::read_npy(dir / "x.npy");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(npy_with_shape("(2, 2)").find("no error"), std::string::npos);  // the well-formed case reads
  EXPECT_NE(npy_with_shape("(4294967296, 4294967296)").find("more than 2^64 bytes"), std::string::npos);
  EXPECT_NE(npy_with_shape("(2, x)").find("bad shape"), std::string::npos);
  EXPECT_NE(npy_with_shape("(99999999999999999999999,)").find("bad shape"), std::string::npos);
  // A header cut after a key (no colon, no value) read past the string's end.
  for (const std::string cut :
       {"{'descr': '<f4', 'fortran_order'", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,"}) {
    std::string bytes = std::string("\x93NUMPY\x01\x00", 8) + char(cut.size()) + '\0' + cut;
    test::write_text(dir / "cut.npy", bytes);
    EXPECT_THROW(model::read_npy(dir / "cut.npy"), InputError) << cut;
  }

  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(std::int64_t{1} << 40);
  t.add_dims(std::int64_t{1} << 40);
  test::write_text(dir / "x.pb", t.SerializeAsString());
  EXPECT_THROW(model::read_tensor_pb(dir / "x.pb"), InputError);

  // The same in a model's initializer: refused when the model loads.
  model::Model m;
  m.proto = test::linear_model(8, 4);
  auto* w = m.proto.mutable_graph()->mutable_initializer(0);
  w->clear_raw_data();
  w->clear_dims();
  w->add_dims(std::int64_t{1} << 40);
  w->add_dims(std::int64_t{1} << 40);
  test::write_text(dir / "m.onnx", m.proto.SerializeAsString());
  try {
    model::load_model(dir / "m.onnx");
    ADD_FAILURE() << "loaded";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("has a shape of more than 2^64 bytes"), std::string::npos) << e.what();
  }
}

TEST(OrtOracle, RunsASmallModel) {
  test::TempDir dir;
  model::Model m;
  m.proto = test::linear_model(8, 4);
  m.path = dir / "m.onnx";
  model::save_model(m, dir / "m.onnx");
  auto x = test::random_tensor({2, 8}, 3);
  auto r = test::run_in_ort(dir / "m.onnx", {{"x", x}});
  ASSERT_TRUE(r.ok) << r.error;
  const auto& y = r.outputs.at("y");
  ASSERT_EQ(y.shape, (std::vector<std::int64_t>{2, 4}));
  // Reference: Relu(x @ W + b) computed here.
  auto W = test::random_floats(32, 1), b = test::random_floats(4, 2);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) {
      double acc = b[j];
      for (int k = 0; k < 8; ++k) acc += double(x.as<float>()[i * 8 + k]) * W[k * 4 + j];
      EXPECT_NEAR(y.as<float>()[i * 4 + j], std::max(acc, 0.0), 1e-5);
    }
}

TEST(OrtOracle, ReportsSessionErrors) {
  test::TempDir dir;
  test::write_text(dir / "c_ref.bin", "blob");
  test::write_text(dir / "c.onnx", model::serialize_deterministic(test::epcontext_model("ref", 0, "c_ref.bin")));
  auto r = test::run_in_ort(dir / "c.onnx", {});
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.error.empty());
}
