#include "config/project.h"

#include <set>

#include "base/atomic_file.h"
#include "base/error.h"
#include "base/path_text.h"
#include "base/text.h"
#include "config/model_name.h"
#include "config/overrides.h"
#include "config/section_table.h"
#include "config/torchvision_weights.h"

namespace winml::config {

namespace fs = std::filesystem;

namespace {

class Errors {
 public:
  explicit Errors(const Document& doc) : doc_(doc) {}
  void add(const std::string& key_path, const std::string& message, ErrorAt at = ErrorAt::kKey) {
    lines_.push_back(doc_.where(key_path, at == ErrorAt::kKey) + ": " + message);
  }
  ErrorSink sink() {
    return [this](const std::string& p, const std::string& m, ErrorAt at) { add(p, m, at); };
  }
  bool empty() const { return lines_.empty(); }
  void throw_if_any() const {
    if (!lines_.empty()) throw InputError(join(lines_, "\n"));
  }

 private:
  const Document& doc_;
  std::vector<std::string> lines_;
};

// `quantize = false` is shorthand for `[quantize] enabled = false`.
json normalize_section(const json& v) {
  if (v.is_boolean()) return json{{"enabled", v.get<bool>()}};
  return v;
}

void validate_section(const ConfigSection& section, const json& value, const std::string& path, Errors& errors) {
  section.schema().validate(normalize_section(value), path, errors.sink());
}

json merged(const json& global, const json& local) {
  json out = global.is_null() ? json::object() : normalize_section(global);
  if (local.is_null()) return out;
  const json overrides = normalize_section(local);
  for (const auto& [k, v] : overrides.items()) out[k] = v;
  return out;
}

void resolve(ModelSettings& t) {
  t.quantize = quantize_schema()->resolved(t.quantize);
  t.compile = compile_schema()->resolved(t.compile);
}

// A model without `name` is named after its source file, its torchvision
// model or the project directory; the result passes the same check as an
// explicit name, because it becomes a folder the tool writes and deletes in.
void name_model(ModelSettings& t, const fs::path& project_dir, const std::string& path, Errors& errors) {
  if (!t.model.name.empty()) return;  // checked by the schema
  std::string origin;
  if (!t.model.source.empty()) {
    t.model.name = model_name_from(to_utf8(from_utf8(t.model.source).stem()));
    origin = path + ".source";
  } else if (!t.export_.torchvision.empty()) {
    t.model.name = t.export_.torchvision;
    origin = "export.torchvision";
  } else {
    t.model.name = model_name_from(to_utf8(fs::weakly_canonical(project_dir).filename()));
    origin = path;
  }
  std::string problem = model_name_problem(t.model.name);
  if (!problem.empty())
    errors.add(origin, "the model name derived from here, '" + t.model.name.substr(0, kMaxModelNameLength) +
                           (t.model.name.size() > kMaxModelNameLength ? "..." : "") + "', " + problem +
                           ": set [model] name");
}

// The value at a dotted key path ("model[0].quantize"), or null.
const json& value_at(const json& root, const std::string& path) {
  static const json none;
  const json* at = &root;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('.', start);
    if (end == std::string::npos) end = path.size();
    std::string part = path.substr(start, end - start);
    std::size_t index = std::string::npos;
    if (const auto bracket = part.find('['); bracket != std::string::npos) {
      index = std::stoul(part.substr(bracket + 1));
      part.resize(bracket);
    }
    if (!at->is_object() || !at->contains(part)) return none;
    at = &(*at)[part];
    if (index != std::string::npos) {
      if (!at->is_array() || index >= at->size()) return none;
      at = &(*at)[index];
    }
    start = end + 1;
  }
  return *at;
}

// What switched `section` off for the model at `path`: its own table before
// the project-wide one, a flag or -D before the file.
std::string disabled_by(const Document& doc, const std::string& path, const std::string& section) {
  for (const std::string& p :
       {path + "." + section + ".enabled", path + "." + section, section + ".enabled", section}) {
    const bool enabled_key = p.ends_with(".enabled");
    if (auto o = doc.overridden.find(p); o != doc.overridden.end()) return o->second;
    if (!enabled_key && !value_at(doc.root, p).is_boolean()) continue;  // a table: `quantize = false` is the shorthand
    if (enabled_key && value_at(doc.root, p).is_null()) continue;
    if (auto l = doc.locations.find(p); l != doc.locations.end())
      return to_utf8(from_utf8(doc.file).filename()) + ":" + std::to_string(l->second.line);
    return "";
  }
  return "";
}

// Where `key` ("compile.ep_library") was set for the model at `path`: its
// own table before the project-wide one, a flag or -D before the file; "" for
// the default.
std::string set_by(const Document& doc, const std::string& path, const std::string& key) {
  for (const std::string& p : {path + "." + key, key}) {
    if (auto o = doc.overridden.find(p); o != doc.overridden.end()) return o->second;
    if (doc.locations.count(p)) return doc.where(p);
  }
  return "";
}

}  // namespace

