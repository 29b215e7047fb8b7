#include "support/project.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "model/model_io.h"
#include "store/digest.h"
#include "support/model_builder.h"

extern char** environ;

namespace winml::test {

namespace fs = std::filesystem;

Project::Project() : root_(dir_ / "project"), cache_(dir_ / "cache") { fs::create_directories(root_); }

fs::path Project::out(const std::string& model, const std::string& file) const {
  fs::path p = root_ / "build" / model;
  return file.empty() ? p : p / file;
}

void Project::write_model(const std::string& file, std::uint32_t seed, std::int64_t in, std::int64_t out) {
  write(file, model::serialize_deterministic(linear_model(in, out, seed)));
}

void Project::write_config(const std::string& toml) { write("winml.toml", toml); }

void Project::write(const std::string& file, const std::string& text) { write_text(root_ / file, text); }

void Project::write_small_project(const std::string& extra_config) {
  write_model("net.onnx", 1);
  write_config("[model]\nsource = \"net.onnx\"\n" + extra_config);
}

void Project::link_exported_model(const std::string& file) {
  for (const std::string& f : {file, file + ".data"}) {
    fs::path src = test_models_dir() / f;
    if (f != file && !fs::exists(src)) continue;
    std::error_code ec;
    fs::create_hard_link(src, root_ / f, ec);  // no copy of hundreds of MB
    if (ec) fs::copy_file(src, root_ / f);
  }
}

CliResult Project::run(std::vector<std::string> args, std::map<std::string, std::string> env) const {
  if (!env.count("WINML_MAKE_CACHE_DIR")) env["WINML_MAKE_CACHE_DIR"] = cache_.string();
  return run_cli(args, root_, env);
}

nlohmann::json Project::build(std::vector<std::string> args, int expected_exit,
                              std::map<std::string, std::string> env) const {
  args.push_back("--json");
  CliResult r = run(args, env);
  EXPECT_EQ(r.exit_code, expected_exit) << r.err << r.out;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "not JSON: " << r.out << "\nstderr: " << r.err;
  if (j.is_discarded()) return nlohmann::json::object();
  j["_stderr"] = r.err;
  return j;
}

void Project::clone_to(const fs::path& dest) const {
  fs::create_directories(dest);
  for (const auto& e : fs::directory_iterator(root_)) {
    if (e.path().filename() == "build") continue;
    fs::copy(e.path(), dest / e.path().filename(), fs::copy_options::recursive);
  }
}

std::map<std::string, std::string> statuses(const nlohmann::json& report) {
  std::map<std::string, std::string> out;
  for (const auto& t : report.value("models", nlohmann::json::array()))
    for (const auto& s : t["stages"])
      out[t["name"].get<std::string>() + "/" + s["name"].get<std::string>()] = s["status"];
  return out;
}

std::vector<std::string> stages_with(const nlohmann::json& report, const std::string& model,
                                     const std::string& status) {
  std::vector<std::string> out;
  for (const auto& t : report.value("models", nlohmann::json::array()))
    if (t["name"] == model)
      for (const auto& s : t["stages"])
        if (s["status"] == status) out.push_back(s["name"]);
  return out;
}

std::map<std::string, std::string> artifact_digests(const fs::path& model_dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(model_dir))
    if (e.is_regular_file() && e.path().filename() != "build_manifest.json")
      out[e.path().filename().string()] = store::hash_file(e.path()).hex();
  return out;
}

std::map<std::string, std::string> artifacts(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    if (it->path().filename() == ".winml-make") {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file() || it->path().filename() == "build_manifest.json") continue;
    out[it->path().lexically_relative(dir).generic_string()] = read_text(it->path());
  }
  return out;
}

Background::Background(const std::vector<std::string>& args, const fs::path& cwd,
                       const std::map<std::string, std::string>& env) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, (capture_ / "out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, (capture_ / "err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Its own process group, with default signal handling, as a shell's
  // foreground job has (a test runner may start tests with SIGINT ignored).
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    std::string s(*e);
    if (!env.count(s.substr(0, s.find('=')))) env_strings.push_back(s);
  }
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  std::vector<std::string> argv{winml_make_binary().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> a, e;
  for (auto& s : argv) a.push_back(s.data());
  a.push_back(nullptr);
  for (auto& s : env_strings) e.push_back(s.data());
  e.push_back(nullptr);
  if (posix_spawn(&pid_, a[0], &actions, &attr, a.data(), e.data()) != 0) pid_ = -1;
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
}

Background::~Background() {
  if (pid_ > 0 && !waited_) {
    ::kill(-pid_, SIGKILL);
    int st;
    ::waitpid(pid_, &st, 0);
  }
}

void Background::signal(int sig) { ::kill(pid_, sig); }

void Background::signal_group(int sig) { ::kill(-pid_, sig); }

void Background::kill_group() { ::kill(-pid_, SIGKILL); }

CliResult Background::wait() {
  int status = 0;
  ::waitpid(pid_, &status, 0);
  waited_ = true;
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_text(capture_ / "out");
  r.err = read_text(capture_ / "err");
  return r;
}

bool wait_until(const std::function<bool()>& pred, double seconds) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return pred();
}

}  // namespace winml::test
