#include "pipeline/build_plan.h"

#include <chrono>
#include <cstdlib>
#include <random>
#include <set>

#include "base/error.h"
#include "base/instruction_set.h"
#include "base/path_text.h"
#include "base/runtime_threads.h"
#include "base/this_executable.h"
#include "base/this_process.h"
#include "config/model_name.h"
#include "config/project.h"
#include "graph/graph_io.h"
#include "graph/key.h"
#include "pipeline/auto_optimize.h"
#include "pipeline/layout.h"
#include "store/disk.h"
#include "store/record_io.h"

namespace winml::pipeline {

namespace {

constexpr const char* kPlanMagic = "winml-make-plan";
constexpr std::uint64_t kPlanVersion = 6;

std::string env_value(const std::string& name) {
  const auto v = environment_variable(name);
  return v ? nlohmann::json(*v).dump() : "null";
}

}  // namespace

std::shared_ptr<Stage> stage_for(const graph::Node& node, const StageRegistry& registry) {
  if (node.kind == "optimize.auto") {
    auto opt = registry.find("optimize");
    if (!opt) return nullptr;
    return std::make_shared<AutoOptimizeStage>(opt, registry.find("analyze"));
  }
  return registry.find(node.kind);
}

void check_output_dir(const store::DiskInterface& disk, const fs::path& project_dir, const fs::path& config_file,
                      const fs::path& out, const std::string& named) {
  // Builds delete in the output directory: it must not hold the project.
  const fs::path rel = disk.resolve(project_dir).lexically_relative(disk.resolve(out));
  if (!rel.empty() && *rel.begin() != "..")
    throw InputError(file_error(to_utf8(config_file), named + " '" + to_utf8(out) +
                                                          "' is the project directory or contains it; choose a "
                                                          "folder of its own, such as \"build\""));
  const store::FileStat st = disk.stat(to_utf8(out));
  if (st.exists && !st.is_dir)
    throw InputError(file_error(to_utf8(out), named + " names a file that is not a directory"));
}

fs::path output_dir_of(const store::DiskInterface& disk, const config::ProjectConfig& project,
                       const fs::path& override_dir) {
  if (!override_dir.empty()) {
    const fs::path out = fs::absolute(override_dir).lexically_normal();
    check_output_dir(disk, project.project_dir, project.config_file, out, "-o");
    return out;
  }
  fs::path p = from_utf8(project.build.output_dir);
  const fs::path out = (p.is_absolute() ? p : project.project_dir / p).lexically_normal();
  check_output_dir(disk, project.project_dir, project.config_file, out, "[build] output_dir");
  return out;
}

namespace {

// Adds one model's chain of nodes to a plan, with what each stage declares.
class PlanMaker {
 public:
  PlanMaker(BuildPlan& plan, const StageRegistry& registry) : plan_(plan), registry_(registry) {}

  void add_model(const config::ModelSettings& t, const fs::path& config_file) {
    const std::string& name = t.model.name;
    if (std::string problem = config::model_name_problem(name); !problem.empty())  // loading checked it already
      throw InputError(file_error(to_utf8(config_file), "model name '" + name + "' " + problem));
    const std::string settings = config::canonical_json_text(t);
    plan_.graph.models.push_back(name);
    plan_.model_settings_digests.push_back(store::digest_of(settings));
    plan_.contexts.model_settings.push_back(settings);
    model_ = &t;
    cfg_ = config::to_json(t);
    add_chain(t);
  }
  void finish() {
    plan_.env_names.assign(env_names_.begin(), env_names_.end());
    plan_.plan_files.assign(plan_files_.begin(), plan_files_.end());
  }

 private:
  // export -> optimize -> {analyze, quantize -> compile -> package}; a
  // disabled stage is skipped by the chain (the next one reads the model
  // before it).
  void add_chain(const config::ModelSettings& t) {
    std::size_t last = add("export", t.model.source.empty() ? "export" : "import", kExportFile, true, "", graph::npos);
    const std::size_t opt = add("optimize", t.build.auto_discover ? "optimize.auto" : "optimize", kOptimizedFile,
                                t.optimize.enabled, why_disabled(t, "optimize"), last);
    if (t.optimize.enabled) last = opt;
    add("analyze", "analyze", kAnalyzeFile, registry_.find("analyze") != nullptr,
        "no analyze implementation in this build", last);
    const std::size_t q = add("quantize", "quantize", kQuantizedFile, t.quantize.enabled,
                              why_disabled(t, "quantize"), last);
    if (t.quantize.enabled) last = q;
    const std::size_t c = add("compile", "compile", kCompiledFile, t.compile.enabled,
                              why_disabled(t, "compile"), last);
    if (t.compile.enabled) last = c;
    add("package", "package", kModelFile, true, "", last);
  }

