#include "base/utc_time.h"

#include <cstdio>

namespace winml {

std::string utc_timestamp(std::chrono::system_clock::time_point when) {
  using namespace std::chrono;
  const auto seconds = floor<std::chrono::seconds>(when);
  const year_month_day date{floor<days>(seconds)};
  const hh_mm_ss<std::chrono::seconds> time{seconds - floor<days>(seconds)};
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02dZ", static_cast<int>(date.year()),
                static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                static_cast<int>(time.hours().count()), static_cast<int>(time.minutes().count()),
                static_cast<int>(time.seconds().count()));
  return buf;
}

}  // namespace winml
