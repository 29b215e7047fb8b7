#include <gtest/gtest.h>

#include "store/digest.h"
#include "support/temp_dir.h"

using namespace winml;

TEST(Digest, KnownXxh3Vector) {
  // XXH3-128 of the empty input (xxHash's published test vector).
  EXPECT_EQ(store::digest_of("").hex(), "99aa06d3014798d86001c324468d497f");
}

TEST(Digest, HexRoundTripIsFullWidth) {
  auto d = store::digest_of("winml");
  EXPECT_EQ(d.hex().size(), 32u);
  EXPECT_EQ(store::Digest::from_hex(d.hex()), d);
  EXPECT_FALSE(store::Digest::from_hex("abc").has_value());
}

TEST(Digest, FieldsAreLengthPrefixed) {
  store::Hasher a, b;
  a.update_field("ab");
  a.update_field("c");
  b.update_field("a");
  b.update_field("bc");
  EXPECT_NE(a.finish(), b.finish());
}

TEST(Digest, FileHashEqualsContentHash) {
  test::TempDir dir;
  std::string content(3 * 1024 * 1024 + 17, 'x');
  for (std::size_t i = 0; i < content.size(); i += 7) content[i] = static_cast<char>(i);
  test::write_text(dir / "f", content);
  std::uint64_t hashed = 0;
  EXPECT_EQ(store::hash_file(dir / "f", &hashed), store::digest_of(content));
  EXPECT_EQ(hashed, content.size());
}
