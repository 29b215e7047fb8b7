#include "support/project.h"

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "model/model_io.h"
#include "store/digest.h"
#include "support/model_builder.h"

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

bool wait_until(const std::function<bool()>& pred, double seconds) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return pred();
}

}  // namespace winml::test
