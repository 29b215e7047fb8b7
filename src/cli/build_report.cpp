#include "cli/build_report.h"

#include <algorithm>
#include <cstdio>

#include "base/path_text.h"
#include "base/text.h"
#include "cli/color.h"

namespace winml::cli {

namespace {

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, s < 10 ? "%.2f s" : "%.1f s", s);
  return buf;
}

std::string pad(std::string s, std::size_t n) {
  if (s.size() < n) s.append(n - s.size(), ' ');
  return s;
}

}  // namespace

std::string status_text(graph::Status status, bool dry_run) {
  std::string word = graph::status_word(status, dry_run);
  std::replace(word.begin(), word.end(), '-', ' ');
  return word;
}

std::vector<std::string> describe_result(const graph::Node& node, const graph::NodeResult& r, bool explain,
                                         bool dry_run, bool color) {
  std::vector<std::string> lines;
  // A dry run runs nothing, so nothing FAILED: it found what would.
  std::string status = status_text(r.status, dry_run);
  if (status == "failed") status = "FAILED";  // the same word, to be seen among the others
  std::string line = "  " + colored_status(pad(status, 10), color) + " " + node.id();
  if (r.status == graph::Status::kCompleted || r.status == graph::Status::kCached) {
    line += " (" + seconds_text(r.elapsed_seconds) + (r.from_remote ? ", from the remote cache" : "") + ")";
  }
  if (r.status == graph::Status::kFailed) {
    // The error can be several lines (a command's output): indent them.
    std::string msg = r.reason;
    for (std::size_t p = 0; (p = msg.find('\n', p)) != std::string::npos; p += 5) msg.replace(p, 1, "\n    ");
    line += ": " + msg;
  } else if (!r.reason.empty()) {
    line += ": " + r.reason;
  }
  lines.push_back(line);
  if (explain)
    for (const auto& e : r.explanation)
      if (e != r.reason) lines.push_back("      " + e);
  return lines;
}

BuildReporter::BuildReporter(std::ostream& out, bool tty, bool color, bool explain, bool dry_run,
                             const graph::Graph& graph, std::size_t total_nodes, bool json_events,
                             std::chrono::milliseconds log_every)
    : out_(out),
      tty_(tty),
      color_(color),
      explain_(explain),
      dry_run_(dry_run),
      json_events_(json_events),
      log_every_(log_every),
      graph_(graph),
      total_(total_nodes) {
  if (dry_run_) return;  // nothing runs
  ticker_ = std::thread([this] {
    std::unique_lock lock(mu_);
    while (!stopping_) {
      cv_.wait_for(lock, std::chrono::milliseconds(100));
      if (!stopping_) tick_locked();
    }
  });
}

std::string BuildReporter::transfer_text() const {
  std::vector<std::string> parts;
  if (received_ && received_->load() > 0) parts.push_back(human_bytes(received_->load()) + " received");
  if (sent_ && sent_->load() > 0) parts.push_back(human_bytes(sent_->load()) + " sent");
  return parts.empty() ? "" : "; shared cache: " + join(parts, ", ");
}

void BuildReporter::tick_locked() {
  const auto now = ProgressClock::now();
  bool printed = false;
  for (auto& [id, stage] : running_) {
    // The record is read when it may be shown: off a terminal without
    // --json, only for the line that is due.
    const bool shown = tty_ || json_events_ || stage.due(now, log_every_, log_every_);
    if (shown && !stage.file().empty()) stage.observe(progress::read(stage.file()), now);
    if (json_events_) {
      if (stage.due(now, std::chrono::seconds(1), log_every_)) {
        nlohmann::json event = stage.event(now);
        if (received_) event["shared_cache_bytes_received"] = received_->load();
        if (sent_) event["shared_cache_bytes_sent"] = sent_->load();
        print_locked(event.dump());
        stage.reported(now);
        printed = true;
      }
    } else if (!tty_ && stage.due(now, log_every_, log_every_)) {
      const std::string how = stage.text();
      print_locked("  progress   " + id + " (" + seconds_text(stage.elapsed_seconds(now)) +
                   "): " + (how.empty() ? "running" : how) + transfer_text());
      stage.reported(now);
      printed = true;
    }
  }
  if (tty_ && (!running_.empty() || !hashing_.empty())) redraw_locked();  // (flushes)
  else if (printed) out_.flush();
}

