// winml-make check [MODEL...] [--json]: builds the models again from
// scratch, in a scratch directory inside the state directory, with an empty
// cache of its own and no remote cache, and compares every output with what
// the project holds: the file in place, the digest its records name, and
// the cache's copy of that digest. Each stage whose bytes differ is named,
// with the first differing tensor, node or attribute (model/model_diff.h).

#include <CLI/CLI.hpp>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "base/atomic_file.h"
#include "base/error.h"
#include "base/native_file.h"
#include "base/path_text.h"
#include "base/subprocess.h"
#include "base/this_executable.h"
#include "base/this_process.h"
#include "cli/context.h"
#include "cli/project_options.h"
#include "cli/tools_module.h"
#include "model/model_diff.h"
#include "model/model_io.h"
#include "tools/commands.h"

namespace winml::tools {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Mismatch {
  std::string model, stage, file, where, first;  // where: "in place", "in the records", "in the cache"
};

// The scratch directory, removed however check ends.
// (Its artifacts are hard links to read-only cache blobs: Windows removes
// them only once that attribute is cleared, which remove_tree does.)
struct Scratch {
  fs::path dir;
  ~Scratch() { native::remove_tree(dir); }
};

json read_manifest(const fs::path& file) {
  if (!fs::exists(file)) return json::object();
  auto j = json::parse(read_file(file), nullptr, false);
  return j.is_discarded() ? json::object() : j;
}

// stage -> key, from a model's build_manifest.json.
std::map<std::string, std::string> keys_of(const json& manifest) {
  std::map<std::string, std::string> out;
  for (const auto& s : manifest.value("stages", json::array())) out[s.value("name", "")] = s.value("key", "");
  return out;
}

// stage -> file -> digest, from a model's build_manifest.json.
std::map<std::string, std::map<std::string, std::string>> outputs_of(const json& manifest) {
  std::map<std::string, std::map<std::string, std::string>> out;
  for (const auto& s : manifest.value("stages", json::array()))
    for (const auto& o : s.value("outputs", json::array()))
      out[s.value("name", "")][o.value("file", "")] = o.value("digest", "");
  return out;
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out + (names.size() == 1 ? " was" : " were");
}

struct StageFailure {
  std::string model, stage, reason;
};

struct FreshBuild {
  std::vector<StageFailure> failures;  // models whose fresh build failed: not compared
};

// The fresh build's --json report: each stage that failed, with the reason
// its record gives. A build that stopped before any stage ran (its report
// holds only an error) stops the check with that error and its exit code.
FreshBuild read_fresh_build(const std::string& report_text, const std::string& log, int exit_code) {
  json report = json::parse(report_text, nullptr, /*allow_exceptions=*/false);
  if (!report.is_object()) {
    if (exit_code == 0) throw BuildError("check: the fresh build printed no report");
    throw BuildError("check: the fresh build failed (exit " + std::to_string(exit_code) + "): " + log);
  }
  if (report.contains("error")) {
    const std::string message = "check: the fresh build stopped: " + report["error"].value("message", "");
    if (report["error"].value("kind", "") == "input") throw InputError(message);
    throw BuildError(message);
  }
  FreshBuild fb;
  for (const auto& m : report.value("models", json::array()))
    for (const auto& s : m.value("stages", json::array()))
      if (s.value("status", "") == "failed")
        fb.failures.push_back({m.value("name", ""), s.value("name", ""), s.value("reason", "")});
  if (exit_code != 0 && fb.failures.empty())
    throw BuildError("check: the fresh build failed (exit " + std::to_string(exit_code) + "): " + log);
  return fb;
}

// The first thing that differs between two versions of an artifact.
std::string first_difference(const fs::path& fresh, const fs::path& other) {
  if (!fs::exists(other)) return "missing";
  const std::string a = read_file(other), b = read_file(fresh);
  if (a == b) return "";
  if (fresh.extension() == ".onnx") {
    try {
      const model::Model ma = model::load_model(other), mb = model::load_model(fresh);
      const auto d = model::diff_models(ma, mb);
      if (!d.empty()) return d.front().kind + " " + d.front().name + ": " + d.front().detail;
    } catch (const std::exception& e) {
      return std::string("cannot be read: ") + e.what();
    }
  }
  const auto at = std::mismatch(a.begin(), a.end(), b.begin(), b.end()).first - a.begin();
  return std::to_string(a.size()) + " vs " + std::to_string(b.size()) + " bytes, first difference at byte " +
         std::to_string(at);
}

// The models to check (all when none is named); InputError when one was never built.
std::set<std::string> checked_models(pipeline::BuildSession& session, const std::vector<std::string>& names) {
  const graph::ModelSelection selected = cli::select_models(session, names);
  std::set<std::string> models = selected.names();
  if (selected.is_every_model()) models.insert(session.plan().graph.models.begin(), session.plan().graph.models.end());
  const fs::path output_dir = session.plan().output_dir;
  std::vector<std::string> never_built;
  for (const auto& m : models)
    if (!fs::exists(output_dir / m / "build_manifest.json")) never_built.push_back(m);
  if (!never_built.empty())
    throw InputError("check: nothing to compare: " + join_names(never_built) + " never built (no " +
                     to_utf8((output_dir / never_built.front() / "build_manifest.json")) +
                     "); build first, then check");
  return models;
}

// Builds `models` from scratch into `scratch`/out, with an empty cache of
// its own and no remote cache: this program run again, as the user ran it.
FreshBuild fresh_build(const cli::Context& ctx, const pipeline::BuildSession& session, const fs::path& scratch,
                       const std::set<std::string>& models, bool keep_going) {
  std::vector<std::string> argv = {to_utf8(this_executable()),
                                   "-C",
                                   to_utf8(session.options().source.project_dir),
                                   "-o",
                                   to_utf8((scratch / "out")),
                                   "--cache-dir",
                                   to_utf8((scratch / "cache")),
                                   "--no-remote-cache",
                                   "--json"};
  if (!ctx.config.empty()) argv.insert(argv.begin() + 1, {"-c", to_utf8(ctx.config_file())});
  for (const auto& d : ctx.defines) argv.insert(argv.end(), {"-D", d});
  if (keep_going) argv.push_back("-k");
  argv.insert(argv.end(), models.begin(), models.end());
  ProcessSpec spec;
  spec.argv = argv;
  spec.env = environment_variables();
  spec.env.erase("WINML_MAKE_CACHE_DIR");
  std::string report_text, log;
  spec.output = &report_text;
  spec.errors = &log;
  const ProcessResult r = run_process(spec);
  if (!r.started) throw BuildError("check: cannot run " + argv[0] + ": " + r.error);
  return read_fresh_build(report_text, log, r.exit_code);
}

// Where check finds what it compares: the fresh build's outputs, the project's, the cache.
struct Places {
  fs::path fresh_out, output_dir, cache;
};

// Compares every output of model `m`'s fresh build with the file in place,
// the digest its records name and the cache's copy of that digest; the
// number of outputs compared.
std::size_t compare_model(const Places& p, const std::string& m, std::vector<Mismatch>& found) {
  const json fresh = read_manifest(p.fresh_out / m / "build_manifest.json");
  const json records = read_manifest(p.output_dir / m / "build_manifest.json");
  const auto recorded = outputs_of(records);
  const auto fresh_keys = keys_of(fresh), recorded_keys = keys_of(records);
  std::size_t compared = 0;
  for (const auto& [stage, files] : outputs_of(fresh))
    for (const auto& [file, digest] : files) {
      ++compared;
      const fs::path made = p.fresh_out / m / file;
      // A key of its own says the fresh build is not the recorded one
      // (another arithmetic, an edited config): `--explain` says why.
      const auto rk = recorded_keys.find(stage);
      const bool rekeyed = rk != recorded_keys.end() && rk->second != fresh_keys.at(stage);
      // (Named copies: clang before 16 cannot capture structured bindings.)
      auto note = [&, stage_name = stage, file_name = file](const std::string& where, const std::string& first) {
        if (first.empty()) return;
        found.push_back({m, stage_name, file_name, where,
                         first + (rekeyed ? " (the fresh build's key differs from the record's)" : "")});
      };
      note("in place", first_difference(made, p.output_dir / m / file));
      const auto rs = recorded.find(stage);
      const std::string rec = rs == recorded.end() || !rs->second.count(file) ? "" : rs->second.at(file);
      if (rec != digest)
        note("in the records", "digest " + (rec.empty() ? std::string("missing") : rec) + " vs " + digest);
      if (!rec.empty()) {
        const fs::path cached = p.cache / "cas" / rec.substr(0, 2) / rec;
        if (fs::exists(cached)) note("in the cache", first_difference(made, cached));
      }
    }
  return compared;
}

void print_check_json(const FreshBuild& fresh, const std::vector<Mismatch>& found, std::size_t compared, bool same) {
  json j = {{"compared", compared}, {"same", same}, {"differences", json::array()}, {"failed", json::array()}};
  for (const auto& f : fresh.failures)
    j["failed"].push_back({{"model", f.model}, {"stage", f.stage}, {"reason", f.reason}});
  for (const auto& f : found)
    j["differences"].push_back(
        {{"model", f.model}, {"stage", f.stage}, {"file", f.file}, {"where", f.where}, {"first", f.first}});
  std::cout << j.dump(2) << "\n";
}

void print_check_text(const FreshBuild& fresh, const std::vector<Mismatch>& found, std::size_t compared,
                      std::size_t models) {
  if (found.empty() && fresh.failures.empty()) {
    std::cout << "check: " << compared << " outputs of " << models << " model(s) are the bytes of a fresh build\n";
    return;
  }
  for (const auto& f : fresh.failures)
    std::cerr << "winml-make: error: check: " << f.model << "/" << f.stage << ": the fresh build failed: " << f.reason
              << "\n";
  for (const auto& f : found)
    std::cout << f.model << "/" << f.stage << ": " << f.file << " differs " << f.where << ": " << f.first << "\n";
}

}  // namespace

