#include "graph/inputs.h"

#include "base/error.h"
#include "base/glob_match.h"
#include "base/path_text.h"

namespace winml::graph {

namespace {

std::string display(const fs::path& project_dir, const fs::path& file) {
  const std::string& f = to_utf8(file);
  const std::string& p = to_utf8(project_dir);
  if (f.size() > p.size() + 1 && f.compare(0, p.size(), p) == 0 && f[p.size()] == '/' &&
      f.find("/.") == std::string::npos)
    return f.substr(p.size() + 1);  // the usual case, without path arithmetic
  fs::path rel = file.lexically_normal().lexically_relative(project_dir.lexically_normal());
  if (!rel.empty() && *rel.begin() != "..") return rel.generic_string();
  return file.generic_string();
}

ResolvedInput file_input(const std::string& prefix, const fs::path& project_dir, const fs::path& file,
                         store::BuildState& state) {
  auto d = state.stat_cache().digest(file);
  if (!d) throw InputError(file_error(to_utf8(file), "no such file (a declared input)"));
  std::string name = display(project_dir, file);
  return {Ingredient{prefix + name, *d, ""}, to_utf8(file)};
}

// A plain relative path (no '.', '..' or empty components): joined as strings.
bool plain_relative(const std::string& p) {
  if (p.empty() || p.front() == '/' || p.find("//") != std::string::npos) return false;
  return p != "." && p != ".." && !p.starts_with("./") && !p.starts_with("../") && p.find("/./") == std::string::npos &&
         p.find("/../") == std::string::npos && !p.ends_with("/.") && !p.ends_with("/..");
}

void add_tree(const fs::path& project_dir, const fs::path& path, store::BuildState& state,
              std::vector<ResolvedInput>& out) {
  auto& disk = state.disk();
  if (!disk.stat(to_utf8(path)).is_dir)
    throw InputError(file_error(to_utf8(path), "no such directory (a declared input)"));
  for (const auto& rel : disk.list_files(path)) out.push_back(file_input("file:", project_dir, path / from_utf8(rel), state));
}

// Lists below the longest wildcard-free directory prefix, then matches.
void add_glob(const fs::path& project_dir, const std::string& declared, store::BuildState& state,
              std::vector<ResolvedInput>& out) {
  auto& disk = state.disk();
  std::string pattern = to_utf8(from_utf8(declared));
  std::size_t wild = pattern.find_first_of("*?[");
  std::string fixed = pattern.substr(0, wild == std::string::npos ? pattern.size() : wild);
  std::size_t slash = fixed.rfind('/');
  fs::path base = slash == std::string::npos ? fs::path() : from_utf8(fixed.substr(0, slash));
  std::string rest = slash == std::string::npos ? pattern : pattern.substr(slash + 1);
  fs::path dir = base.is_absolute() ? base : project_dir / base;
  if (wild == std::string::npos) {
    if (disk.stat(to_utf8(dir / from_utf8(rest))).exists) out.push_back(file_input("file:", project_dir, dir / from_utf8(rest), state));
    return;
  }
  for (const auto& rel : disk.list_files(dir))
    if (glob_match(rest, rel)) out.push_back(file_input("file:", project_dir, dir / from_utf8(rel), state));
}

// A model and the sidecars it names.
void add_model(const fs::path& project_dir, const std::string& declared, const fs::path& path, store::BuildState& state,
               NodeRunner& runner, std::vector<ResolvedInput>& out) {
  ResolvedInput primary;
  if (plain_relative(declared)) {
    // The no-op path: no std::filesystem arithmetic.
    const std::string full = to_utf8(project_dir) + "/" + declared;
    auto d = state.stat_cache().digest(full);
    if (!d) throw InputError(file_error(full, "no such file (a declared input)"));
    primary = {Ingredient{"model:" + declared, *d, ""}, full};
  } else {
    primary = file_input("model:", project_dir, path, state);
  }
  const std::string& full = primary.path;
  const std::size_t slash = full.rfind('/');
  const std::string_view file_name = std::string_view(full).substr(slash + 1);
  // The sidecars a model names are a function of its bytes, memoized by digest; its own
  // name is not (a copy under another name has the same bytes), so it stays out of the memo.
  auto sidecars = state.model_sidecars(primary.ingredient.digest);
  if (!sidecars) {
    sidecars.emplace();
    for (auto& n : runner.model_files(from_utf8(primary.path)))
      if (n != file_name) sidecars->push_back(std::move(n));
    state.put_model_sidecars(primary.ingredient.digest, *sidecars);
  }
  const std::string parent = full.substr(0, slash);
  out.push_back(primary);
  for (const auto& n : *sidecars) out.push_back(file_input("model:", project_dir, from_utf8(parent) / from_utf8(n), state));
}

}  // namespace

std::vector<ResolvedInput> resolve_inputs(const std::vector<InputDecl>& decls, const fs::path& project_dir,
                                          store::BuildState& state, NodeRunner& runner) {
  std::vector<ResolvedInput> out;
  for (const auto& decl : decls) {
    // Made only when needed: the common kModel case needs no std::filesystem arithmetic.
    const bool plain_model = decl.kind == InputKind::kModel && plain_relative(decl.path);
    const fs::path path = plain_model                         ? fs::path()
                          : from_utf8(decl.path).is_absolute() ? from_utf8(decl.path)
                                                              : project_dir / from_utf8(decl.path);
    switch (decl.kind) {
      case InputKind::kFile:
        out.push_back(file_input("file:", project_dir, path, state));
        if (!decl.name.empty()) out.back().ingredient.name = "file:" + decl.name;
        break;
      case InputKind::kTree: add_tree(project_dir, path, state, out); break;
      case InputKind::kGlob: add_glob(project_dir, decl.path, state, out); break;
      case InputKind::kModel: add_model(project_dir, decl.path, path, state, runner, out); break;
    }
  }
  return out;
}

}  // namespace winml::graph
