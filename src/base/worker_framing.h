// The messages on a worker's channel (base/worker_process.h), shared by both
// systems' worker_process.cpp. Each is a frame, "<size>\n<payload>", so that
// a message cut short (a worker killed while sending) is never taken for a
// whole one, and a worker reading requests one after another knows where
// each ends.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "base/worker_process.h"

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

// The worker's loop, the same on every system: reads framed requests with
// `read` (the bytes read into the buffer; 0 at the channel's end, negative
// on an error), answers each with `serve`, sends the reply with `send`, and
// ends the process after a reply it does not serve again after, at the
// channel's end (exit code 0), on a garbled request or a read error (125) or
// when a reply cannot be sent whole (126).
[[noreturn]] void serve_requests(const std::function<long long(char*, std::size_t)>& read,
                                 const std::function<bool(std::string_view)>& send,
                                 const std::function<WorkerAnswer(const std::string&)>& serve);

}  // namespace winml