BuildReporter::~BuildReporter() { stop(); }

void BuildReporter::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    if (status_shown_) out_ << "\r\033[K" << std::flush;
    status_shown_ = false;
  }
  cv_.notify_all();
  if (ticker_.joinable()) ticker_.join();
}

void BuildReporter::redraw_locked() {
  if (!tty_) return;
  std::string line = "[" + std::to_string(done_) + "/" + std::to_string(total_) + "]";
  auto now = std::chrono::steady_clock::now();
  int shown = 0;
  for (const auto& [id, stage] : running_) {
    if (shown++ == 3) {
      line += " +" + std::to_string(running_.size() - 3) + " more";
      break;
    }
    line += " " + id + " " + seconds_text(stage.elapsed_seconds(now));
    // One stage's progress fits the line; of several, each is too long to show.
    if (const std::string how = stage.text(); !how.empty() && running_.size() == 1) line += " " + how;
  }
  if (!hashing_.empty()) line += " | hashing " + hashing_;
  if (hashed_ && hashed_->load() > 0) line += " | " + human_bytes(hashed_->load()) + " hashed";
  if (const std::string t = transfer_text(); !t.empty()) line += " |" + t.substr(1);
  if (line.size() > 150) line = line.substr(0, 147) + "...";
  out_ << "\r\033[K" << line << std::flush;
  status_shown_ = true;
}

void BuildReporter::print_locked(const std::string& line) {
  if (status_shown_) out_ << "\r\033[K";
  status_shown_ = false;
  out_ << line << "\n";
}

void BuildReporter::node_started(const graph::Node& node, const std::string& reason) {
  std::lock_guard lock(mu_);
  running_.insert_or_assign(node.id(), StageProgress(node.model, node.name, ProgressClock::now()));
  if (!tty_) print_locked("  running    " + node.id() + ": " + reason);
  else redraw_locked();
  out_.flush();
}

void BuildReporter::node_finished(const graph::Node& node, const graph::NodeResult& r) {
  // A skipped stage is news only when the last build ran it.
  bool quiet = r.status == graph::Status::kUpToDate || (r.status == graph::Status::kDisabled && !r.newly_disabled) ||
               (r.status == graph::Status::kNotRun && r.reason.empty());
  std::lock_guard lock(mu_);
  ++done_;
  if (quiet && !tty_) return;  // the common no-op case: nothing to print
  if (!running_.empty()) running_.erase(node.id());
  hashing_.clear();
  if (!quiet)
    for (const auto& l : describe_result(node, r, explain_, dry_run_, color_)) print_locked(l);
  redraw_locked();
  out_.flush();
}

void BuildReporter::node_running(const graph::Node& node, const std::filesystem::path& progress_file) {
  std::lock_guard lock(mu_);
  if (auto it = running_.find(node.id()); it != running_.end()) it->second.set_file(progress_file);
}

void BuildReporter::hashing(const std::filesystem::path& file, std::uint64_t size) {
  std::lock_guard lock(mu_);
  hashing_ = to_utf8(file.filename()) + " (" + human_bytes(size) + ")";
  if (!tty_) print_locked("  hashing    " + to_utf8(file) + " (" + human_bytes(size) + ")");
  else redraw_locked();
}

void BuildReporter::note(const std::string& line) {
  std::lock_guard lock(mu_);
  print_locked(line);
}

void BuildReporter::summary(const std::vector<graph::NodeResult>& results, double seconds) {
  const bool dry_run = dry_run_;
  std::map<graph::Status, int> counts;
  int considered = 0;
  for (const auto& r : results) {
    if (r.status == graph::Status::kNotRun && r.reason.empty()) continue;  // not selected
    ++considered;
    ++counts[r.status];
  }
  std::lock_guard lock(mu_);
  std::vector<std::string> parts;
  using S = graph::Status;
  for (S s : {S::kCompleted, S::kCached, S::kStale, S::kFailed, S::kNotRun, S::kUpToDate, S::kDisabled})
    if (counts[s]) parts.push_back(std::to_string(counts[s]) + " " + status_text(s, dry_run));
  std::string text = "winml-make: ";
  if (!dry_run && counts[S::kCompleted] + counts[S::kCached] + counts[S::kFailed] + counts[S::kNotRun] == 0)
    text += "nothing to do, ";
  text += std::to_string(considered) + " stages: " + join(parts, ", ") + " (" + seconds_text(seconds) + ")";
  print_locked(text);
  out_.flush();
}

