// The build state's snapshot image: what is written is read back where it
// lies, every key is found by its index, and no byte sequence makes a read
// go outside the file.
#include <gtest/gtest.h>
#include <xxhash.h>

#include <cstring>
#include <algorithm>
#include <chrono>
#include <fstream>
#include <thread>

#include "store/build_state.h"
#include "store/record_io.h"
#include "store/state_image.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

store::NodeRecord node(const std::string& seed, std::size_t outputs) {
  store::NodeRecord r;
  r.key = store::digest_of(seed);
  r.implementation = "winml-" + seed;
  r.elapsed_seconds = 0.125 + static_cast<double>(outputs);
  r.finished_ns = -7 - static_cast<std::int64_t>(outputs);
  r.metrics_json = std::string("{\"m\":\"tab\there\\nnewline\"}") + seed;
  for (std::size_t i = 0; i < outputs; ++i)
    r.outputs.push_back({"out" + std::to_string(i) + ".onnx", store::digest_of(seed + std::to_string(i)), i * 1000});
  return r;
}

store::StatEntry stat_entry(std::uint64_t n) {
  store::StatEntry e;
  e.stat.exists = true;
  e.stat.size = n;
  e.stat.mtime_ns = static_cast<std::int64_t>(n * 3);
  e.stat.ctime_ns = static_cast<std::int64_t>(n * 5);
  e.stat.inode = n * 7;
  e.stat.device = n * 11;
  e.digest = store::digest_of(std::to_string(n));
  e.stamp_ns = static_cast<std::int64_t>(n * 13);
  return e;
}

struct Contents {
  std::vector<store::NodeRecord> records;
  store::StateContents c;
};

Contents sample(std::size_t nodes, std::size_t stats) {
  Contents s;
  s.records.reserve(nodes);
  for (std::size_t i = 0; i < nodes; ++i) s.records.push_back(node("n" + std::to_string(i), i % 4));
  for (std::size_t i = 0; i < nodes; ++i) s.c.nodes.emplace("m" + std::to_string(i) + "/stage", &s.records[i]);
  for (std::size_t i = 0; i < stats; ++i) s.c.stats.emplace("dir/file" + std::to_string(i), stat_entry(i + 1));
  s.c.sidecars.emplace(store::digest_of("a"), std::vector<std::string>{"a.onnx.data", "a.bin"});
  s.c.sidecars.emplace(store::digest_of("b"), std::vector<std::string>{});
  s.c.generation = 42;
  return s;
}

std::shared_ptr<store::StateImage> open_ok(const std::string& bytes) {
  std::shared_ptr<store::StateImage> image;
  EXPECT_EQ(store::StateImage::open(bytes, nullptr, image), store::StateImage::Open::kOk);
  return image;
}

void reseal(std::string& bytes) {  // a valid checksum over whatever the bytes now are
  const std::uint64_t sum = XXH3_64bits(bytes.data() + 24, bytes.size() - 24);
  std::memcpy(bytes.data() + 16, &sum, 8);
}

}  // namespace

TEST(StateImage, EveryRecordStatAndSidecarSetReadsBackAsWrittenAndIsFoundByItsKey) {
  auto s = sample(300, 700);
  const std::string bytes = store::encode_state_image(s.c);
  EXPECT_EQ(store::encode_state_image(s.c), bytes) << "the same contents give the same bytes";
  auto image = open_ok(bytes);
  ASSERT_TRUE(image);
  EXPECT_EQ(image->generation(), 42u);
  ASSERT_EQ(image->node_count(), 300u);
  for (const auto& [id, want] : s.c.nodes) {
    const std::size_t i = image->find_node(id);
    ASSERT_NE(i, store::StateImage::kNotFound) << id;
    EXPECT_EQ(image->node_id(i), id);
    const store::NodeRecord got = image->node(i);
    EXPECT_EQ(got.key, want->key);
    EXPECT_EQ(got.implementation, want->implementation);
    EXPECT_EQ(got.elapsed_seconds, want->elapsed_seconds);
    EXPECT_EQ(got.finished_ns, want->finished_ns);
    EXPECT_EQ(got.metrics_json, want->metrics_json);
    EXPECT_EQ(got.outputs, want->outputs);
  }
  for (const auto& [key, want] : s.c.stats) {
    const std::size_t i = image->find_stat(key);
    ASSERT_NE(i, store::StateImage::kNotFound) << key;
    const store::StatEntry got = image->stat(i);
    EXPECT_TRUE(got.stat.same_identity(want.stat));
    EXPECT_EQ(got.digest, want.digest);
    EXPECT_EQ(got.stamp_ns, want.stamp_ns);
  }
  EXPECT_EQ(image->find_node("m300/stage"), store::StateImage::kNotFound);
  EXPECT_EQ(image->find_stat("dir/file"), store::StateImage::kNotFound);
  EXPECT_EQ(image->find_stat(""), store::StateImage::kNotFound);
  const std::size_t a = image->find_sidecar_set(store::digest_of("a"));
  ASSERT_NE(a, store::StateImage::kNotFound);
  EXPECT_EQ(image->sidecar_names(a), (std::vector<std::string>{"a.onnx.data", "a.bin"}));
  const std::size_t b = image->find_sidecar_set(store::digest_of("b"));
  ASSERT_NE(b, store::StateImage::kNotFound);
  EXPECT_TRUE(image->sidecar_names(b).empty());
  EXPECT_EQ(image->find_sidecar_set(store::digest_of("c")), store::StateImage::kNotFound);
}

