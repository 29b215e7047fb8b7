// What a build prints. On a terminal: a live status line (stage, model,
// elapsed, big files being hashed) above which each finished stage is
// listed; otherwise (CI logs) one plain line per event. --json adds a
// machine-readable report of the run on stdout.
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

#include "graph/builder.h"

namespace winml::cli {

class BuildReporter : public graph::BuildObserver {
 public:
  // `color`: status words in colour (cli/color.h decides when); `dry_run`:
  // nothing runs, so a stage found broken "would fail".
  BuildReporter(std::ostream& out, bool tty, bool color, bool explain, bool dry_run, const graph::Graph& graph,
                std::size_t total_nodes);
  ~BuildReporter() override;

  void node_started(const graph::Node& node, const std::string& reason) override;
  void node_finished(const graph::Node& node, const graph::NodeResult& result) override;
  void hashing(const std::filesystem::path& file, std::uint64_t size) override;
  void hash_counter(const std::atomic<std::uint64_t>* bytes) override { hashed_ = bytes; }

  void stop();  // ends the status line
  // A line of its own above the status line, from any thread.
  void note(const std::string& line);
  // "winml-make: 3 completed, 9 up to date (0.42 s)".
  void summary(const std::vector<graph::NodeResult>& results, double seconds);

 private:
  void redraw_locked();
  void print_locked(const std::string& line);

  std::ostream& out_;
  bool tty_, color_, explain_, dry_run_;
  const graph::Graph& graph_;
  std::size_t total_, done_ = 0;
  std::mutex mu_;
  std::map<std::string, std::chrono::steady_clock::time_point> running_;
  std::string hashing_;
  const std::atomic<std::uint64_t>* hashed_ = nullptr;
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
