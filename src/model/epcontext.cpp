#include "model/epcontext.h"

#include <set>

#include "base/error.h"
#include "base/text.h"
#include "model/path_safety.h"
#include "model/walk.h"
#include "base/path_text.h"

namespace winml::model {

namespace fs = std::filesystem;

bool is_epcontext_node(const onnx::NodeProto& n) {
  return n.op_type() == kEpContextOp && n.domain() == kMicrosoftDomain;
}

bool is_epcontext_model(const onnx::ModelProto& m) {
  bool found = false;
  for_each_graph(m.graph(), [&](const onnx::GraphProto& g, int) {
    for (const auto& n : g.node()) found = found || is_epcontext_node(n);
  });
  return found;
}

std::vector<EpContextNode> find_ep_contexts(const onnx::ModelProto& m, const fs::path& model_dir) {
  std::vector<EpContextNode> out;
  for_each_graph(m.graph(), [&](const onnx::GraphProto& g, int) {
    for (const auto& n : g.node()) {
      if (!is_epcontext_node(n)) continue;
      EpContextNode e;
      e.node_name = n.name();
      // A reference: an embedded blob can be hundreds of megabytes.
      static const std::string kNone;
      const std::string* context = &kNone;
      for (const auto& a : n.attribute()) {
        if (a.name() == "main_context") e.main_context = a.i();
        else if (a.name() == "embed_mode") e.embed_mode = a.i(), e.embed_mode_explicit = true;
        else if (a.name() == "ep_cache_context") context = &a.s();
        else if (a.name() == "source") e.source = a.s();
        else if (a.name() == "partition_name") e.partition_name = a.s();
        else if (a.name() == "ep_sdk_version") e.ep_sdk_version = a.s();
      }
      if (e.embed_mode == 0) {
        e.blob_file = *context;
        std::error_code ec;
        if (!context->empty() && is_safe_relative(*context)) {
          auto size = fs::file_size(model_dir / from_utf8(*context), ec);
          if (!ec) e.blob_size = size;
        }
      } else {
        e.blob_size = context->size();
      }
      out.push_back(std::move(e));
    }
  });
  return out;
}

std::string ep_context_sources(const std::vector<EpContextNode>& nodes) {
  std::set<std::string> s;
  for (const auto& n : nodes) s.insert(n.source.empty() ? "an unnamed source" : n.source);
  return join({s.begin(), s.end()}, ", ");
}

std::vector<fs::path> resolve_context_files(const onnx::ModelProto& m, const fs::path& model_path) {
  std::vector<fs::path> files;
  std::set<std::string> seen;
  for (const auto& e : find_ep_contexts(m)) {
    if (e.embed_mode != 0 || e.blob_file.empty() || !seen.insert(e.blob_file).second) continue;
    fs::path p = resolve_inside(model_path.parent_path(), e.blob_file, "EPContext ep_cache_context", model_path);
    if (!fs::is_regular_file(p))
      throw InputError(file_error(to_utf8(model_path), "EPContext blob '" + e.blob_file + "' of node '" + e.node_name +
                                                           "' is missing (expected at " + to_utf8(p) + ")"));
    files.push_back(p);
  }
  return files;
}

void refuse_epcontext_input(const onnx::ModelProto& m, const std::string& model_path, const std::string& action) {
  if (!is_epcontext_model(m)) return;
  throw InputError(file_error(model_path, "Input model is a compiled EPContext artifact (EPContext nodes from " +
                                              ep_context_sources(find_ep_contexts(m)) + ")" + action));
}

}  // namespace winml::model
