// What a build shows on a real terminal (a tmux pseudo-terminal) and in a
// pipe: on the terminal the progress line is redrawn in place, finished
// stages are listed in colour and the summary names the artifact and its
// accuracy; in a pipe (CI logs) every event is a plain line, without escape
// codes; NO_COLOR turns colour off everywhere.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "support/cli_runner.h"
#include "support/project.h"
#include "support/temp_dir.h"

using namespace winml;
namespace fs = std::filesystem;

namespace {

std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string output_of(const std::string& command) {
  std::string out;
  if (FILE* p = ::popen(command.c_str(), "r")) {
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    ::pclose(p);
  }
  return out;
}

// A tmux server of its own (a socket in the test's directory), one window.
class Tmux {
 public:
  explicit Tmux(fs::path socket) : socket_(std::move(socket)) {}
  ~Tmux() { std::system((base() + " kill-server >/dev/null 2>&1").c_str()); }

  // Runs `command` in a 160x50 terminal; returns the pane (with its escape
  // codes when `escapes`) once `command` has printed `done_marker`. Every
  // pane seen on the way goes to `seen`, when given.
  std::string run(const std::string& command, const std::string& done_marker, bool escapes,
                  std::vector<std::string>* seen = nullptr) {
    const std::string start = base() + " -f /dev/null new-session -d -s build -x 160 -y 50 " +
                              quoted(command + "; echo " + done_marker + "; sleep 120");
    if (std::system(start.c_str()) != 0) return "tmux did not start";
    std::string pane;
    for (int i = 0; i < 600 && pane.find(done_marker + "\n") == std::string::npos; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      pane = output_of(base() + " capture-pane -p -t build");
      if (seen) seen->push_back(pane);
    }
    return escapes ? output_of(base() + " capture-pane -p -e -t build") : pane;
  }

 private:
  std::string base() const { return "tmux -S " + quoted(socket_.string()); }
  fs::path socket_;
};

bool have_tmux() { return std::system("command -v tmux >/dev/null 2>&1") == 0; }

fs::path quickstart_copy(const test::TempDir& dir, const std::string& name) {
  const fs::path project = dir / name;
  fs::copy(test::source_dir() / "examples" / "quickstart", project, fs::copy_options::recursive);
  fs::remove_all(project / "build");
  return project;
}

std::string build_command(const fs::path& project, const fs::path& cache, const std::string& env) {
  return "cd " + quoted(project.string()) +
         " && env -u NO_COLOR TERM=xterm-256color WINML_MAKE_CACHE_DIR=" + quoted(cache.string()) + " " + env + " " +
         quoted(WINML_MAKE_BIN) + " -j1";
}

// A project whose quantize stage calibrates for a few seconds: a 4096x4096
// linear model on 900 generated samples.
void write_slow_quantize(test::Project& p) {
  p.write_model("net.onnx", 1, 4096, 4096);
  p.write_config("[model]\nsource = \"net.onnx\"\n[quantize]\nsamples = 900\n");
}

}  // namespace

TEST(Terminal, TheStatusLineShowsHowFarALongStageIsWithARate) {
  if (!have_tmux()) GTEST_SKIP() << "tmux is not installed (apt install tmux)";
  test::Project p;
  write_slow_quantize(p);
  Tmux tmux(p.root() / "tmux.sock");
  std::vector<std::string> seen;
  const std::string command = "cd " + quoted(p.root().string()) + " && env TERM=xterm-256color WINML_MAKE_CACHE_DIR=" +
                              quoted(p.cache_dir().string()) + " " + quoted(WINML_MAKE_BIN) + " -j1";
  const std::string pane = tmux.run(command, "__BUILD_DONE__", false, &seen);
  ASSERT_NE(pane.find("winml-make: 6 stages: 6 completed"), std::string::npos) << pane;
  bool progress = false, rate = false;
  for (const auto& s : seen) {
    progress = progress || (s.find("net/quantize") != std::string::npos && s.find("calibration ") != std::string::npos &&
                            s.find("/900 samples") != std::string::npos);
    rate = rate || (s.find("/900 samples, ") != std::string::npos && s.find(" left") != std::string::npos);
  }
  EXPECT_TRUE(progress) << "no status line showed calibration's samples; the last pane:\n" << pane;
  std::string lines;  // the status lines seen
  for (const auto& s : seen)
    if (const std::size_t a = s.find("net/quantize "); a != std::string::npos)
      lines += s.substr(a, s.find('\n', a) - a) + "\n";
  EXPECT_TRUE(rate) << "no status line showed a rate and the time left:\n" << lines;
  EXPECT_EQ(pane.find("/900 samples"), std::string::npos) << pane;  // the status line is gone at the end
}

