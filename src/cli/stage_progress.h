// A running stage as the build shows it: how long it has run and, when its
// worker reports how far it is (base/progress.h), that record with a rate
// and the time left; when the next line of a CI log or the next --json
// event about it is due.
#pragma once

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/progress.h"

namespace winml::cli {

using ProgressClock = std::chrono::steady_clock;

class StageProgress {
 public:
  StageProgress(std::string model, std::string stage, ProgressClock::time_point started);

  const std::filesystem::path& file() const { return file_; }
  void set_file(std::filesystem::path file) { file_ = std::move(file); }

  // The worker's latest record (nothing: none yet), seen at `now`.
  void observe(const std::optional<progress::Snapshot>& record, ProgressClock::time_point now);

  double elapsed_seconds(ProgressClock::time_point now) const;
  // "calibration 12/24 samples, 1.9/s, about 6 s left"; empty before the first record.
  std::string text() const;
  // The --json event: {"event": "progress", "model", "stage", "elapsed_seconds"[, "what",
  // "done", "total", "unit"[, "per_second"[, "seconds_left"]]]}.
  nlohmann::json event(ProgressClock::time_point now) const;

  // A line about it is due: the record changed and the last line is at least
  // `min_gap` old, or the last line (or the start) is `max_gap` old.
  bool due(ProgressClock::time_point now, ProgressClock::duration min_gap, ProgressClock::duration max_gap) const;
  void reported(ProgressClock::time_point now);

 private:
  // What is left at the current rate (nothing without a rate, or when done).
  std::optional<double> seconds_left() const;

  std::string model_, stage_;
  ProgressClock::time_point started_, last_line_;
  std::filesystem::path file_;
  std::optional<progress::Snapshot> record_;
  bool changed_ = false;
  // The rate is measured from the first record of the current step (`what`).
  ProgressClock::time_point step_started_{};
  std::uint64_t step_done_ = 0;
  double per_second_ = 0;  // 0: not known yet
};

}  // namespace winml::cli
