// The messages on a worker's channel, and when a worker serves again
// (base/worker_framing.h, base/worker_process.h).
#include "base/worker_framing.h"

#include <gtest/gtest.h>

#include "base/shared_library.h"
#include "base/this_process.h"
#include "base/worker_process.h"
#include "support/platform.h"

using namespace winml;

TEST(WorkerFraming, FramesAreTakenOneByOneAndOnlyWhole) {
  std::string data = frame("first") + frame("") + frame("third\n with a newline");
  std::string cut = data.substr(0, data.size() - 3);
  bool garbled = false;
  EXPECT_EQ(take_frame(data, &garbled), "first");
  EXPECT_EQ(take_frame(data, &garbled), "");
  EXPECT_EQ(take_frame(data, &garbled), "third\n with a newline");
  EXPECT_EQ(take_frame(data, &garbled), std::nullopt);
  EXPECT_TRUE(data.empty());
  // A message cut short (its sender killed while sending) is never whole.
  take_frame(cut, &garbled);
  take_frame(cut, &garbled);
  EXPECT_EQ(take_frame(cut, &garbled), std::nullopt);
  EXPECT_FALSE(garbled);
}

TEST(WorkerFraming, AHeaderThatIsNoSizeIsGarbled) {
  for (std::string data : {std::string("x3\nabc"), std::string("\nabc"), std::string(30, '7')}) {
    bool garbled = false;
    EXPECT_EQ(take_frame(data, &garbled), std::nullopt) << data;
    EXPECT_TRUE(garbled) << data;
  }
}

TEST(WorkerFraming, AReplySaysWhetherItsWorkerServesAgain) {
  for (bool again : {true, false}) {
    const auto back = decode_reply(encode_reply({"ok\n{}", again}));
    ASSERT_TRUE(back);
    EXPECT_EQ(back->answer, "ok\n{}");
    EXPECT_EQ(back->serves_again, again);
  }
  EXPECT_EQ(decode_reply(""), std::nullopt);
  EXPECT_EQ(decode_reply("ok"), std::nullopt);
}

TEST(WorkerFraming, AReplyArrivingInPiecesIsWholeOnlyAtItsLastByte) {
  const std::string sent = frame(encode_reply({"ok\n{\"nodes\": 3}", true}));
  ReplyBuffer replies;
  for (std::size_t i = 0; i + 1 < sent.size(); ++i) {
    replies.add(&sent[i], 1);
    ASSERT_FALSE(replies.has_reply()) << i;
  }
  replies.add(&sent.back(), 1);
  ASSERT_TRUE(replies.serves_again());
  EXPECT_EQ(replies.take()->answer, "ok\n{\"nodes\": 3}");
}

TEST(WorkerReuse, AWorkerUnfitForMoreOrThatLoadedALibraryServesNoMore) {
  std::size_t before = shared_libraries_opened();
  EXPECT_EQ(serves_again_after({"ok\n", true}, before), peak_resident_bytes() <= kWorkerMemoryToKeep);
  EXPECT_FALSE(serves_again_after({"build\nfailed", false}, before));
  // A process keeps the first library of a name: a later request could name another.
  SharedLibrary c_library({test::on_posix() ? "libc.so.6" : "kernel32.dll"});
  EXPECT_GT(shared_libraries_opened(), before);
  EXPECT_FALSE(serves_again_after({"ok\n", true}, before));
  EXPECT_EQ(serves_again_after({"ok\n", true}, shared_libraries_opened()),
            peak_resident_bytes() <= kWorkerMemoryToKeep);
}
