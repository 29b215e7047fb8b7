// A poisoned local cache heals. An export entry that breaks the output rules
// (or whose files are not its artifact's) is found by `cache verify`, and a
// build that meets it treats it as a miss, rebuilds and replaces it: exit 0,
// the clean build's bytes, the refusal in one warning and in --json.
#include <gtest/gtest.h>

#include <functional>

#include "base/path_text.h"
#include "support/project.h"
#include "store/cache.h"
#include "store/digest.h"

using namespace winml;
using test::Project;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Poison {
  std::string name;
  std::string reason;
  std::function<void(store::LocalCache&, store::ActionEntry&)> apply;
};

void PrintTo(const Poison& p, std::ostream* os) { *os << p.name; }

// A blob written into the cache as a writer of the shared directory could.
store::OutputFile put_blob(store::LocalCache& cache, const std::string& name, const std::string& bytes) {
  const store::Digest d = store::digest_of(bytes);
  fs::create_directories(cache.blob_path(d).parent_path());
  test::write_text(cache.blob_path(d), bytes);
  return {name, d, bytes.size()};
}

store::Digest export_key(const json& report) {
  return *store::Digest::from_hex(report["models"][0]["stages"][0]["key"].get<std::string>());
}

class PoisonedLocalEntry : public ::testing::TestWithParam<Poison> {};

TEST_P(PoisonedLocalEntry, IsFoundByVerifyAndHealedByTheNextBuild) {
  const Poison& poison = GetParam();
  Project a;
  a.write_small_project();
  const json first = a.build();
  const store::Digest key = export_key(first);
  store::LocalCache cache(a.cache_dir());
  auto entry = cache.lookup(key);
  ASSERT_TRUE(entry);
  const auto genuine = entry->outputs;
  poison.apply(cache, *entry);
  cache.put_entry(*entry);

  // verify, on a copy of the poisoned cache.
  Project v;
  fs::copy(a.cache_dir(), v.cache_dir(), fs::copy_options::recursive);
  auto verify = v.run({"cache", "verify"});
  EXPECT_EQ(verify.exit_code, 1) << verify.out << verify.err;
  EXPECT_NE(verify.out.find("removed entry " + to_utf8(store::LocalCache(v.cache_dir()).entry_path(key)) + ": " +
                            poison.reason),
            std::string::npos)
      << verify.out;
  EXPECT_EQ(v.run({"cache", "verify"}).exit_code, 0) << "a second verify found more";

  // A clone using the poisoned cache.
  Project b;
  a.clone_to(b.root());
  b.use_cache(a.cache_dir());
  json r = b.build();
  EXPECT_EQ(test::artifacts(a.root() / "build"), test::artifacts(b.root() / "build"));
  EXPECT_EQ(test::statuses(r).at("net/export"), "completed") << r.dump();
  EXPECT_EQ(test::stages_with(r, "net", "cached").size(), 5u);
  const std::string err = r.value("_stderr", "");
  EXPECT_NE(err.find("1 cache entry refused, the stage ran instead: 1 " + poison.reason + " (local)"),
            std::string::npos)
      << err;
  ASSERT_EQ(r["cache_rejections"].size(), 1u) << r.dump();
  EXPECT_EQ(r["cache_rejections"][0]["source"], "local");
  // Replaced by the rebuild's entry; the cache is whole again.
  auto healed = store::LocalCache(a.cache_dir()).lookup(key);
  ASSERT_TRUE(healed);
  EXPECT_EQ(healed->outputs, genuine);
  auto again = b.run({"cache", "verify"});
  EXPECT_EQ(again.exit_code, 0) << again.out;
  fs::remove_all(b.root() / "build");
  EXPECT_EQ(test::stages_with(b.build(), "net", "cached").size(), 6u);
}

INSTANTIATE_TEST_SUITE_P(Cache, PoisonedLocalEntry,
                         ::testing::Values(Poison{"TmpNamedExtraOutput", "outputs break the rules",
                                                  [](store::LocalCache& c, store::ActionEntry& e) {
                                                    e.outputs.push_back(put_blob(c, "x.winml-tmp.1", "junk"));
                                                  }},
                                           Poison{"ThreeHundredCharacterName", "outputs break the rules",
                                                  [](store::LocalCache& c, store::ActionEntry& e) {
                                                    e.outputs.push_back(put_blob(c, std::string(300, 'x'), "junk"));
                                                  }},
                                           Poison{"DuplicatedOutputName", "outputs break the rules",
                                                  [](store::LocalCache& c, store::ActionEntry& e) {
                                                    e.outputs.push_back(
                                                        put_blob(c, "export.onnx", "another model's bytes"));
                                                  }},
                                           Poison{"TooManyOutputs", "outputs break the rules",
                                                  [](store::LocalCache& c, store::ActionEntry& e) {
                                                    const store::OutputFile one = put_blob(c, "f", "x");
                                                    for (int i = 0; i < 2000; ++i)
                                                      e.outputs.push_back({"f" + std::to_string(i), one.digest, 1});
                                                  }},
                                           Poison{"AFileTheArtifactDoesNotName", "outputs are not the stage's artifact",
                                                  [](store::LocalCache& c, store::ActionEntry& e) {
                                                    e.outputs.push_back(
                                                        put_blob(c, "notes.txt", "not referenced by the model"));
                                                  }}),
                         [](const auto& info) { return info.param.name; });

}  // namespace
