#include "model/sidecars.h"

#include <map>
#include <set>

#include "base/atomic_file.h"
#include "base/copy_file.h"
#include "base/error.h"
#include "model/epcontext.h"
#include "model/external_data.h"
#include "model/model_io.h"
#include "model/path_safety.h"
#include "model/walk.h"
#include "base/path_text.h"

namespace winml::model {

namespace fs = std::filesystem;

std::vector<fs::path> ModelFiles::all() const {
  std::vector<fs::path> out{model};
  out.insert(out.end(), data_files.begin(), data_files.end());
  out.insert(out.end(), blob_files.begin(), blob_files.end());
  return out;
}

ModelFiles model_files(const fs::path& path) {
  // Embedded EPContext blobs stay in the mapped file: listing a compiled
  // model's files must not copy its blob (up to 2 GiB) into protobuf.
  Model m = load_model(path, {.map_blobs = true});
  ModelFiles f;
  f.model = path;
  for (const auto& [location, file] : m.external_files) f.data_files.push_back(file->path());
  f.blob_files = resolve_context_files(m.proto, path);
  return f;
}

std::string renamed_sidecar(const std::string& file_name, const std::string& from_stem, const std::string& to_stem) {
  if (file_name.starts_with(from_stem) && file_name.size() > from_stem.size()) {
    char next = file_name[from_stem.size()];
    if (next == '_' || next == '.' || next == '-') return to_stem + file_name.substr(from_stem.size());
  }
  return to_stem + "_" + file_name;
}

namespace {

void transfer(const fs::path& from, const fs::path& to, bool move) {
  if (move) {
    std::error_code ec;
    fs::rename(from, to, ec);
    if (!ec) return;  // else: another file system, copy instead
  }
  copy_file_atomic(from, to);
  if (move) fs::remove(from);
}

void relocate(const fs::path& from, const fs::path& to, bool move) {
  if (fs::weakly_canonical(from) == fs::weakly_canonical(to)) return;
  Model m = load_model(from);
  const fs::path to_dir = to.parent_path();
  if (!to_dir.empty()) fs::create_directories(to_dir);
  const std::string data_name = data_file_name(to);

  // External data: one file is carried over byte for byte; several files
  // (possible in models from other tools) are consolidated into one.
  if (m.external_files.size() > 1) {
    SaveOptions opts;
    opts.external = ExternalData::kAlways;
    Model copy = m;
    save_model(copy, to, opts);  // writes to + its .data
    m.proto = copy.proto;
  } else if (m.external_files.size() == 1) {
    const auto& [location, file] = *m.external_files.begin();
    transfer(file->path(), to_dir / from_utf8(data_name), move);
    for_each_tensor(*m.proto.mutable_graph(), [&](onnx::TensorProto& t, TensorSite) {
      if (!is_external(t)) return;
      for (auto& kv : *t.mutable_external_data())
        if (kv.key() == "location") kv.set_value(data_name);
    });
  } else {
    std::error_code ec;
    fs::remove(to_dir / from_utf8(data_name), ec);  // stale sidecar of an earlier build
  }

  // EPContext blobs follow the model's new stem.
  const std::string from_stem = to_utf8(from.stem()), to_stem = to_utf8(to.stem());
  std::map<std::string, std::string> renamed;
  std::set<std::string> taken;
  for_each_graph(*m.proto.mutable_graph(), [&](onnx::GraphProto& g, int) {
    for (auto& n : *g.mutable_node()) {
      if (!is_epcontext_node(n)) continue;
      std::int64_t embed_mode = 1;
      for (const auto& a : n.attribute())
        if (a.name() == "embed_mode") embed_mode = a.i();
      if (embed_mode != 0) continue;
      for (auto& a : *n.mutable_attribute()) {
        if (a.name() != "ep_cache_context" || a.s().empty()) continue;
        auto it = renamed.find(a.s());
        if (it == renamed.end()) {
          fs::path src = resolve_inside(from.parent_path(), a.s(), "EPContext ep_cache_context", from);
          std::string name = renamed_sidecar(to_utf8(src.filename()), from_stem, to_stem);
          for (int k = 2; taken.count(name); ++k)
            name = to_stem + "_" + std::to_string(k) + "_" + to_utf8(src.filename());
          taken.insert(name);
          transfer(src, to_dir / from_utf8(name), move);
          it = renamed.emplace(a.s(), name).first;
        }
        a.set_s(it->second);
      }
    }
  });

  write_file_atomic(to, serialize_deterministic(m.proto));
  if (move) {
    std::error_code ec;
    fs::remove(from, ec);
    for (const auto& [location, file] : m.external_files) fs::remove(file->path(), ec);
  }
}

}  // namespace

void copy_model(const fs::path& from, const fs::path& to) { relocate(from, to, false); }

void move_model(const fs::path& from, const fs::path& to) { relocate(from, to, true); }

void remove_model(const fs::path& path) {
  std::error_code ec;
  if (fs::exists(path, ec)) {
    try {
      for (const auto& f : model_files(path).all()) fs::remove(f, ec);
    } catch (const InputError&) {
      // A broken model: remove what we can name.
    }
  }
  fs::remove(path, ec);
  fs::remove(path.parent_path() / from_utf8(data_file_name(path)), ec);
}

}  // namespace winml::model
