// SIGKILL at random moments, over and over: whatever instant a build dies
// at (inside a stage, between stages, while the cache, the manifest, the
// build config or the state are written), the next build leaves exactly what
// a clean build leaves, its records describe the files on disk, no temporary
// survives, `status` is honest and `cache verify` finds nothing to repair.
//
// WINML_MAKE_KILL_ITERATIONS sets the number of kills (default 50); the
// seed is printed so that a failure can be replayed (WINML_MAKE_KILL_SEED).
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <thread>

#include "support/project.h"
#include "store/digest.h"

using namespace winml;
using test::Project;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// Two configurations that differ in one quantize setting: a build of one
// killed, then a build of the other, is the case where stale records showed.
const char* kConfigs[2] = {
    "[model]\nsource = \"net.onnx\"\n[quantize]\ncalibration_method = \"minmax\"\n",
    "[model]\nsource = \"net.onnx\"\n[quantize]\ncalibration_method = \"percentile\"\n",
};

struct CleanBuild {
  std::map<std::string, std::string> files;
  json manifest;
};

// What must not differ between builds of the same config: keys, the config
// hash and every output's digest and size (timings and reasons may).
json essentials(const json& manifest) {
  json e = {
      {"cache_key", manifest["cache_key"]}, {"config_hash", manifest["config_hash"]}, {"status", manifest["status"]}};
  for (const auto& s : manifest["stages"])
    e["stages"].push_back(
        {{"name", s["name"]}, {"key", s.value("key", json())}, {"outputs", s.value("outputs", json())}});
  return e;
}

std::vector<std::string> temporaries_under(const fs::path& dir) {
  std::vector<std::string> found;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.find(".winml-tmp.") != std::string::npos || name == "running") found.push_back(it->path().string());
    if (it->path().parent_path().filename() == "staging") found.push_back(it->path().string());
  }
  return found;
}

// Every output the manifest lists is on disk with that size and digest.
void expect_manifest_describes_files(const fs::path& model_dir, const json& manifest, const std::string& when) {
  for (const auto& stage : manifest["stages"])
    for (const auto& out : stage.value("outputs", json::array())) {
      const fs::path file = model_dir / out["file"].get<std::string>();
      ASSERT_TRUE(fs::exists(file)) << when << ": the manifest lists " << file << " which is missing";
      EXPECT_EQ(fs::file_size(file), out["size"].get<std::uint64_t>()) << when << ": " << file;
      EXPECT_EQ(store::hash_file(file).hex(), out["digest"].get<std::string>()) << when << ": " << file;
    }
}

int iterations() {
  const char* n = std::getenv("WINML_MAKE_KILL_ITERATIONS");
  return n && *n ? std::atoi(n) : 50;
}

unsigned seed() {
  const char* s = std::getenv("WINML_MAKE_KILL_SEED");
  return s && *s ? static_cast<unsigned>(std::strtoul(s, nullptr, 10)) : std::random_device{}();
}

}  // namespace

