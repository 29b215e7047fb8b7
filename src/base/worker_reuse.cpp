// The part of base/worker_process.h that is the same on every system: when
// a worker serves again.
#include "base/worker_process.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string_view>

#include "base/shared_library.h"
#include "base/this_process.h"
#include "base/worker_framing.h"

namespace winml {

bool worker_reuse_enabled() {
  static const bool enabled = environment_variable("WINML_MAKE_WORKER_REUSE").value_or("1") != "0";
  return enabled;
}

bool serves_again_after(const WorkerAnswer& answer, std::size_t libraries_before) {
  return answer.fit_for_more && shared_libraries_opened() == libraries_before &&
         peak_resident_bytes() <= kWorkerMemoryToKeep;
}

[[noreturn]] void serve_requests(const std::function<long long(char*, std::size_t)>& read,
                                 const std::function<bool(std::string_view)>& send,
                                 const std::function<WorkerAnswer(const std::string&)>& serve) {
  std::string data;
  char buffer[65536];
  for (;;) {
    bool garbled = false;
    std::optional<std::string> request;
    while (!(request = take_frame(data, &garbled))) {
      if (garbled) std::_Exit(125);
      const long long n = read(buffer, sizeof buffer);
      if (n < 0) std::_Exit(125);
      if (n == 0) std::_Exit(0);  // the build has no more work for this worker
      data.append(buffer, static_cast<std::size_t>(n));
    }
    const std::size_t libraries = shared_libraries_opened();
    const WorkerAnswer answer = serve(*request);
    const bool again = serves_again_after(answer, libraries);
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    // Without static destructors or atexit handlers: the build's view of a
    // worker is its replies and its exit code.
    const bool whole = send(frame(encode_reply({answer.reply, again})));
    if (!whole || !again) std::_Exit(whole ? 0 : 126);
  }
}

bool is_worker_invocation(int argc, char** argv) { return argc == 2 && std::string_view(argv[1]) == kWorkerArgument; }

}  // namespace winml