  // "disabled by --no-quant", "disabled in winml.toml:7 (quantize.enabled = false)".
  static std::string why_disabled(const config::ModelSettings& t, const std::string& section) {
    const auto by = t.disabled_by.find(section);
    const std::string origin = by == t.disabled_by.end() ? "" : by->second;
    if (origin.starts_with("-")) return "disabled by " + origin;
    return "disabled in " + (origin.empty() ? std::string("config") : origin) + " (" + section + ".enabled = false)";
  }

  std::size_t add(const std::string& stage_name, const std::string& kind, const char* output, bool enabled,
                  std::string disabled_reason, std::size_t dep) {
    graph::Node n;
    n.model = model_->model.name;
    n.name = stage_name;
    n.kind = kind;
    n.primary_output = output;
    n.enabled = enabled;
    if (!enabled) n.disabled_reason = std::move(disabled_reason);
    if (dep != graph::npos) n.deps.push_back(dep);
    DeclaredContext context;
    if (enabled) context = declare(n);
    plan_.graph.nodes.push_back(std::move(n));
    plan_.contexts.nodes.push_back(std::move(context));
    return plan_.graph.nodes.size() - 1;
  }

  // The one place a stage declares itself: its key ingredients, its inputs
  // and the context it will run with come from these declarations alone.
  DeclaredContext declare(graph::Node& n) {
    auto stage = stage_for(n, registry_);
    if (!stage) throw std::logic_error("no stage registered for '" + n.kind + "'");
    n.implementation = stage->implementation();
    const Declarations d = stage->declare(*model_);
    n.static_ingredients = key_ingredients(d, n.implementation, cfg_);
    n.static_digest = graph::static_digest_of(n.static_ingredients);
    n.extra_inputs = d.files;
    n.cannot_run = d.cannot_run;
    env_names_.insert(d.environment.begin(), d.environment.end());
    env_names_.insert(d.plan_environment.begin(), d.plan_environment.end());
    plan_files_.insert(d.plan_files.begin(), d.plan_files.end());
    return declared_context(d, *model_);
  }

