// --shard I/N: which models a shard holds.
#include <gtest/gtest.h>

#include <set>

#include "base/error.h"
#include "pipeline/shard.h"

using namespace winml;

TEST(Shard, ParsesIOfNAndSplitsModelsStablyAndCompletely) {
  EXPECT_THROW(pipeline::parse_shard("0/2"), InputError);
  EXPECT_THROW(pipeline::parse_shard("3/2"), InputError);
  EXPECT_THROW(pipeline::parse_shard("1/0"), InputError);
  EXPECT_THROW(pipeline::parse_shard("1-2"), InputError);
  EXPECT_THROW(pipeline::parse_shard("1/2x"), InputError);
  std::vector<std::string> models;
  for (int i = 0; i < 100; ++i) models.push_back("model" + std::to_string(i));
  std::set<std::string> seen;
  for (unsigned i = 1; i <= 3; ++i) {
    const auto part = pipeline::models_in_shard(pipeline::parse_shard(std::to_string(i) + "/3"), models, {}).names();
    EXPECT_GT(part.size(), 15u) << "shard " << i << " is far from a third";
    for (const auto& m : part) EXPECT_TRUE(seen.insert(m).second) << m << " is in two shards";
  }
  EXPECT_EQ(seen.size(), models.size());
  // A model keeps its shard when others come and go.
  auto with_more = models;
  with_more.push_back("another");
  EXPECT_EQ(pipeline::models_in_shard(pipeline::parse_shard("2/3"), models, {}).contains("model7"),
            pipeline::models_in_shard(pipeline::parse_shard("2/3"), with_more, {}).contains("model7"));
}

// A shard that draws none of the selected models selects none, not every model.
TEST(Shard, AShardThatDrawsNoModelSelectsNone) {
  const std::vector<std::string> models = {"a", "b", "c"};
  for (unsigned i = 1; i <= 40; ++i) {
    const auto only_a = pipeline::models_in_shard(pipeline::parse_shard(std::to_string(i) + "/40"), models,
                                                  graph::ModelSelection::only({"a"}));
    EXPECT_FALSE(only_a.is_every_model());
    EXPECT_FALSE(only_a.contains("b"));
    EXPECT_EQ(only_a.is_none(), !only_a.contains("a"));
  }
}
