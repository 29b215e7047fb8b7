// The stage contract as a property: after any edit, an incremental build
// leaves exactly what a clean build of the same project leaves (files,
// sidecars, keys and metrics; timings aside).
//
// The edits are generated, not listed: every key of every config section
// (from the schema: booleans flip, numbers step within their range, choices
// move on, other types take the schema's `alternative`), every optimization
// pass, and every shipped rules/ file (an overlay with one array element
// removed, or a comment added). Each is tried on a real CNN
// (examples/quickstart, imported) and on a generated model whose
// optimized.onnx crosses the external-data threshold only after constant
// folding (exported by a command); those that reach compile's own
// declarations also on the CNN for an EP whose compiler is a command and on
// the CNN compiled through ONNX Runtime with the ref plugin EP; with
// `[build] auto` off and on. A key may not apply to every model (a source and
// an export command exclude each other) but must apply to one of them. Then
// 120 seeded random sequences of edits on the CNN.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <iostream>
#include <optional>
#include <random>
#include <set>

#include "base/rules.h"
#include "config/config.h"
#include "config/rule_names.h"
#include "support/project.h"
#include "model/model_io.h"
#include "model/tensor_file.h"
#include "support/model_builder.h"
#include "support/ort_oracle.h"

using namespace winml;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Keys no fast build can exercise, with the reason (covered elsewhere).
const std::map<std::string, std::string> kNotExercised = {
    {"export.torchvision", "needs a PyTorch export per build; tests/examples builds the torchvision recipe"},
};

// ---- config as TOML ---------------------------------------------------------

std::string toml_key(const std::string& k) {
  bool bare = !k.empty() && k.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") ==
                                std::string::npos;
  return bare ? k : json(k).dump();
}

std::string toml_value(const json& v) {
  if (v.is_array()) {
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + toml_value(v[i]);
    return out + "]";
  }
  if (v.is_object()) {
    std::string out = "{";
    bool first = true;
    for (const auto& [k, x] : v.items()) {
      out += (first ? " " : ", ") + toml_key(k) + " = " + toml_value(x);
      first = false;
    }
    return out + " }";
  }
  if (v.is_number_float()) {
    std::string s = v.dump();
    return s.find_first_of(".eE") == std::string::npos ? s + ".0" : s;
  }
  return v.dump();  // booleans, integers, strings (JSON escapes are TOML's)
}

std::string to_toml(const json& config) {
  std::string out;
  for (const auto& [section, keys] : config.items()) {
    out += "[" + section + "]\n";
    for (const auto& [k, v] : keys.items())
      if (!v.is_null()) out += toml_key(k) + " = " + toml_value(v) + "\n";
  }
  return out;
}

// ---- the edits ----------------------------------------------------------------

struct Edit {
  std::string name;  // "quantize.per_channel" or "rules/ep/cpu.toml"
  std::function<void(json& config, const fs::path& project)> apply;
};

std::optional<json> alternative_of(const config::KeyInfo& k, const json& current) {
  if (!k.alternative.is_null()) {
    if (k.alternative != current) return k.alternative;
    return std::nullopt;
  }
  switch (k.type) {
    case config::ValueType::kBool: return current.is_null() ? true : !current.get<bool>();
    case config::ValueType::kInt: {
      if (current.is_null()) return static_cast<std::int64_t>(k.min.value_or(1));
      std::int64_t v = current.get<std::int64_t>() + 1;
      if (k.max && static_cast<double>(v) > *k.max) v -= 2;
      return v;
    }
    case config::ValueType::kFloat: {
      double c = current.get<double>();
      return k.max && c < *k.max ? (c + *k.max) / 2 : c / 2;
    }
    case config::ValueType::kString:
      for (const auto& choice : k.allowed())
        if (choice != current) return choice;
      return std::nullopt;
    case config::ValueType::kTableList: {
      json element = json::object();
      for (const auto& e : k.element->keys())
        element[e.name] = e.alternative.is_null() ? e.default_value : e.alternative;
      return json::array({element});
    }
    default: return std::nullopt;
  }
}

