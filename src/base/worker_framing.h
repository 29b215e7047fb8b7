// The messages on a worker's channel (base/worker_process.h), shared by both
// systems' worker_process.cpp. Each is a frame, "<size>\n<payload>", so that
// a message cut short (a worker killed while sending) is never taken for a
// whole one, and a worker reading requests one after another knows where
// each ends.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace winml {

std::string frame(std::string_view payload);

// Takes the first whole frame off the front of `data` and returns its
// payload; nullopt while no whole frame is there. A garbled header (not a
// size) sets *garbled.
std::optional<std::string> take_frame(std::string& data, bool* garbled);

// A reply's payload: whether the worker serves another request after it,
// then the answer.
struct WorkerReply {
  std::string answer;
  bool serves_again = false;
};
std::string encode_reply(const WorkerReply& reply);
std::optional<WorkerReply> decode_reply(const std::string& payload);

// What a build has read off a worker's channel: the first whole reply, once
// it is there.
class ReplyBuffer {
 public:
  void add(const char* data, std::size_t size);
  bool has_reply() const { return reply_.has_value(); }
  bool serves_again() const { return reply_ && reply_->serves_again; }
  std::optional<WorkerReply> take() { return std::move(reply_); }

 private:
  std::string data_;
  std::optional<WorkerReply> reply_;
  bool garbled_ = false;
};

}  // namespace winml
