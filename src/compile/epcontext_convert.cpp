#include "compile/epcontext_convert.h"

#include <climits>
#include <map>
#include <set>

#include "base/atomic_file.h"
#include "base/copy_file.h"
#include "base/error.h"
#include "compile/epcontext_node.h"
#include "compile/staging.h"
#include "compile/validate.h"
#include "model/epcontext.h"
#include "model/external_data.h"
#include "model/model_io.h"
#include "model/node_util.h"
#include "model/path_safety.h"
#include "model/sidecars.h"
#include "model/walk.h"
#include "runtime/ref_blob/ref_blob.h"
#include "base/path_text.h"

namespace winml::compile {

namespace fs = std::filesystem;

namespace {

std::int64_t embed_mode_of(const onnx::NodeProto& n) {
  const auto* a = model::find_attr(n, "embed_mode");
  return a ? a->i() : 1;  // ONNX Runtime's default
}

std::string sidecar_name(const std::string& stem, const std::string& source, std::map<std::string, int>& used) {
  std::string kind = source == runtime::ref_blob::kSource ? "ref" : "ctx";
  int k = used[kind]++;
  return stem + "_" + kind + (k == 0 ? "" : "_" + std::to_string(k)) + ".bin";
}

}  // namespace

nlohmann::json convert_epcontext(const fs::path& in, const fs::path& out, bool embed) {
  if (fs::exists(out) && fs::equivalent(in, out))
    throw InputError(file_error(to_utf8(out), "the output must not be the input model"));
  model::Model m = model::load_model(in);
  auto contexts = model::find_ep_contexts(m.proto, m.dir());
  if (contexts.empty()) throw InputError(file_error(to_utf8(in), "has no EPContext nodes: nothing to convert"));
  for (const auto& c : contexts)
    if (c.main_context == 0)
      throw InputError(file_error(to_utf8(in), "EPContext node '" + c.node_name +
                                                   "' shares the context of another "
                                                   "node (main_context = 0); converting shared contexts is not "
                                                   "supported"));
  std::size_t verified = verify_ref_blobs(m);

  std::uint64_t embedded_bytes = 0;
  nlohmann::json nodes = nlohmann::json::array();
  write_model_staged(out, [&](const fs::path& staged) {
    const fs::path dir = staged.parent_path();
    const std::string stem = to_utf8(out.stem());
    std::map<std::string, int> used;
    model::for_each_graph(*m.proto.mutable_graph(), [&](onnx::GraphProto& g, int) {
      for (auto& n : *g.mutable_node()) {
        if (!model::is_epcontext_node(n)) continue;
        const auto* source_attr = model::find_attr(n, "source");
        const std::string source = source_attr ? source_attr->s() : std::string();
        onnx::AttributeProto* context = model::find_attr(n, "ep_cache_context");
        if (!context)
          throw InputError(file_error(to_utf8(in), "EPContext node '" + n.name() + "' has no ep_cache_context"));
        const bool was_embedded = embed_mode_of(n) != 0;
        nlohmann::json info{{"node", n.name()}, {"source", source}};
        if (embed) {
          if (!was_embedded) {
            fs::path file = model::resolve_inside(m.dir(), context->s(), "EPContext ep_cache_context", in);
            context->set_s(read_file(file));
            info["from"] = to_utf8(file.filename());
          }
          embedded_bytes += context->s().size();
          info["bytes"] = context->s().size();
        } else {
          std::string name = sidecar_name(stem, source, used);
          if (was_embedded) {
            write_file_atomic(dir / from_utf8(name), context->s());
          } else {
            copy_file_atomic(model::resolve_inside(m.dir(), context->s(), "EPContext ep_cache_context", in),
                             dir / name);
          }
          info["bytes"] = fs::file_size(dir / from_utf8(name));
          info["file"] = name;
          context->set_s(name);
        }
        model::set_attr_int(n, "embed_mode", embed ? 1 : 0);
        nodes.push_back(std::move(info));
      }
    });
    if (embedded_bytes + 64 * model::kMiB >= static_cast<std::uint64_t>(INT_MAX))
      throw InputError(
          file_error(to_utf8(in), "its blobs take " + std::to_string(embedded_bytes) +
                                      " bytes, too many to embed in an ONNX file (protobuf's 2 GiB limit)"));
    std::uint64_t weights = 0;
    model::for_each_tensor(m.proto.graph(), [&](const onnx::TensorProto& t, model::TensorSite site) {
      if (site == model::TensorSite::kInitializer) weights += model::payload_size(t);
    });
    model::SaveOptions save;
    save.external =
        weights >= model::kDefaultExternalDataThreshold ? model::ExternalData::kAlways : model::ExternalData::kNever;
    save.blob_alignment = 64;  // (as the ref backend writes them: model/blob_alignment.h)
    model::save_model(m, staged, save);
  });

  nlohmann::json metrics;
  metrics["embed_mode"] = embed ? 1 : 0;
  metrics["nodes"] = nodes;
  metrics["ref_blobs_verified"] = verified;
  return metrics;
}

}  // namespace winml::compile
