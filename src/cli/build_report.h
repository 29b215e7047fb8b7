// What a build prints. On a terminal: a live status line (stage, model,
// elapsed, how far a long stage is, big files being hashed) above which each
// finished stage is listed; otherwise (CI logs) one plain line per event,
// and a line about each running stage at least every 30 s, so that a log
// never looks hung. --json adds a machine-readable report of the run on
// stdout, and progress events, one JSON object per line, on stderr.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "cli/stage_progress.h"
#include "graph/builder.h"

namespace winml::cli {

class BuildReporter : public graph::BuildObserver {
 public:
  // `color`: status words in colour (cli/color.h decides when); `dry_run`:
  // nothing runs, so a stage found broken "would fail"; `json_events`: a
  // running stage's progress as JSON lines (at most one a second per stage)
  // rather than text. `log_every`: the longest a running stage goes
  // unmentioned off a terminal (and in JSON).
  BuildReporter(std::ostream& out, bool tty, bool color, bool explain, bool dry_run, const graph::Graph& graph,
                std::size_t total_nodes, bool json_events = false,
                std::chrono::milliseconds log_every = std::chrono::seconds(30));
  ~BuildReporter() override;

  void node_started(const graph::Node& node, const std::string& reason) override;
  void node_finished(const graph::Node& node, const graph::NodeResult& result) override;
  void node_running(const graph::Node& node, const std::filesystem::path& progress_file) override;
  void hashing(const std::filesystem::path& file, std::uint64_t size) override;
  void hash_counter(const std::atomic<std::uint64_t>* bytes) override { hashed_ = bytes; }
  // The shared cache's bytes received and sent so far (remote::HttpCache), shown while they grow.
  void transfer_counters(const std::atomic<std::uint64_t>* received, const std::atomic<std::uint64_t>* sent) {
    received_ = received, sent_ = sent;
  }

  void stop();  // ends the status line
  // A line of its own above the status line, from any thread.
  void note(const std::string& line);
  // "winml-make: 3 completed, 9 up to date (0.42 s)".
  void summary(const std::vector<graph::NodeResult>& results, double seconds);

 private:
  void redraw_locked();
  void print_locked(const std::string& line);
  void tick_locked();  // reads the running stages' progress, prints what is due

  std::ostream& out_;
  bool tty_, color_, explain_, dry_run_, json_events_;
  std::chrono::milliseconds log_every_;
  const graph::Graph& graph_;
  std::size_t total_, done_ = 0;
  std::mutex mu_;
  std::map<std::string, StageProgress> running_;  // by node id
  std::string hashing_;
  const std::atomic<std::uint64_t>* hashed_ = nullptr;
  const std::atomic<std::uint64_t>*received_ = nullptr, *sent_ = nullptr;
  std::string transfer_text() const;  // "; shared cache: 1.2 GiB received, 3.0 MiB sent", or ""
  bool status_shown_ = false, stopping_ = false;
  std::condition_variable cv_;
  std::thread ticker_;
};

// graph::status_word as the CLI prints it: "up to date", "not run", "would run".
std::string status_text(graph::Status status, bool dry_run);

// Lines for a node that reran or would rerun: "  would run  m/quantize: config quantize.samples changed".
std::vector<std::string> describe_result(const graph::Node& node, const graph::NodeResult& r, bool explain,
                                         bool dry_run, bool color = false);

// One warning for the run's refused cache entries, counted by reason and
// source ("" when none was refused): tampering shows, without a line each.
std::string cache_rejections_warning(const std::vector<graph::NodeResult>& results);

// The --json report's format (docs/cli.md, "The --json report"). 3: a dry
// run's words are would-run and would-fail (graph::status_word), and a
// command that fails before any stage reports an error object.
inline constexpr int kReportSchemaVersion = 3;

// The report of a command that failed as a whole (a usage error, a bad config,
// a missing model, a lock that timed out): no stage ran, so no model is in it.
// `kind`: "usage" or "input" (exit 2), "build" (exit 1).
nlohmann::json error_report(const std::string& kind, int exit_code, const std::string& message);

// The --json report.
nlohmann::json run_report(const graph::Graph& graph, const std::vector<graph::NodeResult>& results,
                          const std::string& status, bool dry_run, double seconds, const std::string& output_dir);

}  // namespace winml::cli
