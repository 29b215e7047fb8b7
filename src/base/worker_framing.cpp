#include "base/worker_framing.h"

namespace winml {

std::string frame(std::string_view payload) {
  std::string out = std::to_string(payload.size()) + "\n";
  out.append(payload);
  return out;
}

std::optional<std::string> take_frame(std::string& data, bool* garbled) {
  const auto eol = data.find('\n');
  if (eol == std::string::npos) {
    if (data.size() > 20) *garbled = true;
    return std::nullopt;
  }
  if (eol == 0 || eol > 20) {
    *garbled = true;
    return std::nullopt;
  }
  std::size_t size = 0;
  for (std::size_t i = 0; i < eol; ++i) {
    if (data[i] < '0' || data[i] > '9') {
      *garbled = true;
      return std::nullopt;
    }
    size = size * 10 + static_cast<std::size_t>(data[i] - '0');
  }
  if (data.size() - eol - 1 < size) return std::nullopt;
  std::string payload = data.substr(eol + 1, size);
  data.erase(0, eol + 1 + size);
  return payload;
}

std::string encode_reply(const WorkerReply& reply) { return (reply.serves_again ? "+" : ".") + reply.answer; }

std::optional<WorkerReply> decode_reply(const std::string& payload) {
  if (payload.empty() || (payload[0] != '+' && payload[0] != '.')) return std::nullopt;
  return WorkerReply{payload.substr(1), payload[0] == '+'};
}

void ReplyBuffer::add(const char* data, std::size_t size) {
  data_.append(data, size);
  if (reply_ || garbled_) return;
  if (auto payload = take_frame(data_, &garbled_)) reply_ = decode_reply(*payload);
}

}  // namespace winml
