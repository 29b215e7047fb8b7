// GraphView: the producer/consumer index the passes rely on, including
// reads from inside subgraphs and edits applied by commit().
#include <gtest/gtest.h>

#include "passes/graph_view.h"
#include "support/model_builder.h"

using namespace winml;
using passes::GraphView;

namespace {
model::Model wrap(onnx::ModelProto p) {
  model::Model m;
  m.proto = std::move(p);
  m.path = "test.onnx";
  return m;
}
}  // namespace

TEST(GraphView, IndexesProducersConsumersConstantsAndTypes) {
  test::GraphBuilder b;
  b.input("x", {2, 3});
  b.initializer("w", {3}, {1, 2, 3});
  b.node("Add", {"x", "w"}, {"a"}, "add");
  b.node("Relu", {"a"}, {"y"}, "relu");
  b.node("Neg", {"a"}, {"z"}, "neg");
  b.output("y", {2, 3});
  b.output("z", {2, 3});
  auto m = wrap(test::make_model(b.graph()));
  GraphView v(*m.proto.mutable_graph(), m);
  EXPECT_EQ(v.producer("a"), 0);
  EXPECT_EQ(v.producer("x"), -1);
  EXPECT_EQ(v.consumers("a"), (std::vector<int>{1, 2}));
  EXPECT_EQ(v.use_count("y"), 1);  // graph output
  ASSERT_NE(v.constant("w"), nullptr);
  EXPECT_EQ(v.constant("x"), nullptr);
  EXPECT_EQ(v.static_shape("w"), (std::vector<std::int64_t>{3}));
  EXPECT_EQ(v.static_shape("x"), (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(v.elem_type("x"), onnx::TensorProto::FLOAT);
}

TEST(GraphView, SubgraphReadsCountAsUsesOfTheHoldingNode) {
  test::GraphBuilder then_b("then"), else_b("else");
  then_b.node("Identity", {"outer"}, {"t"});
  then_b.output("t", {2});
  else_b.node("Neg", {"outer"}, {"e"});
  else_b.output("e", {2});
  test::GraphBuilder b;
  b.input("c", {}, onnx::TensorProto::BOOL);
  b.input("x", {2});
  b.node("Relu", {"x"}, {"outer"}, "relu");
  auto& iff = b.node("If", {"c"}, {"y"}, "if");
  test::set_attr(iff, "then_branch", then_b.graph());
  test::set_attr(iff, "else_branch", else_b.graph());
  b.output("y", {2});
  auto m = wrap(test::make_model(b.graph()));
  GraphView v(*m.proto.mutable_graph(), m);
  EXPECT_EQ(v.consumers("outer"), (std::vector<int>{1}));

  // Rewiring reaches into the branches.
  v.replace_uses("outer", "x");
  v.remove_node(0);
  v.commit();
  ASSERT_EQ(m.proto.graph().node_size(), 1);
  const auto& if_node = m.proto.graph().node(0);
  EXPECT_EQ(if_node.attribute(0).g().node(0).input(0), "x");
  EXPECT_EQ(if_node.attribute(1).g().node(0).input(0), "x");
}

TEST(GraphView, BypassKeepsGraphOutputNames) {
  test::GraphBuilder b;
  b.input("x", {4});
  b.node("Relu", {"x"}, {"r"}, "relu");
  b.node("Identity", {"r"}, {"y"}, "id");
  b.output("y", {4});
  auto m = wrap(test::make_model(b.graph()));
  GraphView v(*m.proto.mutable_graph(), m);
  ASSERT_TRUE(v.bypass(1, "r", "y"));
  v.commit();
  ASSERT_EQ(m.proto.graph().node_size(), 1);
  EXPECT_EQ(m.proto.graph().node(0).output(0), "y");
  EXPECT_EQ(m.proto.graph().output(0).name(), "y");
}

TEST(GraphView, BypassRefusesWhenTheInputIsAGraphInput) {
  test::GraphBuilder b;
  b.input("x", {4});
  b.node("Identity", {"x"}, {"y"}, "id");
  b.output("y", {4});
  auto m = wrap(test::make_model(b.graph()));
  GraphView v(*m.proto.mutable_graph(), m);
  EXPECT_FALSE(v.bypass(0, "x", "y"));
}

TEST(GraphView, CommitPlacesNewNodesAndRestoresTopologicalOrder) {
  test::GraphBuilder b;
  b.input("x", {4});
  b.node("Relu", {"x"}, {"a"}, "first");
  b.node("Neg", {"a"}, {"y"}, "second");
  b.output("y", {4});
  auto m = wrap(test::make_model(b.graph()));
  GraphView v(*m.proto.mutable_graph(), m);
  // A node reading "a" anchored before its producer must still come after it.
  auto n = onnx::NodeProto();
  n.set_op_type("Abs");
  n.add_input("a");
  n.add_output("b");
  v.add_node(n, 0);
  v.set_input(1, 0, "b");
  v.commit();
  std::vector<std::string> order;
  for (const auto& node : m.proto.graph().node()) order.push_back(node.op_type());
  EXPECT_EQ(order, (std::vector<std::string>{"Relu", "Abs", "Neg"}));
}

TEST(GraphView, UniqueNamesAvoidEveryNameInTheModel) {
  test::GraphBuilder b;
  b.input("x", {4});
  b.node("Relu", {"x"}, {"x_1"}, "x_2");
  b.output("x_1", {4});
  auto m = wrap(test::make_model(b.graph()));
  GraphView v(*m.proto.mutable_graph(), m);
  EXPECT_EQ(v.unique_name("x"), "x_3");
  EXPECT_EQ(v.unique_name("x"), "x_4");
  EXPECT_EQ(v.unique_name("fresh"), "fresh");
}

TEST(GraphView, ReadOnlyViewsRefuseEdits) {
  test::GraphBuilder b;
  b.input("x", {4});
  b.node("Relu", {"x"}, {"y"});
  b.output("y", {4});
  auto m = wrap(test::make_model(b.graph()));
  auto v = GraphView::read_only(m.proto.graph(), m);
  EXPECT_EQ(v.producer("y"), 0);
  EXPECT_THROW(v.remove_node(0), std::logic_error);
}