cli::Command add_check_command(CLI::App& app) {
  struct Options {
    std::vector<std::string> models;
    bool json = false, keep_going = false;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* sub = app.add_subcommand(
      "check",
      "Build the models again from scratch, bypassing every cache, and compare each output with the project's");
  sub->add_option("models", opts->models, "Models to check (default: all)");
  sub->add_flag("--json", opts->json, "Machine-readable output");
  sub->add_flag("-k,--keep-going", opts->keep_going,
                "When a model's fresh build fails, still build and compare the others");
  sub->fallthrough();
  return {sub, [opts](const cli::Context& ctx) {
            pipeline::BuildSession session(cli::session_options(ctx, /*write=*/false, nullptr), cli::tool_stages());
            session.open();
            std::set<std::string> models = checked_models(session, opts->models);
            Scratch scratch{session.state_dir() / ("check-" + std::to_string(current_process_id()))};
            fs::create_directories(scratch.dir);
            const FreshBuild fresh = fresh_build(ctx, session, scratch.dir, models, opts->keep_going);
            // Without -k the fresh build stopped at the first failure: the others are incomplete.
            if (!opts->keep_going && !fresh.failures.empty()) models.clear();
            for (const auto& f : fresh.failures) models.erase(f.model);
            const Places places{scratch.dir / "out", session.plan().output_dir, cli::cache_dir(ctx.cache_dir)};
            std::vector<Mismatch> found;
            std::size_t compared = 0;
            for (const auto& m : models) compared += compare_model(places, m, found);
            const bool same = found.empty() && fresh.failures.empty();
            if (opts->json) print_check_json(fresh, found, compared, same);
            else print_check_text(fresh, found, compared, models.size());
            return same ? 0 : 1;
          }};
}

}  // namespace winml::tools
