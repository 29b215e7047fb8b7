#include "pipeline/build_session.h"

#include <chrono>
#include <fstream>

#include "base/atomic_file.h"
#include "store/confined_dir.h"
#include "base/error.h"
#include "base/huge_heap.h"
#include "config/project.h"
#include "pipeline/layout.h"
#include "pipeline/manifest.h"

namespace winml::pipeline {

BuildSession::BuildSession(BuildSessionOptions options, const StageRegistry& registry)
    : options_(std::move(options)), registry_(registry) {}

BuildSession::~BuildSession() = default;

namespace {
constexpr std::uintmax_t kLargePlan = 32u << 10;  // about 35 models

// Removes temporary files a killed build left in the output directory. Only
// needed when the previous writing build did not finish, which the marker
// says; a clean build does not pay for walking the directory.
void remove_temp_files(const store::ConfinedDir& owned, const fs::path& dir, int depth) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (is_temp_name(it->path())) owned.remove_tree(it->path());
    else if (depth > 0 && it->is_directory(ec) && !it->is_symlink(ec) && it->path().filename() != kStateDir)
      remove_temp_files(owned, it->path(), depth - 1);
  }
}

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
std::optional<BuildPlan> stored_plan(const fs::path& plan_file) {
  try {
    std::string_view text;
    auto keep = store::real_disk().view(plan_file, text);
    return parse_plan(text);
  } catch (const InputError&) {
    return std::nullopt;
  }
}
}  // namespace

void BuildSession::sweep_after_crash(const fs::path& output_dir) {
  if (!lock_->last_holder_was_killed()) return;
  const store::ConfinedDir owned(output_dir);
  remove_temp_files(owned, output_dir, 1);
  // The state folder's own temporaries (plan, state, journal, logs), and
  // staging areas: under the lock, every one there is a dead build's.
  remove_temp_files(owned, output_dir / kStateDir, 1);
  owned.remove_tree(output_dir / kStateDir / "staging");
  after_crash_ = true;
}

void BuildSession::lock_and_load(const fs::path& output_dir) {
  if (loaded_dir_ == output_dir && state_) return;
  lock_.reset();
  const fs::path dir = output_dir / kStateDir;
  if (options_.write) {
    const fs::path lock_file = dir / "lock";
    auto on_wait = [&](const std::string& holder) {
      if (options_.on_lock_wait) options_.on_lock_wait(lock_file, holder);
    };
    lock_ = store::DirectoryLock::acquire(lock_file, on_wait, options_.lock_timeout_seconds, options_.cancel);
    if (!lock_) return;  // interrupted while waiting
    sweep_after_crash(output_dir);
  }
  state_ = std::make_unique<store::BuildState>(store::real_disk(), dir, options_.source.project_dir);
  state_->load();
  ingredients_ = std::make_unique<store::IngredientLog>(store::real_disk(), dir / "ingredients");
  loaded_dir_ = output_dir;
}