  BuildPlan& plan_;
  const StageRegistry& registry_;
  const config::ModelSettings* model_ = nullptr;
  nlohmann::json cfg_;
  std::set<std::string> env_names_, plan_files_;
};

}  // namespace

BuildPlan make_plan(const config::ProjectConfig& project, const StageRegistry& registry, const fs::path& output_dir) {
  BuildPlan plan;
  plan.output_dir = output_dir;
  plan.build = project.build;
  PlanMaker maker(plan, registry);
  for (const auto& t : project.models) maker.add_model(t, project.config_file);
  maker.finish();
  return plan;
}

store::Digest plan_memo_key(const PlanSource& source, const StageRegistry& registry, store::StatCache& stats,
                            const std::vector<std::string>& env_names, const std::vector<std::string>& plan_files,
                            const store::DiskInterface& disk) {
  store::Hasher h;
  h.update_field(kPlanMagic);
  h.update_field(WINML_VERSION);
  h.update_field(registry.fingerprint());
  // This very binary: a rebuilt winml-make never trusts another's plan.
  // Named by its real path, one stat-cache entry per binary (two builds of
  // the tool never re-hash each other). A binary that cannot name itself
  // trusts no memo: its key takes a value no other run makes.
  const fs::path& self_path = this_executable();
  if (self_path.empty())
    h.update_field("unidentified binary " + std::to_string(std::random_device{}()) + " " +
                   std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  else if (auto self = stats.digest(to_utf8(self_path)))
    h.update_digest(*self);
  // And the stages' code where it is not in this binary (a module loaded on
  // demand): hashed, not loaded.
  for (const auto& f : registry.code_files()) {
    h.update_field(to_utf8(f));
    auto d = stats.digest(f);
    h.update_field(d ? d->hex() : "missing");
  }
  // The machine's arithmetic, which stages running the runtime carry (pipeline/declarations.h):
  // a plan made under another (WINML_RUNTIME_ISA, another CPU) is made again.
  h.update_field(arithmetic_identity());
  // Not the runtime's thread count, which no result depends on; a bad
  // $WINML_RUNTIME_THREADS is an input error before any stage runs.
  runtime_threads_override();
  h.update_field(to_utf8(source.project_dir));
  h.update_field(to_utf8(source.config_file));
  h.update_field(to_utf8(source.output_dir_override));
  h.update_field(std::to_string(source.defines.size()));
  for (const auto& d : source.defines) h.update_field(d);
  auto config_digest = stats.digest(source.config_file);
  h.update_field(config_digest ? config_digest->hex() : "missing");
  // Rule overlays change validation and resolved defaults.
  std::vector<fs::path> overlays;
  if (auto d = environment_variable("WINML_MAKE_RULES_DIR"); d && !d->empty()) overlays.push_back(from_utf8(*d));
  overlays.push_back(source.project_dir / "rules");
  for (const auto& dir : overlays) {
    h.update_field(to_utf8(dir));
    for (const auto& rel : disk.list_files(dir)) {
      h.update_field(rel);
      if (auto d = stats.digest(dir / from_utf8(rel))) h.update_digest(*d);
    }
  }
  for (const auto& e : env_names) {
    h.update_field(e);
    h.update_field(env_value(e));
  }
  // A stat each on a no-op: the digests come from the stat cache.
  h.update_field(std::to_string(plan_files.size()));
  for (const auto& f : plan_files) {
    h.update_field(f);
    auto d = stats.digest(f);
    h.update_field(d ? d->hex() : "missing");
  }
  return h.finish();
}

std::string serialize_plan(const BuildPlan& plan) {
  std::string out;
  store::RecordWriter w;
  w.field("H").field(kPlanMagic).field(kPlanVersion).field(plan.memo_key).field(to_utf8(plan.output_dir));
  w.finish(out);
  const auto& b = plan.build;
  w.field("B").field(b.output_dir).field(std::uint64_t(b.auto_discover)).field(std::uint64_t(b.rebuild));
  w.field(b.max_auto_iterations).field(b.external_data_threshold_mib).field(b.jobs);
  w.field(std::uint64_t(b.keep_going)).field(std::uint64_t(b.cache));
  w.field(b.remote_cache).field(b.remote_cache_transfer_timeout);
  w.finish(out);
  w.field("E").field(static_cast<std::uint64_t>(plan.env_names.size()));
  for (const auto& e : plan.env_names) w.field(e);
  w.finish(out);
  w.field("F").field(static_cast<std::uint64_t>(plan.plan_files.size()));
  for (const auto& f : plan.plan_files) w.field(f);
  w.finish(out);
  w.field("C").field(static_cast<std::uint64_t>(plan.model_settings_digests.size()));
  for (const auto& d : plan.model_settings_digests) w.field(d);
  w.finish(out);
  graph::write_graph(plan.graph, out);
  return out;
}

std::optional<BuildPlan> parse_plan(std::string_view text) {
  using store::field_text;
  using store::parse_i64;
  using store::parse_u64;
  store::RecordReader reader(text);
  std::vector<std::string_view> f;
  BuildPlan plan;
  std::uint64_t version = 0, n = 0, v1 = 0, v2 = 0, v3 = 0, v4 = 0;
  if (!reader.next(f) || f.size() != 5 || f[0] != "H" || f[1] != kPlanMagic || !parse_u64(f[2], version) ||
      version != kPlanVersion)
    return std::nullopt;
  auto key = store::Digest::from_hex(f[3]);
  if (!key) return std::nullopt;
  plan.memo_key = *key;
  plan.output_dir = from_utf8(field_text(f[4]));
  if (!reader.next(f) || f.size() != 11 || f[0] != "B") return std::nullopt;
  auto& b = plan.build;
  b.output_dir = field_text(f[1]);
  if (!parse_u64(f[2], v1) || !parse_u64(f[3], v2) || !parse_i64(f[4], b.max_auto_iterations) ||
      !parse_i64(f[5], b.external_data_threshold_mib) || !parse_i64(f[6], b.jobs) || !parse_u64(f[7], v3) ||
      !parse_u64(f[8], v4) || !parse_i64(f[10], b.remote_cache_transfer_timeout))
    return std::nullopt;
  b.remote_cache = field_text(f[9]);
  b.auto_discover = v1, b.rebuild = v2, b.keep_going = v3, b.cache = v4;
  if (!reader.next(f) || f.size() < 2 || f[0] != "E" || !parse_u64(f[1], n) || f.size() != 2 + n) return std::nullopt;
  for (std::uint64_t i = 0; i < n; ++i) plan.env_names.push_back(field_text(f[2 + i]));
  if (!reader.next(f) || f.size() < 2 || f[0] != "F" || !parse_u64(f[1], n) || f.size() != 2 + n) return std::nullopt;
  for (std::uint64_t i = 0; i < n; ++i) plan.plan_files.push_back(field_text(f[2 + i]));
  if (!reader.next(f) || f.size() < 2 || f[0] != "C" || !parse_u64(f[1], n) || f.size() != 2 + n) return std::nullopt;
  for (std::uint64_t i = 0; i < n; ++i) {
    auto d = store::Digest::from_hex(f[2 + i]);
    if (!d) return std::nullopt;
    plan.model_settings_digests.push_back(*d);
  }
  if (!graph::read_graph(reader, plan.graph) || plan.model_settings_digests.size() != plan.graph.models.size())
    return std::nullopt;
  return plan;
}

}  // namespace winml::pipeline
