#include <gtest/gtest.h>

#include <set>

#include "base/error.h"
#include "compile/partition.h"
#include "support/model_builder.h"

using namespace winml;
using compile::Partition;

namespace {

// Supported unless the op is "U".
std::vector<Partition> split(const onnx::GraphProto& g) {
  return compile::partition_graph(g, [&](int i) { return g.node(i).op_type() != "U"; });
}

std::vector<std::string> names_of(const onnx::GraphProto& g, const Partition& p) {
  std::vector<std::string> out;
  for (int i : p.nodes) out.push_back(g.node(i).name());
  return out;
}

using Names = std::vector<std::string>;

}  // namespace

TEST(Partition, FullySupportedGraphIsOnePartition) {
  auto m = test::linear_model(4, 3);
  auto parts = split(m.graph());
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(names_of(m.graph(), parts[0]), (Names{"matmul", "add", "relu"}));
  EXPECT_EQ(parts[0].inputs, Names{"x"});
  EXPECT_EQ(parts[0].initializers, (Names{"W", "b"}));
  EXPECT_EQ(parts[0].outputs, Names{"y"});
}

TEST(Partition, UnsupportedNodeSplitsAndBoundariesFollowUses) {
  test::GraphBuilder b;
  b.input("x", {1, 4});
  b.node("Relu", {"x"}, {"a"}, "A");
  b.node("U", {"a"}, {"u"}, "U1");
  b.node("Sigmoid", {"u"}, {"c"}, "C");
  b.node("Add", {"c", "a"}, {"y"}, "D");  // reads across the unsupported node
  b.output("y", {1, 4});
  auto parts = split(b.graph());
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(names_of(b.graph(), parts[0]), Names{"A"});
  EXPECT_EQ(parts[0].outputs, Names{"a"});
  EXPECT_EQ(names_of(b.graph(), parts[1]), (Names{"C", "D"}));
  EXPECT_EQ(parts[1].inputs, (Names{"u", "a"}));
  EXPECT_EQ(parts[1].outputs, Names{"y"});
}

TEST(Partition, NodesOnBothSidesOfAnUnsupportedPathNeverShareAPartition) {
  // A -> U -> C and A -> C: merging A and C would need U inside.
  test::GraphBuilder b;
  b.input("x", {1, 4});
  b.node("Relu", {"x"}, {"a"}, "A");
  b.node("U", {"a"}, {"u"}, "U1");
  b.node("Add", {"a", "u"}, {"c"}, "C");
  b.node("Relu", {"x"}, {"p"}, "P");  // independent branch: joins A's level
  b.node("Add", {"c", "p"}, {"y"}, "Y");
  b.output("y", {1, 4});
  auto parts = split(b.graph());
  ASSERT_EQ(parts.size(), 3u);
  std::set<Names> got;
  for (const auto& p : parts) got.insert(names_of(b.graph(), p));
  EXPECT_EQ(got, (std::set<Names>{{"A"}, {"P"}, {"C", "Y"}}));
  // Executable in order: every partition input is produced by a graph
  // input, an earlier partition or the unsupported node.
  std::set<std::string> available{"x", "u"};
  for (const auto& p : parts) {
    for (const auto& in : p.inputs) EXPECT_TRUE(available.count(in)) << in;
    available.insert(p.outputs.begin(), p.outputs.end());
  }
}

TEST(Partition, SubgraphCapturesAreInputs) {
  test::GraphBuilder then_b("then"), else_b("else");
  then_b.node("Relu", {"outer"}, {"t"}, "t_relu");
  then_b.output("t", {1});
  else_b.node("Neg", {"outer"}, {"e"}, "e_neg");
  else_b.output("e", {1});
  test::GraphBuilder b;
  b.input("cond", {}, onnx::TensorProto::BOOL);
  b.input("x", {1});
  b.node("Sigmoid", {"x"}, {"outer"}, "S");
  auto& n = b.node("If", {"cond"}, {"y"}, "IF");
  test::set_attr(n, "then_branch", then_b.graph());
  test::set_attr(n, "else_branch", else_b.graph());
  b.output("y", {1});
  EXPECT_EQ(compile::node_reads(b.graph().node(1)), (Names{"cond", "outer"}));
  auto parts = compile::partition_graph(b.graph(), [&](int i) { return i == 1; });
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].inputs, (Names{"cond", "outer"}));
}

TEST(Partition, TopologicalOrderSortsAndFindsCycles) {
  test::GraphBuilder b;
  b.input("x", {1});
  b.node("Relu", {"m"}, {"y"}, "second");
  b.node("Relu", {"x"}, {"m"}, "first");
  EXPECT_EQ(compile::topological_order(b.graph()), (std::vector<int>{1, 0}));
  test::GraphBuilder c;
  c.node("Relu", {"q"}, {"p"}, "p");
  c.node("Relu", {"p"}, {"q"}, "q");
  EXPECT_THROW(compile::topological_order(c.graph()), InputError);
}