const config::SectionSchema& schema_of(const std::string& section) {
  if (section == "build") return *config::build_schema();
  if (section == "model") return *config::model_schema();
  if (section == "export") return *config::export_schema();
  if (section == "optimize") return *config::optimize_schema();
  if (section == "quantize") return *config::quantize_schema();
  return *config::compile_schema();
}

// Removes the first array element written on a line of its own, or adds a comment.
std::string edited_rules_text(std::string text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    auto first = line.find_first_not_of(' ');
    if (first != std::string::npos && line[first] == '"' && line.size() > first + 2 && line.back() == ',' &&
        line.find('"', first + 1) == line.size() - 2)
      return text.erase(pos, end - pos + 1);
    pos = end + 1;
  }
  return text + "\n# edited\n";
}

// Every edit of `base` the schema and the shipped rules give.
std::vector<Edit> all_edits(const json& base) {
  std::vector<Edit> edits;
  for (const std::string section : {"build", "model", "export", "optimize", "quantize", "compile"}) {
    for (const auto& k : schema_of(section).keys()) {
      const std::string name = section + "." + k.name;
      const json current =
          base.contains(section) && base[section].contains(k.name) ? base[section][k.name] : k.default_value;
      auto alt = alternative_of(k, current);
      if (!alt) {
        ADD_FAILURE() << name << " has no alternative value: give its schema entry one (KeyInfo::alternative)";
        continue;
      }
      edits.push_back({name, [section, key = k.name, v = *alt](json& c, const fs::path&) { c[section][key] = v; }});
    }
  }
  const std::string level = base.contains("optimize") ? base["optimize"].value("level", "basic") : "basic";
  const auto on = config::optimization_level_passes(level);
  for (const auto& pass : config::optimization_pass_names()) {
    bool enabled = std::find(on.begin(), on.end(), pass) != on.end();
    edits.push_back(
        {"optimize." + pass, [pass, enabled](json& c, const fs::path&) { c["optimize"][pass] = !enabled; }});
  }
  for (std::size_t i = 0; i < rules::detail::kEmbeddedCount; ++i) {
    const std::string path(rules::detail::kEmbedded[i].path);
    const std::string text = edited_rules_text(std::string(rules::detail::kEmbedded[i].contents));
    edits.push_back({"rules/" + path, [path, text](json&, const fs::path& project) {
                       test::write_text(project / "rules" / path, text);
                     }});
  }
  return edits;
}

// ---- the projects -------------------------------------------------------------

struct ModelKind {
  std::string name;
  json config;  // the base configuration (without [build] auto)
  std::function<void(const fs::path&)> write_files;
  // The edits this kind takes (all when empty): one that differs from the
  // CNN only in how compile runs takes those that reach compile's own
  // declarations; an upstream edit reaches it as a new input model, the
  // same for every backend, and the CNN covers it.
  std::vector<std::string> edit_prefixes = {};
  bool takes(const std::string& edit) const {
    if (edit_prefixes.empty()) return true;
    for (const auto& prefix : edit_prefixes)
      if (edit.starts_with(prefix)) return true;
    return false;
  }
};

// What reaches compile's own declarations: its section, the build's and the
// model's keys, and the EP rules.
const std::vector<std::string> kCompileEdits = {"compile.", "build.", "model.", "rules/ep/"};

// A vendor compiler for ahead-of-time EPs: winml-make's own ref backend
// writes the EPContext model and its blob, as a vendor SDK would.
std::string vendor_compiler_script(const std::string& extra) {
  return "exec '" + test::winml_make_binary().string() + "' compile -m \"$1\" -o \"$2\" --ep ref --no-validate" +
         extra + "\n";
}