TEST(KillLoop, EveryKillIsFollowedByABuildEqualToACleanOneWithHonestRecords) {
  // Clean builds of both configurations, and how long one takes.
  CleanBuild clean[2];
  double build_ms = 0;
  for (int c = 0; c < 2; ++c) {
    Project p;
    p.write_model("net.onnx", 7, 512, 256);
    p.write_config(kConfigs[c]);
    const auto t0 = std::chrono::steady_clock::now();
    p.build({"--no-cache"});
    build_ms =
        std::max(build_ms, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    clean[c].files = test::artifacts(p.root() / "build");
    clean[c].manifest = json::parse(test::read_text(p.out("net", "build_manifest.json")));
  }
  ASSERT_NE(clean[0].files["net/quantized.onnx"], clean[1].files["net/quantized.onnx"]) << "the configs must differ";

  // One project, one cache, as on a developer's machine. Builds come from
  // the cache once both configs were built: time those too, so that kills
  // land inside restores as often as inside running stages.
  Project p;
  p.write_model("net.onnx", 7, 512, 256);
  const std::map<std::string, std::string> env = p.cache_env();
  double restore_ms = 0;
  for (int c : {0, 1, 0}) {
    p.write_config(kConfigs[c]);
    const auto t0 = std::chrono::steady_clock::now();
    p.build({}, 0, env);
    restore_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }

  const unsigned s = seed();
  std::mt19937 rng(s);
  std::cout << "kill loop: seed " << s << " (WINML_MAKE_KILL_SEED replays it), " << iterations()
            << " kills; a build takes " << static_cast<int>(build_ms) << " ms, a restore "
            << static_cast<int>(restore_ms) << " ms\n";
  std::bernoulli_distribution coin(0.5);
  // Kill windows per kind of build (restoring, running): they adapt, as the
  // machine's load changes how long a build takes.
  double spans[2] = {1.2 * restore_ms, 1.2 * build_ms};
  int killed_mid_run = 0;
  for (int i = 0; i < iterations(); ++i) {
    const int c = i % 2;
    p.write_config(kConfigs[c]);
    // Half the builds run their stages (--no-cache), half restore; half of
    // each start with --rebuild, which deletes the artifacts first.
    std::vector<std::string> args;
    const bool no_cache = coin(rng);
    if (no_cache) args.push_back("--no-cache");
    if (coin(rng)) args.push_back("--rebuild");
    double& span = spans[no_cache ? 1 : 0];
    const int ms = static_cast<int>(std::uniform_real_distribution<double>(0, span)(rng));
    std::string when = "iteration " + std::to_string(i) + " (seed " + std::to_string(s) + ", winml-make";
    for (const auto& a : args) when += " " + a;
    when += " killed at " + std::to_string(ms) + " ms)";
    {
      test::Background run(args, p.root(), env);
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
      run.kill_group();
      if (run.wait().exit_code == test::Background::killed_exit_code()) {
        ++killed_mid_run;
        span *= 1.05;
      } else {
        span = std::max(5.0, span * 0.8);  // it ended before the kill
      }
    }
    auto after = p.run({"--json"}, env);
    ASSERT_EQ(after.exit_code, 0) << when << ": " << after.err;
    EXPECT_EQ(test::artifacts(p.root() / "build"), clean[c].files) << when;
    const json manifest = json::parse(test::read_text(p.out("net", "build_manifest.json")));
    EXPECT_EQ(essentials(manifest), essentials(clean[c].manifest)) << when;
    expect_manifest_describes_files(p.out("net"), manifest, when);
    EXPECT_EQ(temporaries_under(p.root()), std::vector<std::string>{}) << when;
    EXPECT_EQ(temporaries_under(p.cache_dir()), std::vector<std::string>{}) << when;

    auto status = p.run({"status", "--json"}, env);
    ASSERT_EQ(status.exit_code, 0) << when << ": " << status.out << status.err;
    const json status_report = json::parse(status.out);
    for (const auto& [stage, st] : test::statuses(status_report))
      EXPECT_TRUE(st == "up-to-date" || st == "skipped") << when << ": status says " << stage << " " << st;
    EXPECT_EQ(status_report["models"][0]["reports"], "up-to-date") << when;
    auto again = p.build({}, 0, env);
    for (const auto& [stage, st] : test::statuses(again))
      EXPECT_TRUE(st == "up-to-date" || st == "skipped") << when << ": " << stage << " " << st;
    auto verify = p.run({"cache", "verify"}, env);
    EXPECT_EQ(verify.exit_code, 0) << when << ": " << verify.out;
    if (HasFailure()) break;  // one clear report, not fifty
  }
  std::cout << "kill loop: " << killed_mid_run << " of " << iterations() << " builds were killed before they ended\n";
  // The delays must mostly land inside builds, or the loop tests nothing.
  EXPECT_GT(killed_mid_run, iterations() / 3);
}
