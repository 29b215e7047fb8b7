// fuse_matmul_add_into_gemm: 2-D only, with a bias Gemm can broadcast.
#include <gtest/gtest.h>

#include "pass_harness.h"
#include "support/model_builder.h"
#include "support/ort_oracle.h"

using namespace winml;
using test::count_op;

TEST(FuseMatMulAddIntoGemm, FusesTwoDimensionalMatMulWithBias) {
  for (std::vector<std::int64_t> bias_dims : {std::vector<std::int64_t>{5}, {1, 5}, {3, 5}, {}}) {
    test::GraphBuilder b;
    b.input("x", {3, 4});
    b.initializer("W", {4, 5}, test::random_floats(20, 1));
    std::size_t n = 1;
    for (auto d : bias_dims) n *= static_cast<std::size_t>(d);
    b.initializer("bias", bias_dims, test::random_floats(n, 2));
    b.node("MatMul", {"x", "W"}, {"m"});
    b.node("Add", {"m", "bias"}, {"y"});
    b.output("y", {3, 5});
    auto model = test::make_model(b.graph());
    auto o = test::optimize_with(model, {"infer_shapes", "fuse_matmul_add_into_gemm"});
    EXPECT_EQ(count_op(o.model.proto.graph(), "Gemm"), 1) << bias_dims.size();
    EXPECT_EQ(o.model.proto.graph().node_size(), 1);
    test::expect_checker_accepts(o.model.proto);
    test::expect_same_outputs(model, o.model.proto, {{"x", test::random_tensor({3, 4}, 3)}}, 1e-5);
  }
}

TEST(FuseMatMulAddIntoGemm, LeavesBatchedMatMulAlone) {
  test::GraphBuilder b;
  b.input("x", {2, 3, 4});
  b.initializer("W", {4, 5}, test::random_floats(20, 1));
  b.initializer("bias", {5}, test::random_floats(5, 2));
  b.node("MatMul", {"x", "W"}, {"m"});
  b.node("Add", {"m", "bias"}, {"y"});
  b.output("y", {2, 3, 5});
  auto o = test::optimize_with(test::make_model(b.graph()), {"infer_shapes", "fuse_matmul_add_into_gemm"});
  EXPECT_EQ(count_op(o.model.proto.graph(), "Gemm"), 0);
}

TEST(FuseMatMulAddIntoGemm, LeavesBiasThatWouldBroadcastTheProduct) {
  test::GraphBuilder b;
  b.input("x", {3, 4});
  b.initializer("W", {4, 5}, test::random_floats(20, 1));
  b.initializer("bias", {2, 3, 5}, test::random_floats(30, 2));
  b.node("MatMul", {"x", "W"}, {"m"});
  b.node("Add", {"m", "bias"}, {"y"});
  b.output("y", {2, 3, 5});
  auto o = test::optimize_with(test::make_model(b.graph()), {"infer_shapes", "fuse_matmul_add_into_gemm"});
  EXPECT_EQ(count_op(o.model.proto.graph(), "Gemm"), 0);
}
