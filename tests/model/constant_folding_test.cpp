// The constant folder's decisions (model/constant_folding.h), on ONNX nodes
// with plain numbers as values: which nodes may fold, the growth limit,
// constant inputs, and which initializers stay after folding.
#include <gtest/gtest.h>

#include "model/constant_folding.h"

using namespace winml;
using model::FoldPolicy;

namespace {

onnx::NodeProto node(const std::string& op, std::vector<std::string> inputs, std::vector<std::string> outputs,
                     const std::string& domain = "") {
  onnx::NodeProto n;
  n.set_op_type(op);
  n.set_domain(domain);
  for (const auto& i : inputs) n.add_input(i);
  for (const auto& o : outputs) n.add_output(o);
  return n;
}

// Values are byte counts: a value's size is itself; evaluation sums the
// present inputs into each output, `calls` counts evaluations.
struct Numbers {
  std::map<std::string, std::uint64_t> constants;
  int calls = 0;
  model::FoldValues<std::uint64_t> values() {
    return {
        .lookup = [this](const std::string& name) -> const std::uint64_t* {
          auto it = constants.find(name);
          return it == constants.end() ? nullptr : &it->second;
        },
        .bytes = [](const std::uint64_t& v) { return v; },
        .evaluate = [this](const onnx::NodeProto& n, const std::vector<const std::uint64_t*>& in)
            -> std::optional<std::vector<std::uint64_t>> {
          ++calls;
          std::uint64_t sum = 0;
          for (const auto* v : in) sum += v ? *v : 0;
          return std::vector<std::uint64_t>(static_cast<std::size_t>(n.output_size()), sum);
        },
    };
  }
};

}  // namespace

TEST(ConstantFolding, NodesWithSubgraphsOrWithoutInputsNeverFold) {
  const FoldPolicy any;
  EXPECT_TRUE(model::may_fold(any, node("Add", {"a", "b"}, {"c"})));
  EXPECT_FALSE(model::may_fold(any, node("RandomNormal", {}, {"r"})));
  onnx::NodeProto branch = node("If", {"cond"}, {"y"});
  auto* then_branch = branch.add_attribute();
  then_branch->set_name("then_branch");
  then_branch->mutable_g()->set_name("then");
  EXPECT_FALSE(model::may_fold(any, branch));
}

TEST(ConstantFolding, KeptOpsAndOtherDomainsStayAsThePolicySays) {
  const FoldPolicy kept{.kept_ops = {"DequantizeLinear"}, .default_domain_only = true};
  EXPECT_FALSE(model::may_fold(kept, node("DequantizeLinear", {"w", "s"}, {"y"})));
  EXPECT_FALSE(model::may_fold(kept, node("Gelu", {"x"}, {"y"}, "com.microsoft")));
  EXPECT_TRUE(model::may_fold(kept, node("Gelu", {"x"}, {"y"}, "ai.onnx")));
  const FoldPolicy any_domain{.kept_ops = {"DequantizeLinear"}};
  EXPECT_TRUE(model::may_fold(any_domain, node("Gelu", {"x"}, {"y"}, "com.microsoft")));
}

TEST(ConstantFolding, GrowthIsTheLargerOfInputsAndFloorPlusTheAllowance) {
  const FoldPolicy floor{.growth_floor = 1 << 20};
  EXPECT_TRUE(model::within_growth(floor, 10, 1 << 20));
  EXPECT_FALSE(model::within_growth(floor, 10, (1 << 20) + 1));
  EXPECT_TRUE(model::within_growth(floor, 2 << 20, 2 << 20));
  EXPECT_FALSE(model::within_growth(floor, 2 << 20, (2 << 20) + 1));
  const FoldPolicy allowance{.growth_allowance = 64 * 1024};
  EXPECT_TRUE(model::within_growth(allowance, 100, 100 + 64 * 1024));
  EXPECT_FALSE(model::within_growth(allowance, 100, 101 + 64 * 1024));
}

TEST(ConstantFolding, ANodeFoldsOnlyWhenEveryPresentInputIsConstant) {
  Numbers numbers;
  numbers.constants = {{"a", 3}, {"b", 4}};
  const FoldPolicy any;
  EXPECT_FALSE(model::fold_node(any, node("Add", {"a", "x"}, {"c"}), numbers.values()));
  EXPECT_EQ(numbers.calls, 0);
  auto folded = model::fold_node(any, node("Clip", {"a", "", "b"}, {"c"}), numbers.values());
  ASSERT_TRUE(folded);
  EXPECT_EQ(*folded, (std::vector<std::uint64_t>{7}));
}

TEST(ConstantFolding, AResultOverTheGrowthLimitStays) {
  Numbers numbers;
  numbers.constants = {{"a", 100}};
  const FoldPolicy tight{.growth_allowance = 99};
  EXPECT_TRUE(model::fold_node(tight, node("Expand", {"a"}, {"b"}), numbers.values()));
  EXPECT_FALSE(model::fold_node(tight, node("Split", {"a"}, {"b", "c"}), numbers.values()));  // 200 > 100 + 99
  EXPECT_EQ(numbers.calls, 2);
}

TEST(ConstantFolding, OnlyInitializersSomethingReadsStayInTheirOrder) {
  onnx::GraphProto g;
  g.add_input()->set_name("overridable");
  g.add_output()->set_name("out_const");
  *g.add_node() = node("Add", {"x", "w"}, {"y"});
  for (const char* name : {"unread", "w", "out_const", "overridable", "captured"}) g.add_initializer()->set_name(name);
  model::drop_unread_initializers(g, [](const onnx::NodeProto& n) {
    std::vector<std::string> reads(n.input().begin(), n.input().end());
    reads.push_back("captured");  // as a subgraph's capture would be
    return reads;
  });
  std::vector<std::string> kept;
  for (const auto& t : g.initializer()) kept.push_back(t.name());
  EXPECT_EQ(kept, (std::vector<std::string>{"w", "out_const", "overridable", "captured"}));
}
