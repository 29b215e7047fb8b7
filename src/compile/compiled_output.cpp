#include "compile/compiled_output.h"

#include <algorithm>
#include <map>
#include <set>

#include "base/atomic_file.h"
#include "base/error.h"
#include "base/this_process.h"
#include "model/blob_alignment.h"
#include "model/epcontext.h"
#include "model/model_io.h"
#include "model/node_util.h"
#include "model/path_safety.h"
#include "model/sidecars.h"
#include "model/walk.h"
#include "runtime/ref_blob/ref_blob.h"
#include "store/digest.h"
#include "base/path_text.h"

namespace winml::compile {

namespace fs = std::filesystem;

ScratchDir::ScratchDir(const fs::path& out) {
  const fs::path out_dir = out.parent_path().empty() ? fs::path(".") : out.parent_path();
  fs::create_directories(out_dir);
  dir_ = out_dir / (".compile" + std::string(kTempMarker) + std::to_string(current_process_id()));
  fs::remove_all(dir_);
  fs::create_directories(dir_);
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

nlohmann::json verify_epcontext_model(const fs::path& path) { return verify_epcontext_model(model::load_model(path)); }

nlohmann::json verify_epcontext_model(const model::Model& m) {
  // load_model refused absolute paths, "..", links leaving the directory and
  // missing files (path_safety); what is left is specific to compiled output.
  const fs::path& path = m.path;
  auto nodes = model::find_ep_contexts(m.proto, m.dir());
  if (nodes.empty())
    throw BuildError(
        file_error(to_utf8(path), "has no EPContext nodes: the compiler did not produce a compiled model"));
  nlohmann::json blobs = nlohmann::json::array();
  for (const auto& n : nodes) {
    nlohmann::json b;
    b["node"] = n.node_name;
    b["source"] = n.source;
    b["partition"] = n.partition_name;
    b["main_context"] = n.main_context;
    if (n.embed_mode == 0) {
      if (n.blob_file.empty()) {
        if (n.main_context == 0) continue;  // shares the blob of its main context node
        throw BuildError(file_error(to_utf8(path), "EPContext node '" + n.node_name + "' has no ep_cache_context"));
      }
      fs::path file = model::resolve_inside(m.dir(), n.blob_file, "EPContext ep_cache_context", path);
      if (fs::file_size(file) == 0)
        throw BuildError(
            file_error(to_utf8(path), "EPContext blob '" + n.blob_file + "' of node '" + n.node_name + "' is empty"));
      b["file"] = n.blob_file;
      b["bytes"] = fs::file_size(file);
    } else if (n.embed_mode == 1) {
      if (n.blob_size == 0 && n.main_context != 0)
        throw BuildError(file_error(to_utf8(path), "EPContext node '" + n.node_name + "' embeds an empty blob"));
      b["file"] = "embedded";
      b["bytes"] = n.blob_size;
    } else {
      throw BuildError(file_error(to_utf8(path), "EPContext node '" + n.node_name + "' has embed_mode " +
                                                     std::to_string(n.embed_mode) + " (must be 0 or 1)"));
    }
    blobs.push_back(std::move(b));
  }
  return blobs;
}

namespace {

// ONNX Runtime writes a model's opsets, metadata and each node's attributes
// in the order of its hash maps, which is its C++ library's (libstdc++ on
// Linux, MSVC's on Windows): sorted, the model is the same bytes whichever
// build of ONNX Runtime wrote it.
void sort_what_hash_maps_ordered(onnx::ModelProto& m) {
  std::sort(m.mutable_opset_import()->begin(), m.mutable_opset_import()->end(),
            [](const auto& a, const auto& b) { return a.domain() < b.domain(); });
  std::sort(m.mutable_metadata_props()->begin(), m.mutable_metadata_props()->end(),
            [](const auto& a, const auto& b) { return a.key() < b.key(); });
  model::for_each_graph(*m.mutable_graph(), [](onnx::GraphProto& g, int) {
    for (auto& n : *g.mutable_node())
      std::sort(n.mutable_attribute()->begin(), n.mutable_attribute()->end(),
                [](const auto& a, const auto& b) { return a.name() < b.name(); });
  });
}

}  // namespace

PlacedModel place_compiled_model(const fs::path& scratch, const fs::path& staged, const fs::path& out,
                                 const nlohmann::json& verified) {
  PlacedModel placed;
  model::Model m = model::load_model(staged);
  sort_what_hash_maps_ordered(m.proto);
  const std::string stem = to_utf8(out.stem());
  std::map<std::string, std::string> renamed;  // old reference -> new name
  std::set<fs::path> keep{staged};
  for (const auto& [location, file] : m.external_files) keep.insert(file->path());
  model::for_each_graph(*m.proto.mutable_graph(), [&](onnx::GraphProto& g, int) {
    for (auto& n : *g.mutable_node()) {
      if (!model::is_epcontext_node(n)) continue;
      const auto* embed = model::find_attr(n, "embed_mode");
      if (!embed || embed->i() != 0) continue;  // a missing embed_mode means embedded
      onnx::AttributeProto* context = model::find_attr(n, "ep_cache_context");
      if (!context || context->s().empty()) continue;
      auto it = renamed.find(context->s());
      if (it == renamed.end()) {
        fs::path file = model::resolve_inside(scratch, context->s(), "EPContext ep_cache_context", staged);
        store::Digest d = store::hash_file(file);
        std::string name = stem + "_" + d.hex() + ".bin";
        if (from_utf8(name) != from_utf8(context->s())) fs::rename(file, scratch / from_utf8(name));
        keep.insert(scratch / from_utf8(name));
        placed.blobs.push_back({{"file", name}, {"digest", d.hex()}, {"bytes", fs::file_size(scratch / from_utf8(name))}});
        it = renamed.emplace(context->s(), name).first;
      }
      context->set_s(it->second);
    }
  });
  // Embedded ref blobs (the plugin EP's, through ORT) at 64-byte offsets of
  // the file, as the built-in backend writes them: a reader that maps the
  // model (winml-make run, the plugin in ORT) then uses their weights in place.
  model::align_embedded_blobs(m.proto, 64, 64 * 1024, runtime::ref_blob::kSource);
  write_file_atomic(staged, model::serialize_deterministic(m.proto));

  for (const auto& entry : fs::recursive_directory_iterator(scratch))
    if (entry.is_regular_file() && !keep.count(entry.path()))
      placed.discarded.push_back(to_utf8(fs::relative(entry.path(), scratch)));

  placed.epcontext_nodes = verified;
  for (auto& n : placed.epcontext_nodes)
    if (auto it = renamed.find(n.value("file", std::string())); it != renamed.end()) n["file"] = it->second;

  model::remove_model(out);  // and the sidecars of an earlier result
  model::move_model(staged, out);
  return placed;
}

}  // namespace winml::compile
