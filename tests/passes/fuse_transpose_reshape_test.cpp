// fuse_consecutive_transposes and fuse_consecutive_reshapes.
#include <gtest/gtest.h>

#include "pass_harness.h"
#include "support/model_builder.h"
#include "support/ort_oracle.h"

using namespace winml;
using test::count_op;

TEST(FuseConsecutiveTransposes, ComposesPermutations) {
  test::GraphBuilder b;
  b.input("x", {2, 3, 4, 5});
  auto& t1 = b.node("Transpose", {"x"}, {"t1"});
  test::set_attr(t1, "perm", std::vector<std::int64_t>{0, 2, 3, 1});
  auto& t2 = b.node("Transpose", {"t1"}, {"t2"});
  test::set_attr(t2, "perm", std::vector<std::int64_t>{3, 1, 0, 2});
  auto& t3 = b.node("Transpose", {"t2"}, {"y"});
  test::set_attr(t3, "perm", std::vector<std::int64_t>{1, 0, 2, 3});
  b.output("y", {4, 3, 2, 5});
  auto model = test::make_model(b.graph());
  auto o = test::optimize_with(model, {"fuse_consecutive_transposes", "eliminate_dead_nodes"});
  EXPECT_EQ(count_op(o.model.proto.graph(), "Transpose"), 1);
  test::expect_same_outputs(model, o.model.proto, {{"x", test::random_tensor({2, 3, 4, 5}, 1)}}, 0);
}

TEST(FuseConsecutiveTransposes, InversePairDisappears) {
  test::GraphBuilder b;
  b.input("x", {2, 3, 4});
  auto& t1 = b.node("Transpose", {"x"}, {"t1"});
  test::set_attr(t1, "perm", std::vector<std::int64_t>{1, 2, 0});
  auto& t2 = b.node("Transpose", {"t1"}, {"t2"});
  test::set_attr(t2, "perm", std::vector<std::int64_t>{2, 0, 1});
  b.node("Relu", {"t2"}, {"y"});
  b.output("y", {2, 3, 4});
  auto model = test::make_model(b.graph());
  auto o =
      test::optimize_with(model, {"fuse_consecutive_transposes", "eliminate_nop_transpose", "eliminate_dead_nodes"});
  EXPECT_EQ(count_op(o.model.proto.graph(), "Transpose"), 0);
  test::expect_same_outputs(model, o.model.proto, {{"x", test::random_tensor({2, 3, 4}, 1)}}, 0);
}

TEST(FuseConsecutiveReshapes, CollapsesReshapeSqueezeUnsqueezeFlattenChains) {
  test::GraphBuilder b;
  b.input("x", {"batch", 2, 3, 4});
  b.initializer_i64("s1", {3}, {-1, 6, 4});
  b.initializer_i64("ax", {1}, {1});
  b.initializer_i64("s2", {2}, {-1, 24});
  b.node("Reshape", {"x", "s1"}, {"r1"});
  b.node("Unsqueeze", {"r1", "ax"}, {"u"});
  auto& f = b.node("Flatten", {"u"}, {"f"});
  test::set_attr(f, "axis", std::int64_t{1});
  b.node("Reshape", {"f", "s2"}, {"y"});
  b.output("y", {"batch", 24});
  auto model = test::make_model(b.graph(), 13);
  auto o = test::optimize_with(model, {"infer_shapes", "fuse_consecutive_reshapes", "eliminate_dead_nodes"});
  EXPECT_EQ(o.model.proto.graph().node_size(), 1);
  EXPECT_EQ(count_op(o.model.proto.graph(), "Reshape"), 1);
  test::expect_checker_accepts(o.model.proto);
  test::expect_same_outputs(model, o.model.proto, {{"x", test::random_tensor({3, 2, 3, 4}, 1)}}, 0);
}

TEST(FuseConsecutiveReshapes, WritesTheKnownOutputShapeWhenTheTargetCopiesDimensions) {
  test::GraphBuilder b;
  b.input("x", {"n", 6});
  b.initializer_i64("s1", {3}, {-1, 2, 3});
  b.initializer_i64("s2", {3}, {0, 0, 3});  // 0 copies a dim of the middle value
  b.node("Reshape", {"x", "s1"}, {"r1"});
  b.node("Reshape", {"r1", "s2"}, {"y"});
  b.output("y", {"n", 2, 3});
  auto model = test::make_model(b.graph(), 13);
  auto o = test::optimize_with(model, {"fuse_consecutive_reshapes", "eliminate_dead_nodes"});
  // The 0s copy dims of the middle value, so the target cannot be reused as it
  // is; the declared output shape [n, 2, 3] becomes the new target [-1, 2, 3].
  ASSERT_EQ(count_op(o.model.proto.graph(), "Reshape"), 1);
  EXPECT_EQ(o.model.proto.graph().node(0).input(0), "x");
  test::expect_same_outputs(model, o.model.proto, {{"x", test::random_tensor({4, 6}, 1)}}, 0);
}