void write_common_files(const fs::path& dir, const std::vector<std::int64_t>& input_shape) {
  test::write_text(dir / "export.sh", "cp folding.onnx \"$1\"\n");
  test::write_text(dir / "vendor.sh", vendor_compiler_script(""));
  test::write_text(dir / "compile.sh", vendor_compiler_script(" --embed"));
  test::write_text(dir / "weights.pt", "not used by a command export");
  for (int i = 0; i < 2; ++i)
    model::write_npy(dir / "calibration" / ("s" + std::to_string(i)) / "image.npy",
                     test::random_tensor(input_shape, 40 + static_cast<std::uint32_t>(i)));
}

// y = image + three constants expanded to [1, n]: folding makes optimized.onnx
// about 12n bytes while export.onnx stays tiny.
std::string folding_model(std::int64_t n) {
  test::GraphBuilder g;
  g.input("image", {1, n}).output("y", {1, n});
  g.initializer_i64("shape", {2}, {1, n});
  std::string sum = "image";
  int i = 0;
  for (float v : {0.5f, 0.25f, 0.125f}) {
    const std::string c = "c" + std::to_string(i++);
    g.initializer(c, {1}, {v});
    g.node("Expand", {c, "shape"}, {c + "_big"});
    const std::string out = i == 3 ? "y" : "sum" + c;
    g.node("Add", {sum, c + "_big"}, {out});
    sum = out;
  }
  return model::serialize_deterministic(test::make_model(g.graph()));
}

ModelKind cnn() {
  return {"cnn",
          {{"model", {{"name", "net"}, {"source", "model.onnx"}}},
           {"quantize", {{"samples", 2}, {"per_channel", true}}},
           {"compile", {{"ep", "ref"}}}},
          [](const fs::path& dir) {
            fs::copy_file(test::source_dir() / "examples/quickstart/model.onnx", dir / "model.onnx");
            test::write_text(dir / "other.onnx", folding_model(64));
            test::write_text(dir / "folding.onnx", folding_model(64));
            write_common_files(dir, {1, 3, 64, 64});
          }};
}

// The CNN for an EP compiled ahead of time by a vendor compiler ([compile] command).
ModelKind vendor() {
  ModelKind k = cnn();
  k.name = "vendor";
  k.edit_prefixes = kCompileEdits;
  k.config["compile"] = {{"ep", "qnn"}, {"command", {"sh", "vendor.sh", "{input}", "{output}"}}};
  return k;
}

// The CNN compiled through ONNX Runtime with the ref plugin EP. The
// alternatives of the ORT keys point at files written here: ORT 1.30.0's
// library (the default is 1.29.0's) and a second path to the plugin.
ModelKind through_ort() {
  ModelKind k = cnn();
  k.name = "ort";
  k.edit_prefixes = kCompileEdits;
  k.config["compile"] = {{"ep", "ref"}, {"backend", "ort"}};
  k.write_files = [write = k.write_files](const fs::path& dir) {
    write(dir);
    fs::create_directories(dir / "ort");
    fs::create_symlink(WINML_ORT_LIBRARY_1_30, dir / "ort" / "libonnxruntime.so.1");
    fs::create_directories(dir / "ep");
    fs::create_symlink(test::winml_make_binary().parent_path() / "libwinml_ref_ep.so", dir / "ep" / "libplugin_ep.so");
  };
  return k;
}

ModelKind folding() {
  constexpr std::int64_t n = 100000;  // optimized.onnx ~1.2 MB: past a 1 MiB threshold, under 2
  return {"folding",
          {{"build", {{"external_data_threshold_mib", 1}}},
           {"model", {{"name", "net"}}},
           {"export", {{"command", {"cp", "folding.onnx", "{output}"}}, {"inputs", {"folding.onnx"}}}},
           {"quantize", {{"samples", 2}}}},
          [](const fs::path& dir) {
            test::write_text(dir / "folding.onnx", folding_model(n));
            test::write_text(dir / "other.onnx", folding_model(64));
            write_common_files(dir, {1, n});
          }};
}

const std::map<std::string, std::string> kEnv = {{"EXPORT_FLAVOR", "plain"}, {"COMPILER_HOME", "/opt/none"}};

