// winml-make [MODEL...] [-j N] [-k] [-n] [--explain] [--json] [--rebuild]
//            [--cache-dir DIR | --no-cache] [-o DIR] [--lock-timeout S]

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <thread>

#include "base/console.h"
#include "base/error.h"
#include "base/text.h"
#include "cli/artifact_summary.h"
#include "cli/build_report.h"
#include "cli/key_mismatch.h"
#include "cli/color.h"
#include "cli/context.h"
#include "cli/interrupt.h"
#include "cli/project_options.h"
#include "cli/tools_module.h"
#include "pipeline/build_run.h"
#include "remote/http_cache.h"
#include "base/path_text.h"

namespace winml::cli {

namespace {

namespace fs = std::filesystem;

struct BuildFlags {
  std::vector<std::string> models;
  int jobs = 0;
  bool keep_going = false, dry_run = false, explain = false, json = false, rebuild = false, no_cache = false;
  bool cached_only = false, no_remote_cache = false;
  std::string remote_cache, shard, color = "auto";
  double lock_timeout = -1;
};

int exit_code_of(const std::vector<graph::NodeResult>& results, bool interrupted) {
  if (interrupted) return kExitInterrupted;
  bool build_failure = false, input_failure = false;
  for (const auto& r : results)
    if (r.status == graph::Status::kFailed) (r.input_error ? input_failure : build_failure) = true;
  return build_failure ? kExitBuildFailure : input_failure ? kExitInputError : kExitOk;
}

std::string remote_line(const remote::RemoteStats& s, bool read_only) {
  std::string line = "winml-make: remote cache: " + std::to_string(s.hits) + " hit" + (s.hits == 1 ? "" : "s") + ", " +
                     std::to_string(s.misses) + " miss" + (s.misses == 1 ? "" : "es");
  if (s.refused) line += " (" + std::to_string(s.refused) + " refused)";
  if (read_only) line += ", read-only";
  else
    line += ", " + std::to_string(s.uploads) + " uploaded (" + std::to_string(s.blobs_uploaded) + " files sent, " +
            std::to_string(s.blobs_present) + " already there)";
  line += "; " + human_bytes(s.bytes_down) + " down, " + human_bytes(s.bytes_up) + " up";
  char time[32];
  std::snprintf(time, sizeof time, " in %.2f s", s.seconds);
  line += time;
  if (s.switched_off) line += "; switched off after an error";
  return line;
}

nlohmann::json remote_json(const remote::RemoteSettings& settings, const remote::RemoteStats& s) {
  const char* signing = !settings.signing_key.empty()  ? "sign and verify"
                        : !settings.verify_key.empty() ? "verify"
                                                       : "off";
  return {{"url", remote::redact_url(settings.url)},
          {"signatures", signing},
          {"mode", settings.mode == remote::RemoteMode::kReadOnly ? "read-only" : "read-write"},
          {"hits", s.hits},
          {"misses", s.misses},
          {"refused", s.refused},
          {"uploads", s.uploads},
          {"files_uploaded", s.blobs_uploaded},
          {"files_already_there", s.blobs_present},
          {"bytes_down", s.bytes_down},
          {"bytes_up", s.bytes_up},
          {"seconds", s.seconds},
          {"switched_off", s.switched_off}};
}

pipeline::BuildRequest request_of(const Context& ctx, const BuildFlags& f, const std::atomic<bool>& cancel,
                                  const std::function<void(const std::string&)>& warn) {
  pipeline::BuildSessionOptions session = session_options(ctx, !f.dry_run, &cancel);
  session.lock_timeout_seconds = f.lock_timeout;
  return {.session = std::move(session),
          .models = f.models,
          .shard = f.shard,
          .jobs = f.jobs,
          .keep_going = f.keep_going,
          .rebuild = f.rebuild,
          .dry_run = f.dry_run,
          .explain = f.explain,
          .cached_only = f.cached_only,
          .use_cache = !f.no_cache,
          .cache_dir = cache_dir(ctx.cache_dir),
          .remote_cache = f.remote_cache,
          .no_remote_cache = f.no_remote_cache,
          .warn = warn,
          .on_cache_lock_wait = [](const fs::path& root, const std::string& holder) {
            std::cerr << "winml-make: waiting for " << holder << " ('cache gc' or 'cache verify') to finish with "
                      << to_utf8(root) << "\n";
          }};
}

// After the build: where the artifacts are, the remote cache's traffic,
// refused cache entries, one error line per failed stage.
void report_after(const pipeline::Build& build, const std::vector<graph::NodeResult>& results, bool dry_run,
                  BuildReporter& reporter) {
  const pipeline::BuildPlan& plan = build.plan();
  if (!dry_run) {
    // Where the artifacts are, as the user would type it.
    std::error_code ec;
    const fs::path rel = plan.output_dir.lexically_relative(fs::current_path(ec));
    const bool inside = !ec && !rel.empty() && *rel.begin() != "..";
    for (const auto& line : artifact_summary(plan.graph, results, to_utf8((inside ? rel : plan.output_dir)) + "/"))
      reporter.note(line);
  }
  if (const remote::HttpCache* remote = build.remote()) {
    reporter.note(remote_line(remote->stats(), remote->settings().mode == remote::RemoteMode::kReadOnly));
    // The likeliest cause first, then the count.
    if (const std::string w = key_mismatch_warning(results, *remote); !w.empty()) reporter.note(w);
  }
  if (const std::string w = cache_rejections_warning(results); !w.empty()) reporter.note(w);
  // Errors also go to stderr (the progress may be on stdout): one line per
  // failed stage, its message's first line (which names the file).
  for (std::size_t i = 0; i < results.size(); ++i)
    if (results[i].status == graph::Status::kFailed) {
      const std::string& reason = results[i].reason;
      std::cerr << "winml-make: error: " << plan.graph.nodes[i].id() << ": " << reason.substr(0, reason.find('\n'))
                << "\n";
    }
}

int run_build(const Context& ctx, const BuildFlags& f) {
  const auto start = std::chrono::steady_clock::now();
  const std::atomic<bool>& cancel = install_interrupt_handler();
  std::ostream& log = f.json ? std::cerr : std::cout;
  BuildReporter* reporter = nullptr;  // warnings go through it once it prints progress
  auto warn = [&](const std::string& w) {
    if (reporter) reporter->note("winml-make: warning: " + w);
    else log << "winml-make: warning: " << w << "\n";
  };
  // Deliberately never freed: tearing down the plan and state of a large
  // project costs ~5% of a no-op build, and the process ends right after.
  // Held by a static, so it stays reachable and leak checkers agree.
  static pipeline::Build* kept_until_exit = nullptr;
  kept_until_exit = new pipeline::Build(request_of(ctx, f, cancel, warn), tool_stages());
  pipeline::Build& build = *kept_until_exit;
  // With --json, every way out prints a report on stdout.
  if (!build.open()) {
    std::cerr << "winml-make: interrupted while waiting for a lock\n";
    if (f.json) std::cout << error_report("interrupted", kExitInterrupted, "interrupted while waiting for a lock").dump(2) << "\n";
    return kExitInterrupted;
  }
  if (build.nothing_to_build()) {
    const pipeline::BuildPlan& plan = build.plan();
    log << "winml-make: shard " << f.shard << " holds none of the " << plan.graph.models.size()
        << " models; nothing to build\n";
    if (f.json) std::cout << run_report(plan.graph, std::vector<graph::NodeResult>(plan.graph.nodes.size()), "ok", f.dry_run, 0,
                                   to_utf8(plan.output_dir)).dump(2) << "\n";
    return kExitOk;
  }
  for (const auto& w : build.session().state().warnings()) log << "winml-make: warning: " << w << "\n";
  BuildReporter progress(log, is_terminal(f.json ? 2 : 1), use_color(parse_color_mode(f.color), f.json ? 2 : 1),
                         f.explain || f.dry_run, f.dry_run, build.plan().graph, build.node_count(), f.json);
  reporter = &progress;
  if (const remote::HttpCache* remote = build.remote())
    progress.transfer_counters(&remote->bytes_received(), &remote->bytes_sent());
  ToolRunner runner(build.session());
  std::vector<graph::NodeResult> results = build.run(runner, &progress);
  progress.stop();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  progress.summary(results, seconds);
  report_after(build, results, f.dry_run, progress);
  reporter = nullptr;
  const int code = exit_code_of(results, cancel.load());
  if (f.json) {
    const char* status = code == kExitOk ? "ok" : code == kExitInterrupted ? "interrupted" : "failed";
    nlohmann::json report =
        run_report(build.plan().graph, results, status, f.dry_run, seconds, to_utf8(build.plan().output_dir));
    if (build.remote()) report["remote_cache"] = remote_json(build.remote()->settings(), build.remote()->stats());
    std::cout << report.dump(2) << "\n";
  }
  return code;
}

}  // namespace

Command add_build_command(CLI::App& app) {
  auto f = std::make_shared<BuildFlags>();
  std::vector<const CLI::Option*> own = {
      app.add_option("models", f->models, "Models to build (default: all)"),
      app.add_option("-j,--jobs", f->jobs, "Models built in parallel (default: [build] jobs, else one per CPU core)"),
      app.add_flag("-k,--keep-going", f->keep_going, "Keep building other models after one fails"),
      app.add_flag("-n,--dry-run", f->dry_run, "Show what would run, and why, without running anything"),
      app.add_flag("--explain", f->explain, "For every stage that reruns, show which config key or input changed"),
      app.add_flag("--json", f->json, "Print a machine-readable report of the run on stdout (logs go to stderr)"),
      app.add_flag("--rebuild", f->rebuild, "Delete every artifact of the selected models (with sidecars) and rebuild"),
      app.add_flag("--no-cache", f->no_cache, "Neither restore from nor store into the cache (local or remote)"),
      app.add_option("--remote-cache", f->remote_cache,
                     "URL of a shared cache speaking Bazel's HTTP cache protocol (default: $WINML_MAKE_REMOTE_CACHE, "
                     "else [build] remote_cache)"),
      app.add_flag(
          "--no-remote-cache", f->no_remote_cache,
          "Use no shared cache, whatever --remote-cache, $WINML_MAKE_REMOTE_CACHE or [build] remote_cache say"),
      app.add_flag("--cached-only", f->cached_only,
                   "Fail, naming the stage, when a stage would have to run instead of coming from a cache"),
      app.add_option("--shard", f->shard,
                     "Build only shard I of N (I/N): the models a stable hash of the name puts there"),
      app.add_option("--color", f->color,
                     "Status words in colour: auto (on a terminal, unless $NO_COLOR is set), always, never")
          ->check(CLI::IsMember({"auto", "always", "never"})),
      app.add_option("--lock-timeout", f->lock_timeout,
                     "Seconds to wait for another winml-make building into the same directory (default: forever)")};
  return {&app, [f](const Context& ctx) { return run_build(ctx, *f); }, own};
}

}  // namespace winml::cli
