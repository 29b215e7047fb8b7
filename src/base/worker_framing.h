// A worker's reply on its channel: "<size>\n<reply>", so that a reply cut
// short (the worker killed while sending) is never taken for a whole one.
// Shared by both systems' worker_process.cpp.
#pragma once

#include <optional>
#include <string>

namespace winml {

std::string frame_reply(const std::string& reply);
// The reply, or nullopt unless `data` is one whole frame.
std::optional<std::string> unframe_reply(const std::string& data);

}  // namespace winml
