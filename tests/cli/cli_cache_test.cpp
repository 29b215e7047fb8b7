// The content-addressed cache through the CLI: warm-cache clones, corrupt
// blobs, and the cache subcommands.
#include <gtest/gtest.h>

#include "base/path_text.h"
#include "support/project.h"
#include "store/cache.h"
#include "store/digest.h"

using namespace winml;
using test::Project;
namespace fs = std::filesystem;

namespace {

std::string output_digest(const Project& p, const std::string& model, int stage) {
  auto m = nlohmann::json::parse(test::read_text(p.out(model, "build_manifest.json")));
  return m["stages"][stage]["outputs"][0]["digest"];
}

}  // namespace

TEST(CacheCli, CloneInAnotherDirectoryWithAWarmCacheRerunsNoStage) {
  Project a, b;
  a.write_small_project();
  a.build();
  a.clone_to(b.root());
  b.use_cache(a.cache_dir());
  auto r = b.build();
  EXPECT_EQ(test::stages_with(r, "net", "completed").size(), 0u) << r.dump();
  EXPECT_EQ(test::stages_with(r, "net", "cached").size(), 6u);
  EXPECT_EQ(test::artifacts(a.root() / "build"), test::artifacts(b.root() / "build"));
  auto ma = nlohmann::json::parse(test::read_text(a.out("net", "build_manifest.json")));
  auto mb = nlohmann::json::parse(test::read_text(b.out("net", "build_manifest.json")));
  EXPECT_EQ(ma["cache_key"], mb["cache_key"]);
  EXPECT_EQ(mb["stages"][3]["status"], "cached");
}

TEST(CacheCli, CorruptBlobIsDetectedDiscardedAndRebuilt) {
  Project p;
  p.write_small_project();
  p.build();
  const std::string digest = output_digest(p, "net", 3);  // quantized.onnx
  store::LocalCache cache(p.cache_dir());
  fs::path blob = cache.blob_path(*store::Digest::from_hex(digest));
  ASSERT_TRUE(fs::exists(blob));
  std::string bytes = test::read_text(blob);
  bytes[bytes.size() / 3] ^= 0x01;
  test::write_text(blob, bytes);
  ASSERT_EQ(p.run({"clean"}).exit_code, 0);
  auto r = p.build();
  // Stand-in stages copy their input, so several stages may share this blob:
  // the first to restore it finds the corruption and reruns; the rebuild
  // stores a good copy that the later ones restore.
  bool found = false;
  for (const auto& st : r["models"][0]["stages"]) {
    if (st["status"] == "skipped") continue;
    bool uses_blob = st["outputs"][0]["digest"] == digest;
    if (uses_blob && !found) {
      found = true;
      EXPECT_EQ(st["status"], "completed") << st.dump();
      std::string reason = st["reason"];
      EXPECT_NE(reason.find("local cache entry refused: content does not match its digest (blob " + digest),
                std::string::npos)
          << reason;
      EXPECT_NE(reason.find("is corrupt"), std::string::npos) << reason;
    } else {
      EXPECT_EQ(st["status"], "cached") << st.dump();
    }
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(store::hash_file(p.out("net", "quantized.onnx")).hex(), digest);
  EXPECT_EQ(store::hash_file(blob).hex(), digest);  // the rebuild stored a good copy
}

TEST(CacheCli, StatsVerifyAndGc) {
  Project p;
  p.write_small_project();
  p.build();
  auto stats = p.run({"cache", "stats"});
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  EXPECT_NE(stats.out.find("6 entries, "), std::string::npos) << stats.out;
  auto ok = p.run({"cache", "verify"});
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
  EXPECT_NE(ok.out.find("all good"), std::string::npos) << ok.out;
  // Corrupt one blob: verify removes it and the entries that need it.
  fs::path blob = store::LocalCache(p.cache_dir()).blob_path(*store::Digest::from_hex(output_digest(p, "net", 0)));
  test::write_text(blob, "garbage");
  auto bad = p.run({"cache", "verify"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.out.find("removed corrupt blob"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("needs missing blob"), std::string::npos) << bad.out;
  EXPECT_EQ(p.run({"cache", "verify"}).exit_code, 0);
  auto gc = p.run({"cache", "gc", "--max-size", "0"});
  EXPECT_EQ(gc.exit_code, 0) << gc.err;
  EXPECT_NE(p.run({"cache", "stats"}).out.find("0 entries, 0 blobs"), std::string::npos);
  EXPECT_EQ(p.run({"cache", "gc", "--max-size", "lots"}).exit_code, 2);
}

TEST(CacheCli, GcKeepsRecentlyUsedEntries) {
  Project p;
  p.write_small_project();
  p.build();
  auto before = store::LocalCache(p.cache_dir()).stats();
  // A limit above the current size removes nothing.
  auto gc = p.run({"cache", "gc", "--max-size", std::to_string(before.bytes + 1)});
  EXPECT_NE(gc.out.find("removed 0 entries and 0 blobs"), std::string::npos) << gc.out;
}

TEST(CacheCli, NoCacheNeitherReadsNorWrites) {
  Project p;
  p.write_small_project();
  p.build({"--no-cache"});
  EXPECT_FALSE(fs::exists(p.cache_dir()));
  p.write_config("[model]\nsource = \"net.onnx\"\n[build]\ncache = false\n");
  p.build();
  EXPECT_FALSE(fs::exists(p.cache_dir()));
  auto dir = p.root() / "elsewhere";
  p.write_config("[model]\nsource = \"net.onnx\"\n");
  auto r = p.build({"--cache-dir", dir.string(), "--rebuild"});
  EXPECT_TRUE(fs::exists(dir / "ac"));
  EXPECT_TRUE(fs::exists(dir / "cas"));
}

TEST(CacheCli, ACacheDirectoryThatCannotBeMadeIsAnInputErrorNamingIt) {
  Project p;
  p.write_small_project();
  p.write("afile", "not a directory");
  const fs::path dir = p.root() / "afile/cache";
  auto r = p.run({"--cache-dir", dir.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(to_utf8(dir) + ": cannot create the directory: Not a directory"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--no-cache builds without one"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("filesystem error"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(p.out("net", "export.onnx")));
  EXPECT_EQ(test::read_text(p.root() / "afile"), "not a directory");
}