TEST(StateImage, AnEmptyStateIsAnImageToo) {
  store::StateContents empty;
  auto image = open_ok(store::encode_state_image(empty));
  ASSERT_TRUE(image);
  EXPECT_EQ(image->node_count(), 0u);
  EXPECT_EQ(image->find_node("m/export"), store::StateImage::kNotFound);
  EXPECT_EQ(image->find_stat("f"), store::StateImage::kNotFound);
  EXPECT_EQ(image->find_sidecar_set(store::digest_of("a")), store::StateImage::kNotFound);
}

TEST(StateImage, EveryFlippedByteAndEveryCutIsRefused) {
  auto s = sample(3, 5);
  const std::string bytes = store::encode_state_image(s.c);
  std::shared_ptr<store::StateImage> image;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] ^= 0x10;
    EXPECT_NE(store::StateImage::open(bad, nullptr, image), store::StateImage::Open::kOk) << "byte " << i;
  }
  for (std::size_t n = 0; n < bytes.size(); n += 7)
    EXPECT_NE(store::StateImage::open(bytes.substr(0, n), nullptr, image), store::StateImage::Open::kOk) << n;
}

// With a valid checksum (as a fuzzer or a bug could write), a reference
// outside its section is still caught when the image is opened.
TEST(StateImage, ReferencesOutsideTheFileAreRefusedEvenUnderAValidChecksum) {
  auto s = sample(2, 2);
  const std::string good = store::encode_state_image(s.c);
  auto section = [&](int k) {  // offset of section k (state_image.cpp's table)
    std::uint64_t v;
    std::memcpy(&v, good.data() + 64 + 16 * k, 8);
    return v;
  };
  auto corrupt = [&](std::size_t at, std::uint32_t value) {
    std::string bad = good;
    std::memcpy(bad.data() + at, &value, 4);
    reseal(bad);
    std::shared_ptr<store::StateImage> image;
    return store::StateImage::open(bad, nullptr, image);
  };
  using Open = store::StateImage::Open;
  EXPECT_EQ(corrupt(section(1) + 4, 0xFFFFFFF0u), Open::kCorrupt) << "a node id's length";
  EXPECT_EQ(corrupt(section(1) + 56, 1000), Open::kCorrupt) << "a node's first output";
  EXPECT_EQ(corrupt(section(2), 0xFFFFFF00u), Open::kCorrupt) << "an output name's offset";
  EXPECT_EQ(corrupt(section(3), 99), Open::kCorrupt) << "an index slot past the rows";
  EXPECT_EQ(corrupt(section(4) + 4, 1u << 30), Open::kCorrupt) << "a stat key's length";
  EXPECT_EQ(corrupt(64 + 16 * 4 + 8, 1u << 31), Open::kCorrupt) << "a section's count past the end";
  EXPECT_EQ(corrupt(8, 3), Open::kOtherVersion);
}

// An index over no rows whose slots name rows anyway (the stat index's
// bytes, lent to the node index): a lookup would read past the node rows.
TEST(StateImage, AnIndexNamingRowsOfAnEmptyTableIsRefused) {
  auto s = sample(0, 3);
  std::string bad = store::encode_state_image(s.c);
  std::memcpy(bad.data() + 64 + 16 * 3, bad.data() + 64 + 16 * 5, 16);  // node index := the stat index
  reseal(bad);
  std::shared_ptr<store::StateImage> image;
  EXPECT_EQ(store::StateImage::open(bad, nullptr, image), store::StateImage::Open::kCorrupt);
}

