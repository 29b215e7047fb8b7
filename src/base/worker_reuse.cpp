// The part of base/worker_process.h that is the same on every system: when
// a worker serves again.
#include "base/worker_process.h"

#include <string_view>

#include "base/shared_library.h"
#include "base/this_process.h"

namespace winml {

bool worker_reuse_enabled() {
  static const bool enabled = environment_variable("WINML_MAKE_WORKER_REUSE").value_or("1") != "0";
  return enabled;
}

bool serves_again_after(const WorkerAnswer& answer, std::size_t libraries_before) {
  return answer.fit_for_more && shared_libraries_opened() == libraries_before &&
         peak_resident_bytes() <= kWorkerMemoryToKeep;
}

bool is_worker_invocation(int argc, char** argv) { return argc == 2 && std::string_view(argv[1]) == kWorkerArgument; }

}  // namespace winml
