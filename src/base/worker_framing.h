// The messages on a worker's channel (base/worker_process.h), shared by both
// systems' worker_process.cpp. Each is a frame, "<size>\n<payload>", so that
// a message cut short (a worker killed while sending) is never taken for a
// whole one, and a worker reading requests one after another knows where
// each ends.
#pragma once

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

}  // namespace winml