TEST(BuildState, AnEarlierVersionsTextSnapshotIsReadAndSavedAsAnImage) {
  test::TempDir dir;
  test::write_text(dir / "f", "content");
  const store::NodeRecord want = node("x", 2);
  std::string text;
  store::RecordWriter w;
  w.field("H").field("winml-make-state").field(std::uint64_t{1}).field(std::uint64_t{5});
  w.finish(text);
  w.field("N").field("m/export").field(want.key).field(want.implementation).field(want.elapsed_seconds);
  w.field(want.finished_ns).field(want.metrics_json.view()).field(std::uint64_t{2});
  for (const auto& o : want.outputs) w.field(o.name).field(o.digest).field(o.size);
  w.finish(text);
  w.field("S").field(store::digest_of("model")).field(std::uint64_t{1}).field("m.onnx.data");
  w.finish(text);
  fs::create_directories(dir / "state");
  test::write_text(dir / "state" / "state", text);
  auto check = [&](store::BuildState& s) {
    auto r = s.find("m/export");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->key, want.key);
    EXPECT_EQ(r->metrics_json, want.metrics_json);
    EXPECT_EQ(r->outputs, want.outputs);
    EXPECT_EQ(s.model_sidecars(store::digest_of("model")), (std::vector<std::string>{"m.onnx.data"}));
    EXPECT_TRUE(s.warnings().empty());
  };
  {
    store::BuildState s(store::real_disk(), dir / "state", dir.path());
    s.load();
    check(s);
    s.save();  // nothing else changed: the text is rewritten as an image all the same
  }
  EXPECT_TRUE(store::StateImage::looks_like_image(test::read_text(dir / "state" / "state")));
  store::BuildState s(store::real_disk(), dir / "state", dir.path());
  s.load();
  check(s);
}

TEST(BuildState, StoredStatEntriesServeLookupsInPlaceAndUnusedOnesArePruned) {
  test::TempDir dir;
  for (const char* f : {"a", "b", "c"}) test::write_text(dir / f, f);
  {
    store::BuildState s(store::real_disk(), dir / "state", dir.path());
    s.load();
    for (const char* f : {"a", "b", "c"}) s.stat_cache().digest(dir / f);
    s.save();
  }
  // Racily clean until hashed again a while after their last change (stat_cache.h).
  std::this_thread::sleep_for(std::chrono::milliseconds(120));
  {
    store::BuildState s(store::real_disk(), dir / "state", dir.path());
    s.load();
    for (const char* f : {"a", "b", "c"}) s.stat_cache().digest(dir / f);
    s.save();
  }
  store::BuildState s(store::real_disk(), dir / "state", dir.path());
  s.load();
  ASSERT_TRUE(store::StateImage::looks_like_image(test::read_text(dir / "state" / "state")));
  EXPECT_EQ(s.stat_cache().digest(dir / "a"), store::digest_of("a"));
  EXPECT_EQ(s.stat_cache().files_hashed(), 0u) << "served from the image without hashing";
  EXPECT_FALSE(s.stat_cache().dirty());
  test::write_text(dir / "b", "changed");
  EXPECT_EQ(s.stat_cache().digest(dir / "b"), store::digest_of("changed"));
  EXPECT_EQ(s.stat_cache().files_hashed(), 1u);
  s.stat_cache().prune_unused();  // c was not looked up: it leaves
  auto entries = s.stat_cache().entries();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries["a"].digest, store::digest_of("a"));
  EXPECT_EQ(entries["b"].digest, store::digest_of("changed"));
  s.save();
  store::BuildState again(store::real_disk(), dir / "state", dir.path());
  again.load();
  EXPECT_EQ(again.stat_cache().entries().size(), 2u);
  again.stat_cache().forget(dir / "a");
  EXPECT_EQ(again.stat_cache().entries().count("a"), 0u);
  EXPECT_TRUE(again.stat_cache().dirty());
}

TEST(BuildState, JournalRecordsOverrideAndEraseTheImagesRecords) {
  test::TempDir dir;
  {
    store::BuildState s(store::real_disk(), dir / "state", dir.path());
    s.load();
    s.put("m/a", node("a", 1));
    s.put("m/b", node("b", 1));
    s.put("m/c", node("c", 1));
    s.save();
    s.put("m/a", node("a2", 2));  // journaled over the image
    s.erase("m/b");
  }
  store::BuildState s(store::real_disk(), dir / "state", dir.path());
  s.load();
  EXPECT_FALSE(s.started_empty());
  ASSERT_TRUE(s.find("m/a"));
  EXPECT_EQ(s.find("m/a")->key, node("a2", 2).key);
  EXPECT_FALSE(s.find("m/b"));
  ASSERT_TRUE(s.find("m/c"));
  EXPECT_EQ(s.find("m/c").get(), s.find("m/c").get()) << "one record, made once";
  auto ids = s.node_ids();
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<std::string>{"m/a", "m/c"}));
  s.erase("m/c");
  s.save();
  store::BuildState again(store::real_disk(), dir / "state", dir.path());
  again.load();
  EXPECT_EQ(again.node_ids(), (std::vector<std::string>{"m/a"}));
}
