#include <gtest/gtest.h>

#include "base/text.h"

using namespace winml;

TEST(Text, EditDistance) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("same", "same"), 0u);
}

TEST(Text, NearestMatchSuggestsOnlyPlausibleKeys) {
  std::vector<std::string> keys = {"weight_type", "activation_type", "per_channel"};
  EXPECT_EQ(nearest_match("weigth_type", keys), "weight_type");
  EXPECT_EQ(nearest_match("perchannel", keys), "per_channel");
  EXPECT_EQ(nearest_match("completely_different", keys), "");
}

TEST(Text, HumanBytes) {
  EXPECT_EQ(human_bytes(12), "12 B");
  EXPECT_EQ(human_bytes(100 * 1024 * 1024), "100.0 MiB");
}
