// The hand-written ActionResult codec against libprotobuf, generated from the
// same action_result.proto: the bytes we send are the bytes libprotobuf
// would, and what libprotobuf writes (a server re-serializing, fields we do
// not use, a second Digest merged into the first) reads back as it would.
#include <gtest/gtest.h>

#include "action_result.pb.h"
#include "remote/action_message.h"
#include "remote/sha256.h"
#include "remote/wire_format.h"
#include "store/cache.h"

using namespace winml;

namespace {

store::ActionEntry entry_with(std::vector<store::OutputFile> outputs) {
  store::ActionEntry e;
  e.key = store::digest_of("key");
  e.implementation = "winml-quantize";
  e.elapsed_seconds = 0.25;
  e.metrics_json = R"({"nodes_quantized":3})";
  e.outputs = std::move(outputs);
  return e;
}

std::string oracle(const store::ActionEntry& entry, const std::vector<std::string>& shas) {
  remote::wire::ActionResult r;
  for (std::size_t i = 0; i < entry.outputs.size(); ++i) {
    auto* f = r.add_output_files();
    f->set_path(entry.outputs[i].name);
    f->mutable_digest()->set_hash(shas[i]);
    f->mutable_digest()->set_size_bytes(static_cast<std::int64_t>(entry.outputs[i].size));
  }
  r.set_stdout_raw(store::entry_text(entry));
  return r.SerializeAsString();
}

}  // namespace

TEST(WireFormat, EncodesTheBytesLibprotobufWrites) {
  const std::string big(300, 'x');  // lengths past one varint byte
  const std::vector<std::vector<store::OutputFile>> cases = {
      {},
      {{"model.onnx", store::digest_of("a"), 0}},  // size 0: left out, Digest still present
      {{"model.onnx", store::digest_of("a"), 127}, {"model.onnx.data", store::digest_of("b"), 128}},
      {{"compiled.onnx", store::digest_of("c"), 5ull << 32}, {big, store::digest_of("d"), 1}},
  };
  for (const auto& outputs : cases) {
    const auto entry = entry_with(outputs);
    std::vector<std::string> shas;
    for (const auto& o : outputs) shas.push_back(remote::sha256_hex(o.name));
    EXPECT_EQ(remote::encode_action(entry, shas), oracle(entry, shas)) << outputs.size() << " outputs";
  }
}

TEST(WireFormat, ReadsWhatLibprotobufWritesWithFieldsAddedAndMerged) {
  const auto entry = entry_with({{"optimized.onnx", store::digest_of("m"), 4096}});
  const std::string sha = remote::sha256_hex("m");
  remote::wire::ActionResult r;
  r.ParseFromString(oracle(entry, {sha}));
  // Fields a server or another client may add: stderr_raw (6), an output
  // directory (3), execution metadata (9) are unknown to the .proto: append
  // them as raw fields after the known ones, in libprotobuf's own encoding.
  std::string bytes = r.SerializeAsString();
  remote::wire::Writer extra;
  extra.bytes(6, "warning: something");
  extra.bytes(9, std::string("\x0a\x0c", 2) + "bazel-remote");
  extra.varint(1000, 7);
  bytes += extra.data();
  auto back = remote::decode_action(bytes, entry.key);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->entry.outputs, entry.outputs);
  ASSERT_EQ(back->blobs.size(), 1u);
  EXPECT_EQ(back->blobs[0].sha256, sha);
  EXPECT_EQ(back->blobs[0].size, 4096u);

  // A second Digest for the same file merges field by field (libprotobuf's
  // rule for a singular message given twice): the size from the second, the
  // hash kept from the first.
  remote::wire::OutputFile f = r.output_files(0);
  remote::wire::Digest second;
  second.set_size_bytes(4096);
  f.mutable_digest()->set_size_bytes(1);
  std::string file_bytes = f.SerializeAsString();
  remote::wire::Writer w;
  w.bytes(2, second.SerializeAsString());
  file_bytes += w.data();
  remote::wire::OutputFile merged;
  ASSERT_TRUE(merged.ParseFromString(file_bytes));
  ASSERT_EQ(merged.digest().hash(), sha);
  ASSERT_EQ(merged.digest().size_bytes(), 4096);
  remote::wire::Writer result;
  result.bytes(2, file_bytes);
  result.bytes(5, r.stdout_raw());
  EXPECT_TRUE(remote::decode_action(result.data(), entry.key));
}

TEST(WireFormat, RefusesWhatLibprotobufRefuses) {
  const auto entry = entry_with({{"optimized.onnx", store::digest_of("m"), 10}});
  const std::string good = oracle(entry, {remote::sha256_hex("m")});
  remote::wire::ActionResult probe;
  for (std::size_t cut = 1; cut < good.size(); ++cut) {
    const std::string torn = good.substr(0, cut);
    if (!probe.ParseFromString(torn)) {
      EXPECT_FALSE(remote::decode_action(torn, entry.key)) << "cut at " << cut;
    }
  }
  // A group (wire type 3) and an over-long varint.
  EXPECT_FALSE(remote::decode_action(good + "\x0b", entry.key));
  EXPECT_FALSE(remote::decode_action(good + std::string("\x20") + std::string(11, '\xff'), entry.key));
  // A non-zero exit code: not a cacheable result.
  remote::wire::ActionResult failed;
  failed.ParseFromString(good);
  failed.set_exit_code(-1);
  EXPECT_FALSE(remote::decode_action(failed.SerializeAsString(), entry.key));
}