TEST(Terminal, WithJsonALongStagesProgressIsAnEventALineOnStderr) {
  test::Project p;
  write_slow_quantize(p);
  auto r = p.run({"--json", "-j1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<nlohmann::json> events;
  for (std::size_t at = 0; (at = r.err.find("{\"", at)) != std::string::npos;) {
    const std::size_t end = r.err.find('\n', at);
    events.push_back(nlohmann::json::parse(r.err.substr(at, end - at)));
    at = end;
  }
  ASSERT_FALSE(events.empty()) << r.err;
  std::uint64_t last_done = 0;
  std::map<std::string, double> last_elapsed;  // by stage: at most one event a second
  for (const auto& e : events) {
    EXPECT_EQ(e["event"], "progress") << e;
    EXPECT_EQ(e["model"], "net") << e;
    const std::string stage = e["stage"];
    if (last_elapsed.count(stage)) EXPECT_GE(e["elapsed_seconds"].get<double>(), last_elapsed[stage] + 0.9) << e;
    last_elapsed[stage] = e["elapsed_seconds"];
    if (e["stage"] == "quantize" && e.value("what", "") == "calibration") {
      EXPECT_EQ(e["total"], 900) << e;
      EXPECT_GE(e["done"].get<std::uint64_t>(), last_done) << e;
      last_done = e["done"];
    }
  }
  EXPECT_GT(last_done, 0u) << r.err;
  // The report on stdout is untouched: one JSON document.
  EXPECT_EQ(nlohmann::json::parse(r.out)["status"], "ok");
}

TEST(Terminal, ProgressIsRedrawnInPlaceAndTheSummaryShowsTheArtifactAndItsAccuracy) {
  if (!have_tmux()) GTEST_SKIP() << "tmux is not installed (apt install tmux)";
  test::TempDir dir;
  const fs::path project = quickstart_copy(dir, "project");
  Tmux tmux(dir / "tmux.sock");
  const std::string pane = tmux.run(build_command(project, dir / "cache", ""), "__BUILD_DONE__", true);
  // Finished stages are listed, their status word in green.
  EXPECT_NE(pane.find("\033[32mcompleted\033[39m"), std::string::npos) << pane;
  EXPECT_NE(pane.find("quickstart/package"), std::string::npos) << pane;
  EXPECT_NE(pane.find("winml-make: 6 stages: 6 completed"), std::string::npos) << pane;
  EXPECT_NE(pane.find("quickstart: build/quickstart/model.onnx"), std::string::npos) << pane;
  EXPECT_NE(pane.find("SQNR logits"), std::string::npos) << pane;
  // "running" events live in the status line, redrawn in place and cleared
  // at the end: none is left on the screen, and no "[n/6]" line either.
  EXPECT_EQ(pane.find("running"), std::string::npos) << pane;
  EXPECT_EQ(pane.find("/6]"), std::string::npos) << pane;
}

TEST(Terminal, NoColorTurnsColourOffOnATerminal) {
  if (!have_tmux()) GTEST_SKIP() << "tmux is not installed (apt install tmux)";
  test::TempDir dir;
  const fs::path project = quickstart_copy(dir, "project");
  Tmux tmux(dir / "tmux.sock");
  const std::string pane = tmux.run(build_command(project, dir / "cache", "NO_COLOR=1"), "__BUILD_DONE__", true);
  EXPECT_NE(pane.find("winml-make: 6 stages: 6 completed"), std::string::npos) << pane;
  EXPECT_EQ(pane.find("\033[3"), std::string::npos) << pane;  // no foreground colour
}

TEST(Terminal, PipedOutputIsPlainLinesWithoutEscapeCodes) {
  test::TempDir dir;
  const fs::path project = quickstart_copy(dir, "project");
  const std::map<std::string, std::string> env = {{"WINML_MAKE_CACHE_DIR", (dir / "cache").string()}, {"NO_COLOR", ""}};
  auto r = test::run_cli({"-j1"}, project, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  running    quickstart/export: never built\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  completed  quickstart/export"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\033'), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\r'), std::string::npos) << r.out;
  // --color=always colours a pipe too, unless NO_COLOR says otherwise.
  r = test::run_cli({"-j1", "--rebuild", "--color=always"}, project, env);
  EXPECT_NE(r.out.find("\033[32mcompleted\033[0m"), std::string::npos) << r.out;
  r = test::run_cli({"-j1", "--rebuild", "--color=always"}, project,
                    {{"WINML_MAKE_CACHE_DIR", (dir / "cache").string()}, {"NO_COLOR", "1"}});
  EXPECT_EQ(r.out.find('\033'), std::string::npos) << r.out;
  EXPECT_EQ(test::run_cli({"--color=sometimes"}, project, env).exit_code, 2);
}
