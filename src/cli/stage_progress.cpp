#include "cli/stage_progress.h"

#include <cmath>
#include <cstdio>

namespace winml::cli {

namespace {

// A rate needs half a second of work behind it; before, it would jump about.
constexpr double kRateAfterSeconds = 0.5;

std::string rate_text(double per_second) {
  char buf[32];
  std::snprintf(buf, sizeof buf, per_second < 10 ? "%.1f/s" : "%.0f/s", per_second);
  return buf;
}

std::string left_text(double seconds) {
  if (seconds < 90) return "about " + std::to_string(static_cast<long long>(std::ceil(seconds))) + " s left";
  return "about " + std::to_string(static_cast<long long>(std::round(seconds / 60))) + " min left";
}

}  // namespace

StageProgress::StageProgress(std::string model, std::string stage, ProgressClock::time_point started)
    : model_(std::move(model)), stage_(std::move(stage)), started_(started), last_line_(started) {}

void StageProgress::observe(const std::optional<progress::Snapshot>& record, ProgressClock::time_point now) {
  if (!record || record == record_) return;
  if (!record_ || record_->what != record->what || record->done < step_done_) {
    step_started_ = now;
    step_done_ = record->done;
    per_second_ = 0;
  } else {
    const double seconds = std::chrono::duration<double>(now - step_started_).count();
    if (seconds >= kRateAfterSeconds && record->done > step_done_)
      per_second_ = static_cast<double>(record->done - step_done_) / seconds;
  }
  record_ = record;
  changed_ = true;
}

std::optional<double> StageProgress::seconds_left() const {
  if (!record_ || per_second_ <= 0 || record_->done >= record_->total) return std::nullopt;
  return static_cast<double>(record_->total - record_->done) / per_second_;
}

double StageProgress::elapsed_seconds(ProgressClock::time_point now) const {
  return std::chrono::duration<double>(now - started_).count();
}

std::string StageProgress::text() const {
  if (!record_) return "";
  std::string s = record_->what + " " + std::to_string(record_->done) + "/" + std::to_string(record_->total) + " " +
                  record_->unit;
  if (per_second_ > 0) s += ", " + rate_text(per_second_);
  if (const auto left = seconds_left()) s += ", " + left_text(*left);
  return s;
}

nlohmann::json StageProgress::event(ProgressClock::time_point now) const {
  nlohmann::json e = {{"event", "progress"},
                      {"model", model_},
                      {"stage", stage_},
                      {"elapsed_seconds", std::round(elapsed_seconds(now) * 10) / 10}};
  if (record_) {
    e["what"] = record_->what;
    e["done"] = record_->done;
    e["total"] = record_->total;
    e["unit"] = record_->unit;
    if (per_second_ > 0) e["per_second"] = std::round(per_second_ * 100) / 100;
    if (const auto left = seconds_left()) e["seconds_left"] = std::round(*left * 10) / 10;
  }
  return e;
}

bool StageProgress::due(ProgressClock::time_point now, ProgressClock::duration min_gap,
                        ProgressClock::duration max_gap) const {
  return (changed_ && now - last_line_ >= min_gap) || now - last_line_ >= max_gap;
}

void StageProgress::reported(ProgressClock::time_point now) {
  last_line_ = now;
  changed_ = false;
}

}  // namespace winml::cli