test::CliResult build(const fs::path& project) {
  std::map<std::string, std::string> env = kEnv;
  return test::run_cli({"--no-cache", "--json", "-k"}, project, env);
}

// The manifest without what differs between an incremental and a clean run.
json comparable_manifest(const fs::path& file) {
  json m = json::parse(test::read_text(file));
  m.erase("timestamp");
  m.erase("elapsed_seconds");
  for (auto& s : m["stages"]) {
    for (const char* k : {"status", "reason", "elapsed_seconds", "explanation"}) s.erase(k);
    std::vector<std::string> timings;
    for (const auto& [k, v] : s.items())
      if (k.ends_with("_seconds")) timings.push_back(k);
    for (const auto& k : timings) s.erase(k);
  }
  return m;
}

fs::path model_dir(const fs::path& project, const json& config) {
  const std::string out = config.contains("build") ? config["build"].value("output_dir", "build") : "build";
  return project / out / config["model"].value("name", "net");
}

// What a project leaves for its model: every artifact, and the manifest's keys and metrics.
std::pair<std::map<std::string, std::string>, json> result_of(const fs::path& project, const json& config) {
  const fs::path dir = model_dir(project, config);
  return {test::artifacts(dir), comparable_manifest(dir / "build_manifest.json")};
}

// Files are hard links (builds replace files by rename, never in place), but
// the engine's records are copied: the journal is appended to.
void copy_project(const fs::path& from, const fs::path& to, bool with_outputs) {
  fs::create_directories(to);
  for (auto it = fs::recursive_directory_iterator(from); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path rel = it->path().lexically_relative(from);
    if (!with_outputs && *rel.begin() == "build") {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_directory()) {
      fs::create_directories(to / rel);
    } else if (it->path().string().find("/.winml-make/") != std::string::npos) {
      fs::copy_file(it->path(), to / rel);
    } else {
      fs::create_hard_link(it->path(), to / rel);
    }
  }
}

enum class Outcome { kSame, kNotApplicable, kDifferent };

// Applies `edits` one by one to a copy of the built `base` project, building
// after each; then builds the same final project from nothing and compares.
Outcome check(const fs::path& base, const json& base_config, const std::vector<const Edit*>& edits,
              const fs::path& scratch, std::string* why) {
  fs::remove_all(scratch);
  const fs::path inc = scratch / "incremental", clean = scratch / "clean";
  copy_project(base, inc, /*with_outputs=*/true);
  json config = base_config;
  test::CliResult last_inc;
  for (const Edit* e : edits) {
    e->apply(config, inc);
    test::write_text(inc / "winml.toml", to_toml(config));
    last_inc = build(inc);
    if (last_inc.exit_code == 2) return Outcome::kNotApplicable;  // the edit makes the config invalid here
  }
  copy_project(base, clean, /*with_outputs=*/false);
  json clean_config = base_config;
  for (const Edit* e : edits) e->apply(clean_config, clean);
  test::write_text(clean / "winml.toml", to_toml(clean_config));
  auto rc = build(clean);
  if (rc.exit_code != last_inc.exit_code) {
    *why = "exit " + std::to_string(last_inc.exit_code) + " incremental vs " + std::to_string(rc.exit_code) +
           " clean\n" + last_inc.err + rc.err;
    return Outcome::kDifferent;
  }
  if (rc.exit_code != 0) return Outcome::kNotApplicable;  // fails the same way either way (e.g. no vendor compiler)
  auto a = result_of(inc, config), b = result_of(clean, config);
  if (a.first != b.first) {
    std::string diff;
    for (const auto& [f, bytes] : a.first)
      if (!b.first.count(f) || b.first.at(f) != bytes) diff += " " + f;
    for (const auto& [f, bytes] : b.first)
      if (!a.first.count(f)) diff += " " + f + "(clean only)";
    *why = "artifacts differ:" + diff;
    return Outcome::kDifferent;
  }
  if (a.second != b.second) {
    *why = "manifests differ:\nincremental " + a.second.dump() + "\nclean " + b.second.dump();
    return Outcome::kDifferent;
  }
  return Outcome::kSame;
}

