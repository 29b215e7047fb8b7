// The contexts file's stored form (pipeline/plan_contexts.h): every field
// comes back as written, and a file that is not exactly one whole write is
// refused (the session then makes the contexts again from winml.toml).
#include <gtest/gtest.h>

#include "pipeline/plan_contexts.h"
#include "store/digest.h"

using namespace winml;

namespace {

pipeline::PlanContexts sample_contexts() {
  pipeline::PlanContexts c;
  c.memo_key = store::digest_of("plan");
  c.nodes.push_back({.config = {{"quantize", {{"samples", 3}, {"per_channel", true}}}},
                     .rules = {"ep/cpu.toml", "optimize/presets.toml"},
                     .environment = {"WINML_A", "WINML_B"},
                     .writes_models = true});
  c.nodes.push_back({});  // a disabled node
  c.nodes.push_back({.config = {{"export", {{"command", {"sh", "-c", "a|b\tc\nd \\ e"}}}}}, .rules = {}, .environment = {"X"}});
  c.model_settings = {"{\n  \"model\": {\"name\": \"a b|c\"}\n}\n", ""};
  return c;
}

}  // namespace

TEST(PlanContexts, EveryFieldComesBackAsWritten) {
  const pipeline::PlanContexts c = sample_contexts();
  const std::string text = pipeline::serialize_contexts(c);
  auto back = pipeline::parse_contexts(text);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->memo_key, c.memo_key);
  EXPECT_EQ(back->nodes, c.nodes);
  EXPECT_EQ(back->model_settings, c.model_settings);
  EXPECT_FALSE(back->empty());
  EXPECT_EQ(pipeline::serialize_contexts(*back), text);
  auto none = pipeline::parse_contexts(pipeline::serialize_contexts({}));
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

TEST(PlanContexts, OnlyOneWholeFileIsAccepted) {
  const std::string text = pipeline::serialize_contexts(sample_contexts());
  EXPECT_FALSE(pipeline::parse_contexts(""));
  EXPECT_FALSE(pipeline::parse_contexts(text + text)) << "records past the counts";
  int prefixes = 0;
  for (std::size_t end = text.find('\n'); end + 1 < text.size(); end = text.find('\n', end + 1)) {
    EXPECT_FALSE(pipeline::parse_contexts(text.substr(0, end + 1))) << "torn after " << end + 1 << " bytes";
    ++prefixes;
  }
  EXPECT_EQ(prefixes, 5) << "a header, three nodes and two models: one record a line";
  for (std::size_t i = 0; i < text.size(); i += 7) {
    std::string flipped = text;
    flipped[i] ^= 0x20;
    EXPECT_FALSE(pipeline::parse_contexts(flipped)) << "byte " << i << " flipped";
  }
}
