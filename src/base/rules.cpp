#include "base/rules.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "base/atomic_file.h"
#include "base/path_text.h"
#include "base/this_process.h"

namespace winml::rules {
namespace fs = std::filesystem;

Rules Rules::for_project(const fs::path& project_dir) {
  Rules r;
  if (auto env = environment_variable("WINML_MAKE_RULES_DIR"); env && !env->empty()) r.add_overlay(from_utf8(*env));
  if (!project_dir.empty() && fs::is_directory(project_dir / "rules")) r.add_overlay(project_dir / "rules");
  return r;
}

Rules Rules::only(std::map<std::string, File> files) {
  Rules r;
  r.only_ = std::make_shared<const std::map<std::string, File>>(std::move(files));
  return r;
}

std::optional<std::string> Rules::read(std::string_view path) const {
  if (only_) {
    auto it = only_->find(std::string(path));
    return it == only_->end() ? std::nullopt : it->second.text;
  }
  for (auto it = overlays_.rbegin(); it != overlays_.rend(); ++it) {
    fs::path p = *it / from_utf8(path);
    if (fs::is_regular_file(p)) return read_file(p);
  }
  for (std::size_t i = 0; i < detail::kEmbeddedCount; ++i)
    if (detail::kEmbedded[i].path == path) return std::string(detail::kEmbedded[i].contents);
  return std::nullopt;
}

std::string Rules::origin(std::string_view path) const {
  if (only_) {
    auto it = only_->find(std::string(path));
    if (it != only_->end()) return it->second.origin;
    return "<undeclared rules>/" + std::string(path);
  }
  for (auto it = overlays_.rbegin(); it != overlays_.rend(); ++it) {
    fs::path p = *it / from_utf8(path);
    if (fs::is_regular_file(p)) return to_utf8(p);
  }
  return "<shipped rules>/" + std::string(path);
}

std::vector<std::string> Rules::list(std::string_view dir, std::string_view extension) const {
  std::set<std::string> out;
  std::string prefix = std::string(dir) + "/";
  auto matches = [&](std::string_view p) {
    return p.starts_with(prefix) && p.ends_with(extension) &&
           p.substr(prefix.size()).find('/') == std::string_view::npos;
  };
  if (only_) {
    for (const auto& [p, f] : *only_)
      if (f.text && matches(p)) out.insert(p);
    return {out.begin(), out.end()};
  }
  for (std::size_t i = 0; i < detail::kEmbeddedCount; ++i)
    if (matches(detail::kEmbedded[i].path)) out.insert(std::string(detail::kEmbedded[i].path));
  for (const auto& o : overlays_) {
    fs::path d = o / from_utf8(dir);
    if (!fs::is_directory(d)) continue;
    for (const auto& e : fs::directory_iterator(d)) {
      std::string rel = prefix + to_utf8(e.path().filename());
      if (e.is_regular_file() && matches(rel)) out.insert(rel);
    }
  }
  return {out.begin(), out.end()};
}

namespace {
Rules& active_storage() {
  static Rules rules;
  return rules;
}
thread_local const Rules* t_scoped = nullptr;
}  // namespace

const Rules& active() { return t_scoped ? *t_scoped : active_storage(); }
void set_active(Rules rules) { active_storage() = std::move(rules); }

Scope::Scope(Rules rules) : rules_(std::move(rules)), previous_(t_scoped) { t_scoped = &rules_; }
Scope::~Scope() { t_scoped = previous_; }

}  // namespace winml::rules
