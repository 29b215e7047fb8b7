// The build state: records survive a restart through snapshot and journal,
// and a torn or corrupt record is never trusted.
#include <gtest/gtest.h>

#include <fstream>

#include "store/build_state.h"
#include "store/ingredient_log.h"
#include "store/record_io.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

store::NodeRecord record(const std::string& seed) {
  store::NodeRecord r;
  r.key = store::digest_of(seed);
  r.implementation = "fake/1";
  r.elapsed_seconds = 0.5;
  r.metrics_json = R"({"note":"tab\there"})";
  r.outputs = {{"out.onnx", store::digest_of(seed + "o"), 10}, {"out.onnx.data", store::digest_of(seed + "d"), 20}};
  return r;
}

}  // namespace

TEST(RecordIo, ChecksumRejectsAFlippedByteAndATornLine) {
  std::string text;
  store::RecordWriter w;
  w.field("N").field("a\tb\\c\nd");
  w.finish(text);
  w.field("N").field("second");
  w.finish(text);
  store::RecordReader ok(text);
  std::vector<std::string_view> f;
  ASSERT_TRUE(ok.next(f));
  EXPECT_EQ(store::field_text(f[1]), "a\tb\\c\nd");
  ASSERT_TRUE(ok.next(f));
  EXPECT_FALSE(ok.next(f));
  EXPECT_FALSE(ok.corrupt());

  std::string flipped = text;
  flipped[20] ^= 1;
  store::RecordReader bad(flipped);
  EXPECT_FALSE(bad.next(f));
  EXPECT_TRUE(bad.corrupt());

  std::string torn = text.substr(0, text.size() - 3);
  store::RecordReader t(torn);
  EXPECT_TRUE(t.next(f));
  EXPECT_FALSE(t.next(f));
  EXPECT_TRUE(t.corrupt());
}

TEST(RecordIo, NumbersAndDigestsParseExactlyWhatTheWriterWrites) {
  std::uint64_t u = 0;
  std::int64_t i = 0;
  EXPECT_TRUE(store::parse_u64("18446744073709551615", u));
  EXPECT_EQ(u, UINT64_MAX);
  EXPECT_TRUE(store::parse_u64("0", u));
  EXPECT_EQ(u, 0u);
  for (const char* bad : {"", "18446744073709551616", "99999999999999999999", "-1", "+1", "12a", " 1", "1 "})
    EXPECT_FALSE(store::parse_u64(bad, u)) << bad;
  EXPECT_TRUE(store::parse_i64("-9223372036854775808", i));
  EXPECT_EQ(i, INT64_MIN);
  EXPECT_TRUE(store::parse_i64("9223372036854775807", i));
  EXPECT_EQ(i, INT64_MAX);
  EXPECT_TRUE(store::parse_i64("-42", i));
  EXPECT_EQ(i, -42);
  for (const char* bad : {"", "-", "9223372036854775808", "-9223372036854775809", "--1", "4x"})
    EXPECT_FALSE(store::parse_i64(bad, i)) << bad;
  const store::Digest d = store::digest_of("some bytes");
  EXPECT_EQ(store::Digest::from_hex(d.hex()), d);
  std::string upper = d.hex();
  upper[7] = 'G';
  EXPECT_FALSE(store::Digest::from_hex(upper));
  for (char c : {'A', '/', ':', '`', 'g', '\0', '\xff'}) {
    std::string s = d.hex();
    s[31] = c;
    EXPECT_FALSE(store::Digest::from_hex(s)) << static_cast<int>(c);
  }
  EXPECT_FALSE(store::Digest::from_hex(d.hex().substr(1)));
}

TEST(BuildState, JournalAloneSurvivesACrashBeforeTheSnapshot) {
  test::TempDir dir;
  {
    store::BuildState s(store::real_disk(), dir / "state", dir.path());
    s.load();
    s.put("m/optimize", record("a"));
    s.put_model_sidecars(store::digest_of("model"), {"m.onnx.data"});
    // No save(): as if killed here.
  }
  store::BuildState s(store::real_disk(), dir / "state", dir.path());
  s.load();
  auto r = s.find("m/optimize");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->key, record("a").key);
  EXPECT_EQ(r->outputs, record("a").outputs);
  EXPECT_EQ(r->metrics_json, record("a").metrics_json);
  EXPECT_EQ(s.model_sidecars(store::digest_of("model")), (std::vector<std::string>{"m.onnx.data"}));
}

TEST(BuildState, AStateKeptInMemoryLeavesTheFilesAsTheyAre) {
  test::TempDir dir;
  {
    store::BuildState s(store::real_disk(), dir / "state", dir.path());
    s.load();
    s.put("m/export", record("a"));
    s.save();
    s.put("m/optimize", record("b"));  // journaled only
  }
  auto files = [&] { return test::read_text(dir / "state" / "state") + "|" + test::read_text(dir / "state" / "journal"); };
  const std::string before = files();
  {
    // A dry run or a status beside a build that holds the lock.
    store::BuildState s(store::real_disk(), dir / "state", dir.path());
    s.keep_in_memory();
    s.load();
    EXPECT_TRUE(s.find("m/optimize"));
    s.put("m/quantize", record("c"));
    s.erase("m/export");
    s.put_model_sidecars(store::digest_of("model"), {"m.onnx.data"});
    EXPECT_TRUE(s.find("m/quantize"));
    EXPECT_FALSE(s.find("m/export"));
    EXPECT_EQ(s.model_sidecars(store::digest_of("model")), (std::vector<std::string>{"m.onnx.data"}));
    s.save();
  }
  EXPECT_EQ(files(), before);
  store::BuildState s(store::real_disk(), dir / "state", dir.path());
  s.load();
  EXPECT_TRUE(s.find("m/export"));
  EXPECT_FALSE(s.find("m/quantize"));
  EXPECT_FALSE(s.model_sidecars(store::digest_of("model")));
  // Kept in memory from the start: not even a state folder is made.
  store::BuildState fresh(store::real_disk(), dir / "fresh", dir.path());
  fresh.keep_in_memory();
  fresh.load();
  fresh.put_model_sidecars(store::digest_of("model"), {});
  fresh.save();
  EXPECT_FALSE(fs::exists(dir / "fresh"));
}

