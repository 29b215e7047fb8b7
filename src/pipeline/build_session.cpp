#include "pipeline/build_session.h"

#include <algorithm>
#include <chrono>
#include <fstream>

#include "base/atomic_file.h"
#include "base/error.h"
#include "base/huge_heap.h"
#include "base/path_text.h"
#include "base/text.h"
#include "config/project.h"
#include "config/subset.h"
#include "pipeline/killed_build_sweep.h"
#include "pipeline/layout.h"
#include "pipeline/manifest.h"
#include "store/confined_dir.h"

namespace winml::pipeline {

BuildSession::BuildSession(BuildSessionOptions options, const StageRegistry& registry)
    : options_(std::move(options)), registry_(registry) {}

BuildSession::~BuildSession() = default;

namespace {
constexpr std::uintmax_t kLargePlan = 32u << 10;  // about 35 models

// The node records a model's reports describe: a build killed after its
// stages were recorded but before its reports were written leaves reports
// of the build before, which the next build must notice although every
// stage is then up to date.
// The reports also describe the model's configuration (`config`), which may
// change where no stage's key does; a plan made again with the same
// configuration leaves them be.
// `results`, when given, spares the lookups: an up-to-date node's record
// holds the key the builder just compared it with.
store::Digest described_records(store::BuildState& state, const graph::Graph& g, const std::vector<std::size_t>& nodes,
                                const store::Digest& config, const std::vector<graph::NodeResult>* results = nullptr) {
  store::Hasher h;
  h.update_digest(config);
  for (std::size_t i : nodes) {
    const std::string id = g.nodes[i].id();
    h.update_field(id);
    if (results && (*results)[i].status == graph::Status::kUpToDate && (*results)[i].has_key) {
      h.update_digest((*results)[i].key);
    } else if (auto rec = state.find(id)) {
      h.update_digest(rec->key);
    } else {
      h.update_field("none");
    }
  }
  return h.finish();
}

// True when the report files are what the record says this tool wrote, and
// describe the node records as they are now.
bool reports_intact(store::BuildState& state, const std::string& record_id, const std::string& dir,
                    const store::Digest& described) {
  auto rec = state.find(record_id);
  if (!rec || rec->outputs.empty() || rec->key != described) return false;
  for (const auto& out : rec->outputs) {
    auto d = state.stat_cache().digest(dir + out.name);
    if (!d || *d != out.digest) return false;
  }
  return true;
}

// The plan a previous build stored, or nothing when it is damaged: then it
// is made again from the configuration.
std::optional<BuildPlan> stored_plan(const store::DiskInterface& disk, const fs::path& plan_file) {
  try {
    std::string_view text;
    auto keep = disk.view(plan_file, text);
    return parse_plan(text);
  } catch (const InputError&) {
    return std::nullopt;
  }
}
}  // namespace

void BuildSession::sweep_after_crash(const fs::path& output_dir) {
  if (!lock_->last_holder_was_killed()) return;
  sweep_killed_build(*options_.disk, output_dir);
  after_crash_ = true;
}

void BuildSession::lock_and_load(const fs::path& output_dir) {
  if (loaded_dir_ == output_dir && state_) return;
  lock_.reset();
  const fs::path dir = output_dir / kStateDir;
  if (options_.write && options_.take_lock) {
    const fs::path lock_file = dir / "lock";
    auto on_wait = [&](const std::string& holder) {
      if (options_.on_lock_wait) options_.on_lock_wait(lock_file, holder);
    };
    lock_ = store::DirectoryLock::acquire(lock_file, on_wait, options_.lock_timeout_seconds, options_.cancel);
    interrupted_ = !lock_;
    if (!lock_) return;
    sweep_after_crash(output_dir);
  }
  state_ = std::make_unique<store::BuildState>(*options_.disk, dir, options_.source.project_dir);
  if (!options_.write) state_->keep_in_memory();
  state_->load();
  ingredients_ = std::make_unique<store::IngredientLog>(*options_.disk, dir / "ingredients");
  loaded_dir_ = output_dir;
}

bool BuildSession::reuse_stored_plan(const fs::path& probe) {
  const fs::path plan_file = probe / kStateDir / "plan";
  const store::FileStat plan_stat = options_.disk->stat(to_utf8(plan_file));
  if (!plan_stat.exists) return false;
  // A project of more than a few dozen models touches megabytes of heap:
  // on huge pages that is one fault per 2 MiB instead of one per 4 KiB;
  // a small one would pay for zeroing 2 MiB it never uses.
  if (plan_stat.size >= kLargePlan) use_huge_pages_for_heap(32u << 20, 4u << 20);
  // The state first: its files are stat'ed on other threads while the plan
  // is parsed.
  lock_and_load(probe);
  if (!state_) return false;
  if (options_.prefetch_stats) state_->stat_cache().start_prefetch();
  // Whatever happens next (a plan made again, a bad config), the threads end here.
  struct WaitPrefetch {
    store::StatCache& stats;
    ~WaitPrefetch() { stats.wait_prefetch(); }
  } wait{state_->stat_cache()};
  std::optional<BuildPlan> stored = stored_plan(*options_.disk, plan_file);
  if (!stored || stored->output_dir != probe || memo_key(stored->env_names, stored->plan_files) != stored->memo_key)
    return false;
  plan_ = std::move(stored);
  return true;
}

store::Digest BuildSession::memo_key(const std::vector<std::string>& env_names,
                                     const std::vector<std::string>& plan_files) {
  return plan_memo_key(options_.source, registry_, state_->stat_cache(), env_names, plan_files, *options_.disk);
}

bool BuildSession::make_and_store_plan() {
  const config::ProjectConfig& p = project();
  const fs::path out = output_dir_of(*options_.disk, p, options_.source.output_dir_override);
  lock_and_load(out);
  if (!state_) return false;
  plan_ = make_plan(p, registry_, out);
  plan_->memo_key = memo_key(plan_->env_names, plan_->plan_files);
  plan_->contexts.memo_key = plan_->memo_key;
  if (!options_.write) return true;
  options_.disk->make_directories(out / kStateDir);
  // The contexts first: a plan is never stored without them.
  options_.disk->write_atomic(out / kStateDir / kContextsFile, serialize_contexts(plan_->contexts));
  options_.disk->write_atomic(out / kStateDir / "plan", serialize_plan(*plan_));
  // So that --explain can show config values of nodes that have not run yet.
  for (const auto& n : plan_->graph.nodes)
    if (n.enabled) ingredients_->add_static(n.static_digest, n.static_ingredients);
  return true;
}

bool BuildSession::open() {
  const auto& src = options_.source;
  // A stored plan is looked for where the output directory usually is (-o or
  // "build"); a project with another output_dir is parsed every time.
  if (!src.output_dir_override.empty())
    check_output_dir(*options_.disk, src.project_dir, src.config_file, src.output_dir_override, "-o");
  const fs::path probe = src.output_dir_override.empty() ? src.project_dir / "build" : src.output_dir_override;
  if (reuse_stored_plan(probe)) return true;
  if (interrupted_) return false;  // while waiting for the lock
  return make_and_store_plan();
}

const config::ProjectConfig& BuildSession::project() {
  std::lock_guard lock(project_mu_);
  if (!project_) {
    store::DiskInterface& disk = *options_.disk;
    auto read = [&disk](const fs::path& file) -> std::optional<std::string> {
      if (!disk.stat(to_utf8(file)).exists) return std::nullopt;
      return disk.read(file);
    };
    project_ =
        config::load_project(options_.source.project_dir, options_.source.config_file, options_.source.defines, read);
  }
  return *project_;
}

const PlanContexts& BuildSession::contexts() {
  std::lock_guard lock(contexts_mu_);
  if (!plan_->contexts.empty()) return plan_->contexts;
  const fs::path file = state_dir() / kContextsFile;
  std::optional<PlanContexts> stored;
  try {
    stored = parse_contexts(options_.disk->read(file));
  } catch (const InputError&) {  // missing or unreadable
  }
  if (stored && stored->memo_key == plan_->memo_key) {
    plan_->contexts = std::move(*stored);
  } else {
    // Damaged or deleted: made again as the plan was, from the configuration.
    plan_->contexts = make_plan(project(), registry_, plan_->output_dir).contexts;
    plan_->contexts.memo_key = plan_->memo_key;
    if (options_.write) options_.disk->write_atomic(file, serialize_contexts(plan_->contexts));
  }
  return plan_->contexts;
}

const DeclaredContext& BuildSession::declared_context(const graph::Node& node) {
  const auto& nodes = plan_->graph.nodes;
  std::size_t i = static_cast<std::size_t>(&node - nodes.data());
  if (i >= nodes.size()) i = plan_->graph.find(node.model, node.name);
  const PlanContexts& c = contexts();
  if (i >= c.nodes.size()) throw BuildError(node.id() + ": not a node of this build's plan");
  return c.nodes[i];
}

config::ModelSettings BuildSession::model_settings(const std::string& name) {
  const auto& models = plan_->graph.models;
  const auto it = std::find(models.begin(), models.end(), name);
  const PlanContexts& c = contexts();
  const std::size_t i = static_cast<std::size_t>(it - models.begin());
  if (i >= c.model_settings.size()) throw BuildError("model '" + name + "' is not in the configuration any more");
  config::ModelSettings settings = config::from_json(nlohmann::json::parse(c.model_settings[i]));
  settings.base_dir = options_.source.project_dir;
  settings.config_file = options_.source.config_file;
  return settings;
}

bool BuildSession::reports_current(std::size_t model_index, const std::vector<std::size_t>& nodes) {
  const auto& g = plan_->graph;
  const std::string& t = g.models[model_index];
  return reports_intact(*state_, t + "/" + kReportsRecord, to_utf8(plan_->output_dir) + "/" + t + "/",
                        described_records(*state_, g, nodes, plan_->model_settings_digests[model_index]));
}

void BuildSession::finish(const std::vector<graph::NodeResult>& results, const graph::ModelSelection& selected,
                          bool interrupted) {
  const auto& g = plan_->graph;
  const auto by_model = g.nodes_by_model();
  const store::ConfinedDir owned(plan_->output_dir, *options_.disk);
  for (std::size_t mi = 0; mi < g.models.size(); ++mi) {
    const std::string& t = g.models[mi];
    if (!selected.contains(t)) continue;
    bool touched = false;
    for (std::size_t i : by_model[mi])
      if (results[i].status != graph::Status::kUpToDate && results[i].status != graph::Status::kDisabled)
        touched = true;
    const std::string record_id = t + "/" + kReportsRecord;
    const store::Digest described =
        described_records(*state_, g, by_model[mi], plan_->model_settings_digests[mi], &results);
    // Untouched models keep their reports unless those were deleted or
    // changed, or describe other stage records or another configuration.
    if (!touched && reports_intact(*state_, record_id, to_utf8(plan_->output_dir) + "/" + t + "/", described)) continue;
    const fs::path dir = model_dir(t);
    owned.require(dir / kManifestFile, "write");
    store::NodeRecord record;
    record.key = described;
    const std::int64_t stamp = options_.disk->now_ns();
    record.outputs =
        write_model_reports(*plan_, model_settings(t), by_model[mi], results, dir, interrupted, *options_.disk);
    record.finished_ns = options_.disk->now_ns();
    for (const auto& out : record.outputs) state_->stat_cache().record(dir / out.name, out.digest, stamp);
    state_->put(record_id, record);
  }
  // Records of models no longer in the configuration stay: they are how
  // clean knows which files in their folders this tool wrote.
  if (selected.is_every_model()) state_->stat_cache().prune_unused();
  if (selected.is_every_model() && ingredients_->needs_compaction()) {
    // Keep the ingredient log to what current records and the plan use.
    std::set<store::Digest> keys, statics;
    for (const auto& id : state_->node_ids())
      if (auto r = state_->find(id)) keys.insert(r->key);
    for (const auto& n : g.nodes) statics.insert(n.static_digest);
    ingredients_->compact(keys, statics);
  }
  state_->save();
  lock_.reset();  // done: the next build need not sweep after this one
}

graph::ModelSelection select_models(const BuildSession& session, const std::vector<std::string>& names) {
  if (names.empty()) return graph::ModelSelection::every_model();
  std::set<std::string> out;
  const auto& all = session.plan().graph.models;
  for (const auto& n : names) {
    if (std::find(all.begin(), all.end(), n) == all.end())
      throw InputError(to_utf8(session.options().source.config_file) + ": no model named '" + n + "'" +
                       did_you_mean(n, all) + " (models: " + join(all, ", ") + ")");
    out.insert(n);
  }
  return graph::ModelSelection::only(std::move(out));
}

}  // namespace winml::pipeline
