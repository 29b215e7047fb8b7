#include "base/worker_framing.h"

#include <string_view>

#include "base/worker_process.h"

namespace winml {

std::string frame_reply(const std::string& reply) { return std::to_string(reply.size()) + "\n" + reply; }

std::optional<std::string> unframe_reply(const std::string& data) {
  const auto eol = data.find('\n');
  if (eol == std::string::npos || eol == 0 || eol > 20) return std::nullopt;
  std::size_t size = 0;
  for (std::size_t i = 0; i < eol; ++i) {
    if (data[i] < '0' || data[i] > '9') return std::nullopt;
    size = size * 10 + static_cast<std::size_t>(data[i] - '0');
  }
  if (data.size() - eol - 1 != size) return std::nullopt;
  return data.substr(eol + 1);
}

bool is_worker_invocation(int argc, char** argv) {
  return argc == 2 && std::string_view(argv[1]) == kWorkerArgument;
}

}  // namespace winml