TEST(BuildState, TornJournalTailIsIgnoredAndCutBeforeNewRecords) {
  test::TempDir dir;
  {
    store::BuildState s(store::real_disk(), dir / "state", dir.path());
    s.load();
    s.put("m/a", record("a"));
    s.put("m/b", record("b"));
  }
  // Tear the last record in half.
  fs::path journal = dir / "state" / "journal";
  auto size = fs::file_size(journal);
  fs::resize_file(journal, size - 30);
  {
    store::BuildState s(store::real_disk(), dir / "state", dir.path());
    s.load();
    EXPECT_TRUE(s.find("m/a"));
    EXPECT_FALSE(s.find("m/b"));
    s.put("m/c", record("c"));
  }
  store::BuildState s(store::real_disk(), dir / "state", dir.path());
  s.load();
  EXPECT_TRUE(s.find("m/a"));
  EXPECT_TRUE(s.find("m/c"));
}

TEST(BuildState, SnapshotFoldsTheJournalAndStaleJournalIsIgnored) {
  test::TempDir dir;
  {
    store::BuildState s(store::real_disk(), dir / "state", dir.path());
    s.load();
    s.put("m/a", record("a"));
    s.save();
    EXPECT_FALSE(fs::exists(dir / "state" / "journal"));
    s.put("m/a", record("a2"));
    s.erase("m/a");
    s.put("m/b", record("b"));
  }
  store::BuildState s(store::real_disk(), dir / "state", dir.path());
  s.load();
  EXPECT_FALSE(s.find("m/a"));
  ASSERT_TRUE(s.find("m/b"));
  s.save();
  // A journal left over from an older generation adds nothing.
  std::string old_journal;
  store::RecordWriter w;
  w.field("H").field("winml-make-journal").field(std::uint64_t{1}).field(std::uint64_t{1});
  w.finish(old_journal);
  w.field("D").field("m/b");
  w.finish(old_journal);
  std::ofstream(dir / "state" / "journal") << old_journal;
  store::BuildState again(store::real_disk(), dir / "state", dir.path());
  again.load();
  EXPECT_TRUE(again.find("m/b"));
}

TEST(BuildState, CorruptSnapshotStartsEmptyWithAWarning) {
  test::TempDir dir;
  {
    store::BuildState s(store::real_disk(), dir / "state", dir.path());
    s.load();
    s.put("m/a", record("a"));
    s.save();
  }
  std::string text = test::read_text(dir / "state" / "state");
  text[text.size() / 2] ^= 0x20;
  test::write_text(dir / "state" / "state", text);
  store::BuildState s(store::real_disk(), dir / "state", dir.path());
  s.load();
  EXPECT_FALSE(s.find("m/a"));
  ASSERT_EQ(s.warnings().size(), 1u);
  EXPECT_NE(s.warnings()[0].find("is corrupt"), std::string::npos);
}

TEST(BuildState, StatCacheEntriesPersist) {
  test::TempDir dir;
  test::write_text(dir / "f", "content");
  {
    store::BuildState s(store::real_disk(), dir / "state", dir.path());
    s.load();
    s.stat_cache().digest(dir / "f");
    s.save();
  }
  store::BuildState s(store::real_disk(), dir / "state", dir.path());
  s.load();
  auto entries = s.stat_cache().entries();
  ASSERT_EQ(entries.count("f"), 1u);
  EXPECT_EQ(entries["f"].digest, store::digest_of("content"));
}

TEST(IngredientLog, StaticSetsAreSharedAndSurviveCompaction) {
  test::TempDir dir;
  std::vector<store::Ingredient> statics = {{"config:q.samples", store::digest_of("8"), "8"}};
  std::vector<store::Ingredient> dyn = {{"input:x.onnx", store::digest_of("x"), ""}};
  auto sd = store::digest_of("static");
  {
    // (The writer lets go of the file before another compacts it, as one
    // build does: Windows replaces no file a handle holds open.)
    store::IngredientLog log(store::real_disk(), dir / "ingredients");
    log.add(store::digest_of("k1"), sd, statics, dyn);
    log.add(store::digest_of("k2"), sd, statics, dyn);
  }
  store::IngredientLog reader(store::real_disk(), dir / "ingredients");
  auto got = reader.find(store::digest_of("k2"));
  ASSERT_TRUE(got);
  ASSERT_EQ(got->size(), 2u);
  EXPECT_EQ((*got)[0].text, "8");
  reader.compact({store::digest_of("k2")}, {}, /*max_bytes=*/0);
  store::IngredientLog after(store::real_disk(), dir / "ingredients");
  EXPECT_FALSE(after.find(store::digest_of("k1")));
  EXPECT_TRUE(after.find(store::digest_of("k2")));
}