bool BuildSession::open() {
  const auto& src = options_.source;
  // A stored plan is looked for where the output directory usually is (-o or
  // "build"); a project with another output_dir is parsed every time.
  if (!src.output_dir_override.empty())
    check_output_dir(src.project_dir, src.config_file, src.output_dir_override, "-o");
  const fs::path probe = src.output_dir_override.empty() ? src.project_dir / "build" : src.output_dir_override;
  const fs::path plan_file = probe / kStateDir / "plan";
  std::error_code ec;
  if (const auto plan_size = fs::file_size(plan_file, ec); !ec) {
    // A project of more than a few dozen models touches megabytes of heap:
    // on huge pages that is one fault per 2 MiB instead of one per 4 KiB;
    // a small one would pay for zeroing 2 MiB it never uses.
    if (plan_size >= kLargePlan) use_huge_pages_for_heap(32u << 20, 4u << 20);
    // The state first: its files are stat'ed on other threads while the
    // plan is parsed.
    lock_and_load(probe);
    if (!state_) return false;
    if (options_.prefetch_stats) state_->stat_cache().start_prefetch();
    // Whatever happens next (a plan made again, a bad config), the threads end here.
    struct WaitPrefetch {
      store::StatCache& stats;
      ~WaitPrefetch() { stats.wait_prefetch(); }
    } wait{state_->stat_cache()};
    std::optional<BuildPlan> stored = stored_plan(plan_file);
    if (stored && stored->output_dir == probe &&
        plan_memo_key(src, registry_, state_->stat_cache(), stored->env_names, stored->plan_files) ==
            stored->memo_key) {
      plan_ = std::move(stored);
      return true;
    }
  }
  const config::ProjectConfig& p = project();
  const fs::path out = output_dir_of(p, src.output_dir_override);
  lock_and_load(out);
  if (!state_) return false;
  plan_ = make_plan(p, registry_, out);
  plan_->memo_key = plan_memo_key(src, registry_, state_->stat_cache(), plan_->env_names, plan_->plan_files);
  if (options_.write) {
    write_file_atomic(out / kStateDir / "plan", serialize_plan(*plan_));
    // So that --explain can show config values of nodes that have not run yet.
    for (const auto& n : plan_->graph.nodes)
      if (n.enabled) ingredients_->add_static(n.static_digest, n.static_ingredients);
  }
  return true;
}

const config::ProjectConfig& BuildSession::project() {
  std::lock_guard lock(project_mu_);
  if (!project_)
    project_ = config::load_project(options_.source.project_dir, options_.source.config_file, options_.source.defines);
  return *project_;
}

const config::ModelSettings& BuildSession::model_settings(const std::string& name) {
  for (const auto& t : project().models)
    if (t.model.name == name) return t;
  throw BuildError("model '" + name + "' is not in the configuration any more");
}

bool BuildSession::reports_current(std::size_t model_index, const std::vector<std::size_t>& nodes) {
  const auto& g = plan_->graph;
  const std::string& t = g.models[model_index];
  return reports_intact(*state_, t + "/" + kReportsRecord, plan_->output_dir.native() + "/" + t + "/",
                        described_records(*state_, g, nodes, plan_->model_settings_digests[model_index]));
}

void BuildSession::finish(const std::vector<graph::NodeResult>& results, const std::set<std::string>& selected,
                          bool interrupted) {
  const auto& g = plan_->graph;
  const auto by_model = g.nodes_by_model();
  const store::ConfinedDir owned(plan_->output_dir);
  for (std::size_t ti = 0; ti < g.models.size(); ++ti) {
    const std::string& t = g.models[ti];
    if (!selected.empty() && !selected.count(t)) continue;
    bool touched = false;
    for (std::size_t i : by_model[ti])
      if (results[i].status != graph::Status::kUpToDate && results[i].status != graph::Status::kSkipped) touched = true;
    const std::string record_id = t + "/" + kReportsRecord;
    const store::Digest described =
        described_records(*state_, g, by_model[ti], plan_->model_settings_digests[ti], &results);
    // Untouched models keep their reports unless those were deleted or
    // changed, or describe other stage records or another configuration.
    if (!touched && reports_intact(*state_, record_id, plan_->output_dir.native() + "/" + t + "/", described)) continue;
    const fs::path dir = model_dir(t);
    owned.require(dir / kManifestFile, "write");
    store::NodeRecord record;
    record.key = described;
    const std::int64_t stamp = store::real_disk().now_ns();
    record.outputs = write_model_reports(*plan_, model_settings(t), by_model[ti], results, dir, interrupted);
    record.finished_ns = store::real_disk().now_ns();
    for (const auto& out : record.outputs) state_->stat_cache().record(dir / out.name, out.digest, stamp);
    state_->put(record_id, record);
  }
  // Records of models no longer in the configuration stay: they are how
  // clean knows which files in their folders this tool wrote.
  if (selected.empty()) state_->stat_cache().prune_unused();
  if (selected.empty() && ingredients_->needs_compaction()) {
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

}  // namespace winml::pipeline