std::string cache_rejections_warning(const std::vector<graph::NodeResult>& results) {
  std::map<std::string, int> counts;  // "reason (source)" -> entries
  int total = 0;
  for (const auto& r : results)
    for (const auto& x : r.rejections) ++counts[x.why.reason + " (" + x.source + ")"], ++total;
  if (total == 0) return "";
  std::vector<std::string> parts;
  for (const auto& [what, n] : counts) parts.push_back(std::to_string(n) + " " + what);
  return "winml-make: warning: " + std::to_string(total) + " cache " + (total == 1 ? "entry" : "entries") +
         " refused, the stage" + (total == 1 ? "" : "s") + " ran instead: " + join(parts, ", ") +
         " (--json lists them under cache_rejections)";
}

nlohmann::json error_report(const std::string& kind, int exit_code, const std::string& message) {
  return {{"schema_version", kReportSchemaVersion},
          {"status", "error"},
          {"exit_code", exit_code},
          {"error", {{"kind", kind}, {"message", message}}}};
}

nlohmann::json run_report(const graph::Graph& graph, const std::vector<graph::NodeResult>& results,
                          const std::string& status, bool dry_run, double seconds, const std::string& output_dir) {
  nlohmann::json models = nlohmann::json::array();
  nlohmann::json rejections = nlohmann::json::array();
  std::map<std::string, int> summary;
  const auto by_model = graph.nodes_by_model();
  for (std::size_t mi = 0; mi < graph.models.size(); ++mi) {
    const std::string& t = graph.models[mi];
    nlohmann::json stages = nlohmann::json::array();
    bool selected = false;
    for (std::size_t i : by_model[mi]) {
      const auto& n = graph.nodes[i];
      const auto& r = results[i];
      if (r.status == graph::Status::kNotRun && r.reason.empty()) continue;
      selected = true;
      summary[graph::status_word(r.status, dry_run)]++;
      nlohmann::json s = {{"name", n.name},
                          {"status", graph::status_word(r.status, dry_run)},
                          {"implementation", r.implementation.empty() ? n.implementation : r.implementation},
                          {"filename", n.primary_output},
                          {"elapsed_seconds", r.elapsed_seconds}};
      if (!r.reason.empty()) s["reason"] = r.reason;
      if (r.has_key) s["key"] = r.key.hex();
      if (r.from_remote) s["source"] = "remote";
      for (const auto& x : r.rejections)
        rejections.push_back({{"model", t},
                              {"stage", n.name},
                              {"key", r.key.hex()},
                              {"source", x.source},
                              {"reason", x.why.reason},
                              {"detail", x.why.detail}});
      if (!r.explanation.empty()) s["explanation"] = r.explanation;
      // What the stage measured (quantize: accuracy per output; compile: validation).
      if (auto m = nlohmann::json::parse(r.metrics_json.view(), nullptr, false); m.is_object() && !m.empty())
        s["metrics"] = std::move(m);
      nlohmann::json outs = nlohmann::json::array();
      for (const auto& o : r.outputs) outs.push_back({{"file", o.name}, {"digest", o.digest.hex()}, {"size", o.size}});
      s["outputs"] = outs;
      stages.push_back(std::move(s));
    }
    if (selected) models.push_back({{"name", t}, {"stages", stages}});
  }
  return {{"schema_version", kReportSchemaVersion},
          {"status", status},
          {"dry_run", dry_run},
          {"elapsed_seconds", seconds},
          {"output_dir", output_dir},
          {"summary", summary},
          {"models", models},
          {"cache_rejections", rejections}};
}

}  // namespace winml::cli