namespace {

// Unknown top-level keys, and the project-wide sections' keys.
void check_top_level(const json& root, Errors& errors) {
  const std::vector<std::string> top_level = top_level_names();
  for (const auto& [k, v] : root.items())
    if (!find_config_section(k))
      errors.add(k, "unknown top-level key '" + k + "'" + did_you_mean(k, top_level) +
                        " (valid: " + join(top_level, ", ") + ")");
  for (const ConfigSection& section : config_sections()) {
    const std::string name(section.name);
    if (section.place != SectionPlace::kModel && root.contains(name))
      validate_section(section, root[name], name, errors);
  }
}

// [model] (one table) or [[model]] (array of tables): each entry with its key path.
std::vector<std::pair<json, std::string>> model_entries(const json& root, Errors& errors) {
  std::vector<std::pair<json, std::string>> entries;
  if (root.contains("model")) {
    const json& m = root["model"];
    if (m.is_object()) entries.emplace_back(m, "model");
    else if (m.is_array())
      for (std::size_t i = 0; i < m.size(); ++i) entries.emplace_back(m[i], "model[" + std::to_string(i) + "]");
    else errors.add("model", "'model' must be a table ([model]) or an array of tables ([[model]])");
  } else if (root.contains("export")) {
    entries.emplace_back(json::object(), "model");  // a project that only exports
  } else {
    errors.add("", "no model: add [model] with source = \"model.onnx\", or an [export] section");
  }
  return entries;
}

// The entry's own keys (its stage tables validated apart), validated; unknown ones are errors.
json model_keys(const json& entry, const std::string& path, Errors& errors) {
  json own = json::object();
  for (const auto& [k, v] : entry.items()) {
    const ConfigSection* section = find_config_section(k);
    if (section && section->place == SectionPlace::kStage) validate_section(*section, v, path + "." + k, errors);
    else own[k] = v;
  }
  std::vector<std::string> allowed = model_schema()->key_names();
  for (const auto& name : section_names(SectionPlace::kStage)) allowed.push_back(name);
  json known = json::object();
  for (const auto& [k, v] : own.items()) {
    if (model_schema()->find(k)) known[k] = v;
    else
      errors.add(path + "." + k, "unknown key '" + path + "." + k + "'" + did_you_mean(k, allowed) +
                                     " (valid: " + join(allowed, ", ") + ")");
  }
  model_schema()->validate(known, path, errors.sink());
  return known;
}

// The keys that contradict each other or name what is not there.
void check_model(const Document& doc, const ModelSettings& t, const std::string& path, Errors& errors) {
  bool has_export = !t.export_.command.empty() || !t.export_.torchvision.empty();
  if (t.model.source.empty() && !has_export)
    errors.add(path, "'" + path + "' has no source: set source = \"model.onnx\", or [export] command or torchvision");
  if (!t.model.source.empty() && has_export)
    errors.add(path + ".source", "'" + path +
                                     ".source' and an [export] command/torchvision are both set; "
                                     "choose one way to obtain the model");
  if (!t.export_.command.empty() && !t.export_.torchvision.empty())
    errors.add("export", "[export] command and torchvision are both set; choose one");
  if (!t.export_.torchvision.empty() && names_pretrained_weights(t.export_.weights)) {
    std::string problem;
    if (!find_pretrained_weights(t.export_.torchvision, t.export_.weights, &problem)) {
      const std::string own = path + ".export.weights";
      const bool set_here = doc.locations.count(own) || doc.overridden.count(own);
      errors.add(set_here ? own : "export.weights", "'export.weights' is '" + t.export_.weights + "': " + problem,
                 ErrorAt::kValue);
    }
  }
}

// One model's settings: its own keys and stage tables over the project-wide ones.
ModelSettings read_model(const Document& doc, const json& entry, const std::string& path, const json& known,
                         const ProjectConfig& project, Errors& errors) {
  const json& root = doc.root;
  ModelSettings t;
  t.build = project.build;
  t.model = model_schema()->read(known);
  for (const ConfigSection& section : config_sections()) {
    const std::string name(section.name);
    if (section.place == SectionPlace::kStage)
      section.read(t, merged(root.value(name, json()), entry.value(name, json())));
  }
  check_model(doc, t, path, errors);
  resolve(t);
  if (auto problem = value_range_problem(t.quantize); !problem.empty())
    errors.add("quantize.value_range", "'quantize.value_range' " + problem);
  if (t.compile.enabled)
    if (auto problem = backend_problem(t.compile); !problem.empty()) errors.add("compile.backend", problem);
  t.base_dir = project.project_dir;
  t.config_file = project.config_file;
  // What switched off each stage section that can be (one with `enabled`).
  for (const ConfigSection& section : config_sections()) {
    if (section.place != SectionPlace::kStage) continue;
    const std::string name(section.name);
    if (const json values = section.write(t); values.value("enabled", true) == false)
      t.disabled_by[name] = disabled_by(doc, path, name);
  }
  for (const auto& key : kKeysNamedBySource)
    if (auto where = set_by(doc, path, key); !where.empty()) t.set_by[key] = where;
  name_model(t, project.project_dir, path, errors);
  return t;
}

}  // namespace