// Every generated edit on every model kind with `auto` as given; with
// `all_kinds`, every edit must apply to at least one of them.
void every_edit_on_every_model(bool auto_on, const std::vector<ModelKind>& kinds, bool all_kinds = true) {
  test::TempDir work(test::memory_temp_dir());
  std::map<std::string, int> applied;  // edit -> models it applied to
  std::size_t cases = 0;
  for (const ModelKind& kind : kinds) {
    json config = kind.config;
    config["build"]["auto"] = auto_on;
    const fs::path base = work / (kind.name + "-base");
    fs::create_directories(base);
    kind.write_files(base);
    test::write_text(base / "winml.toml", to_toml(config));
    auto r = build(base);
    ASSERT_EQ(r.exit_code, 0) << kind.name << ": " << r.err;
    for (const Edit& e : all_edits(config)) {
      applied.emplace(e.name, 0);
      if (!kind.takes(e.name)) continue;
      std::string why;
      Outcome o = check(base, config, {&e}, work / "case", &why);
      EXPECT_NE(o, Outcome::kDifferent) << kind.name << " auto=" << auto_on << ", edit " << e.name << ": " << why;
      if (o == Outcome::kSame) {
        ++applied[e.name];
        ++cases;
      }
    }
  }
  std::size_t covered = 0;
  for (const auto& [name, models] : applied) {
    if (models > 0) ++covered;
    else if (all_kinds && !kNotExercised.count(name))
      ADD_FAILURE() << name << " applied to no model: give it an alternative that builds";
  }
  std::cout << "stage contract, auto " << (auto_on ? "on" : "off") << ": " << applied.size() << " edits (" << covered
            << " exercised) x " << kinds.size() << " models: " << cases << " incremental == clean builds\n";
}

}  // namespace

TEST(StageContractProperty, EveryKeyAndRulesFileWithAutoOff) {
  every_edit_on_every_model(false, {cnn(), folding(), vendor(), through_ort()});
}

// With auto on, what differs is the optimize stage (optimize.auto) and so
// the bytes every later stage reads: the CNN and the folding model cover
// it; how the vendor compiler and ONNX Runtime compile what they are given
// is the same with auto on or off (the test above).
TEST(StageContractProperty, EveryKeyAndRulesFileWithAutoOn) {
  every_edit_on_every_model(true, {cnn(), folding()}, /*all_kinds=*/false);
}

TEST(StageContractProperty, ARandomEditSequenceOnTheCnnPerSeed) {
  test::TempDir work(test::memory_temp_dir());
  ModelKind kind = cnn();
  json config = kind.config;
  config["build"]["auto"] = false;
  const fs::path base = work / "base";
  fs::create_directories(base);
  kind.write_files(base);
  test::write_text(base / "winml.toml", to_toml(config));
  ASSERT_EQ(build(base).exit_code, 0);
  const std::vector<Edit> edits = all_edits(config);
  std::size_t same = 0;
  constexpr std::uint32_t kSeeds = 120;
  for (std::uint32_t seed = 1; seed <= kSeeds; ++seed) {
    std::mt19937 rng(seed);
    std::vector<const Edit*> sequence;
    const int length = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < length; ++i) sequence.push_back(&edits[rng() % edits.size()]);
    std::string why, names;
    for (const Edit* e : sequence) names += " " + e->name;
    Outcome o = check(base, config, sequence, work / "case", &why);
    EXPECT_NE(o, Outcome::kDifferent) << "seed " << seed << ":" << names << ": " << why;
    if (o == Outcome::kSame) ++same;
  }
  std::cout << "stage contract: " << kSeeds << " random edit sequences, " << same << " built and compared\n";
  EXPECT_GT(same, kSeeds / 2);
}
