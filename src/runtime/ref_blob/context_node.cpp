#include "runtime/ref_blob/context_node.h"

#include "base/error.h"
#include "base/mapped_file.h"
#include "model/path_safety.h"
#include "runtime/errors.h"
#include "base/path_text.h"

namespace winml::runtime::ref_blob {

LoadedContext load_context(const ContextNode& n, const std::filesystem::path& model_path) {
  if (n.source != kSource)
    throw UnsupportedError("the EPContext blob was compiled for " +
                           (n.source.empty() ? std::string("an unnamed source") : n.source) +
                           "; this runtime executes only its own `ref` blobs (source " + kSource + ")");
  if (n.main_context != 1)
    throw UnsupportedError("main_context = 0 (a node sharing another node's context) is not used by `ref` blobs");
  if (n.cache_context.empty()) throw InputError("EPContext node has no ep_cache_context");
  const std::string model_name = model_path.empty() ? std::string("<model>") : to_utf8(model_path);
  LoadedContext r;
  std::string_view blob;
  std::shared_ptr<const void> keepalive = n.cache_keepalive;
  if (n.embed_mode == 1) {
    blob = n.cache_context;
    r.what = model_name + ": EPContext node '" + n.node_name + "'";
  } else if (n.embed_mode == 0) {
    if (model_path.empty()) throw InputError("an external EPContext blob needs the model's file location");
    auto path = model::resolve_inside(model_path.parent_path(), n.cache_context,
                                      "EPContext ep_cache_context", model_path);
    auto file = MappedFile::open(path);
    blob = file->view();
    keepalive = file;
    r.what = to_utf8(path);
  } else {
    throw InputError("embed_mode must be 0 or 1, got " + std::to_string(n.embed_mode));
  }
  r.plan = load_plan(blob, std::move(keepalive), r.what, &r.summary);
  // A node paired with another partition's blob (a swapped sidecar) would
  // compute nonsense: refuse it.
  if (!n.partition_name.empty() && r.summary.partition_name != n.partition_name)
    throw InputError(r.what + ": holds partition '" + r.summary.partition_name + "', but node '" + n.node_name +
                     "' expects partition '" + n.partition_name + "'");
  if (n.inputs != static_cast<int>(r.plan->inputs.size()) || n.outputs != static_cast<int>(r.plan->outputs.size()))
    throw InputError(r.what + ": the blob's plan takes " + std::to_string(r.plan->inputs.size()) +
                     " inputs and gives " + std::to_string(r.plan->outputs.size()) + " outputs, but node '" +
                     n.node_name + "' has " + std::to_string(n.inputs) + " and " + std::to_string(n.outputs));
  return r;
}

}  // namespace winml::runtime::ref_blob
