// Time stamps in reports, the one way: "2026-11-28T17:53:01Z", computed from
// the clock's count (no gmtime_r, which Windows' C runtime lacks).
#pragma once

#include <chrono>
#include <string>

namespace winml {

std::string utc_timestamp(std::chrono::system_clock::time_point when);
inline std::string utc_now() { return utc_timestamp(std::chrono::system_clock::now()); }

}  // namespace winml