ProjectConfig load_project(const Document& doc, const fs::path& project_dir) {
  Errors errors(doc);
  const json& root = doc.root;
  check_top_level(root, errors);
  std::vector<std::pair<json, std::string>> entries = model_entries(root, errors);

  ProjectConfig project;
  project.project_dir = project_dir;
  project.config_file = from_utf8(doc.file);
  // (Read only once validated: a value of the wrong type is an error above,
  // with its line, not an exception from the JSON library here. With errors
  // nothing reads project.build: they are thrown before any model is made.)
  if (errors.empty() && root.contains("build") && root["build"].is_object())
    project.build = build_schema()->read(root["build"]);

  std::set<std::string> names;
  for (auto& [entry, path] : entries) {
    if (!entry.is_object()) {
      errors.add(path, "'" + path + "' must be a table");
      continue;
    }
    const json known = model_keys(entry, path, errors);
    errors.throw_if_any();
    ModelSettings t = read_model(doc, entry, path, known, project, errors);
    if (!names.insert(t.model.name).second)
      errors.add(path + ".name", "model name '" + t.model.name + "' is used twice; give each [[model]] a unique name");
    project.models.push_back(std::move(t));
  }
  errors.throw_if_any();
  return project;
}

ProjectConfig load_project(const fs::path& project_dir, const fs::path& config_file,
                           const std::vector<std::string>& defines, const ReadConfigFile& read) {
  fs::path file = config_file.empty() ? project_dir / kProjectFile : config_file;
  std::optional<std::string> text;
  if (read) text = read(file);
  else if (fs::exists(file)) text = read_file(file);
  if (!text) {
    if (config_file.empty())
      throw InputError(file_error(to_utf8(file),
                                  "no such file: run winml-make in a project directory (one with "
                                  "winml.toml), or pass -C DIR or -c CONFIG"));
    throw InputError(file_error(to_utf8(file), "no such file"));
  }
  Document doc = parse_document(file, *text);
  apply_overrides(doc, defines);
  return load_project(doc, project_dir);
}

json section_json(const ModelSettings& t, const std::string& section) { return config_section(section).write(t); }

bool computed_from_other_keys(const std::string& dotted_key) {
  const auto dot = dotted_key.find('.');
  if (dot == std::string::npos) return false;
  const ConfigSection* section = find_config_section(std::string_view(dotted_key).substr(0, dot));
  const KeyInfo* k = section ? section->schema().find(dotted_key.substr(dot + 1)) : nullptr;
  return k && k->optional && k->resolve;
}

json to_json(const ModelSettings& t) {
  json out = json::object();
  for (const ConfigSection& s : config_sections()) out[std::string(s.name)] = s.write(t);
  return out;
}

std::string canonical_json_text(const ModelSettings& settings) { return to_json(settings).dump(2) + "\n"; }

}  // namespace winml::config
