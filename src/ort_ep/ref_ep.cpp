#include "ort_ep/ref_ep.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "base/atomic_file.h"
#include "base/error.h"
#include "base/mapped_file.h"
#include "base/memory_pages.h"
#include "compile/ref_backend.h"
#include "compile/ref_partition.h"
#include "model/epcontext.h"
#include "ort_ep/claims.h"
#include "ort_ep/model_file_blob.h"
#include "ort_ep/partition_model.h"
#include "runtime/ref_blob/context_node.h"
#include "base/path_text.h"

namespace winml::ort_ep {

namespace fs = std::filesystem;

namespace {

// Embedded blobs from this size on are read in the model file rather than
// copied out of ORT's attribute (as LoadOptions::map_blobs_from).
constexpr std::size_t kMapBlobsFrom = 64 * 1024;

// What ORT calls to run one fused node: the partition it owns.
struct ComputeInfo : OrtNodeComputeInfo {
  ComputeInfo(const Api& api_tables, std::unique_ptr<CompiledPartition> p)
      : OrtNodeComputeInfo{}, api(api_tables), partition(std::move(p)) {
    ort_version_supported = ORT_API_VERSION;
    CreateState = create_state;
    Compute = compute;
    ReleaseState = release_state;
  }

  static OrtStatus* ORT_API_CALL create_state(OrtNodeComputeInfo* self, OrtNodeComputeContext*, void** state) {
    auto* info = static_cast<ComputeInfo*>(self);
    if (!info->partition)
      return info->api.ort->CreateStatus(ORT_EP_FAIL, "a compile-only session does not run its partitions");
    *state = info->partition.get();
    return nullptr;
  }
  static OrtStatus* ORT_API_CALL compute(OrtNodeComputeInfo* self, void* state, OrtKernelContext* context) {
    auto* info = static_cast<ComputeInfo*>(self);
    return guarded(info->api, [&] { static_cast<const CompiledPartition*>(state)->compute(info->api, context); });
  }
  static void ORT_API_CALL release_state(OrtNodeComputeInfo*, void*) {}

  const Api& api;
  std::unique_ptr<CompiledPartition> partition;
};

// A blob in memory, 64-byte aligned like a mapped file, so that its packed
// weights are used where they lie.
std::shared_ptr<const std::byte> blob_in_memory(const runtime::ref_blob::BlobContents& contents, std::size_t& size) {
  size = static_cast<std::size_t>(runtime::ref_blob::blob_size(contents));
  auto* p = static_cast<std::byte*>(aligned_allocate((size + 63) / 64 * 64, 64));
  if (!p) throw std::bad_alloc();
  std::shared_ptr<const std::byte> owner(p, [](const std::byte* q) { aligned_free(const_cast<std::byte*>(q)); });
  std::size_t at = 0;
  runtime::ref_blob::write_blob(contents, [&](const void* data, std::size_t n) {
    std::memcpy(p + at, data, n);
    at += n;
  });
  return owner;
}

std::vector<std::string> names_of(const GraphReader& reader, const std::vector<const OrtValueInfo*>& values) {
  std::vector<std::string> names;
  for (const OrtValueInfo* v : values) names.push_back(v ? reader.name(v) : std::string());
  return names;
}

}  // namespace

RefEp::RefEp(const Api& api, Settings settings, const OrtLogger* logger)
    : OrtEp{}, api_(api), settings_(std::move(settings)), logger_(logger), reader_(api) {
  ort_version_supported = ORT_API_VERSION;
  GetName = name_of;
  GetCapability = get_capability;
  Compile = compile_graphs;
  ReleaseNodeComputeInfos = release_infos;
  GetCompiledModelCompatibilityInfo = compatibility_info;
}

void RefEp::log(OrtLoggingLevel level, const std::string& message) const {
  if (!logger_) return;
  if (OrtStatus* s = api_.ort->Logger_LogMessage(logger_, level, message.c_str(), ORT_TSTR("ref_ep.cpp"), __LINE__, "RefEp"))
    api_.ort->ReleaseStatus(s);
}

void RefEp::claim(const OrtGraph* graph, OrtEpGraphSupportInfo* support) const {
  Claims claims = claim_nodes(reader_, graph, settings_.dims);
  OrtNodeFusionOptions fusion{};
  fusion.ort_version_supported = ORT_API_VERSION;
  fusion.drop_constant_initializers = true;  // the blobs we compile hold their weights
  // A compiled node's inputs are not in its blob, even when they are
  // constants (ORT folds what its CPU EP computes from initializers alone):
  // ORT must pass them.
  OrtNodeFusionOptions context_fusion = fusion;
  context_fusion.drop_constant_initializers = false;
  for (const OrtNode* node : claims.contexts)
    check(api_, api_.ep->EpGraphSupportInfo_AddNodesToFuse(support, &node, 1, &context_fusion),
          "EpGraphSupportInfo_AddNodesToFuse");
  std::size_t claimed = 0;
  for (const auto& group : claims.partitions) {
    check(api_, api_.ep->EpGraphSupportInfo_AddNodesToFuse(support, group.data(), group.size(), &fusion),
          "EpGraphSupportInfo_AddNodesToFuse");
    claimed += group.size();
  }
  log(ORT_LOGGING_LEVEL_INFO, std::to_string(claimed) + " nodes in " + std::to_string(claims.partitions.size()) +
                                  " partitions, " + std::to_string(claims.contexts.size()) + " EPContext nodes");
}

fs::path RefEp::context_model_path(const OrtGraph* graph) const {
  if (!settings_.context_model.empty()) return settings_.context_model;
  // ORT's own default: <input stem>_ctx.onnx next to the input.
  fs::path input = from_utf8(reader_.model_path(graph));
  if (input.empty())
    throw InputError(std::string(runtime::ref_blob::kSource) +
                     ": ep.context_embed_mode = 0 writes the blobs next to the compiled model, but neither "
                     "ep.context_file_path nor the input model's path is known: set one, or embed the blobs");
  return input.parent_path() / (to_utf8(input.stem()) + "_ctx.onnx");
}

OrtNode* RefEp::make_context_node(const OrtNode* fused_node, std::string_view cache_context, bool embedded,
                                  const std::string& partition_name, const std::string& notes) const {
  if (cache_context.size() > static_cast<std::size_t>(INT32_MAX))
    throw BuildError("a ref blob of " + std::to_string(cache_context.size()) +
                     " bytes cannot be embedded (protobuf's 2 GiB limit): use ep.context_embed_mode = 0");
  const std::int64_t one = 1, embed_mode = embedded ? 1 : 0;
  const std::string source = runtime::ref_blob::kSource, sdk = runtime::ref_blob::kSdkVersion;
  struct Attr {
    const char* name;
    const void* data;
    int len;
    OrtOpAttrType type;
  };
  const Attr attrs[] = {
      {"main_context", &one, 1, ORT_OP_ATTR_INT},
      {"ep_cache_context", cache_context.data(), static_cast<int>(cache_context.size()), ORT_OP_ATTR_STRING},
      {"embed_mode", &embed_mode, 1, ORT_OP_ATTR_INT},
      {"ep_sdk_version", sdk.data(), static_cast<int>(sdk.size()), ORT_OP_ATTR_STRING},
      {"partition_name", partition_name.data(), static_cast<int>(partition_name.size()), ORT_OP_ATTR_STRING},
      {"source", source.data(), static_cast<int>(source.size()), ORT_OP_ATTR_STRING},
      {"notes", notes.data(), static_cast<int>(notes.size()), ORT_OP_ATTR_STRING},
  };
  std::vector<OrtOpAttr*> made;
  auto release = [&] {
    for (OrtOpAttr* a : made) api_.ort->ReleaseOpAttr(a);
  };
  OrtNode* node = nullptr;
  try {
    for (const Attr& a : attrs) {
      OrtOpAttr* attr = nullptr;
      check(api_, api_.ort->CreateOpAttr(a.name, a.data, a.len, a.type, &attr), "CreateOpAttr");
      made.push_back(attr);
    }
    std::vector<std::string> inputs = names_of(reader_, reader_.inputs(fused_node));
    std::vector<std::string> outputs = names_of(reader_, reader_.outputs(fused_node));
    std::vector<const char*> in, out;
    for (const auto& s : inputs) in.push_back(s.c_str());
    for (const auto& s : outputs) out.push_back(s.c_str());
    const std::string name = settings_.node_name_prefix + reader_.name(fused_node);
    check(api_,
          api_.editor->CreateNode(model::kEpContextOp, model::kMicrosoftDomain, name.c_str(), in.data(), in.size(),
                                  out.data(), out.size(), made.data(), made.size(), &node),
          "CreateNode");
  } catch (...) {
    release();
    throw;
  }
  release();
  return node;
}

RefEp::Compiled RefEp::compile(const OrtGraph* graph, const OrtNode* fused_node) {
  const std::string name = reader_.name(fused_node);
  model::Model part = partition_model(reader_, graph, fused_node);
  const std::string source = part.path.empty() ? std::string("<model>") : to_utf8(part.path);
  const runtime::Opsets opsets = runtime::model_opsets(part.proto);
  auto planned = std::make_shared<compile::RefPartition>(
      compile::plan_ref_partition(std::move(part), opsets, name, settings_.dims, source));
  std::vector<std::string> inputs = names_of(reader_, reader_.inputs(fused_node));
  std::vector<std::string> outputs = names_of(reader_, reader_.outputs(fused_node));
  Compiled c;
  if (!settings_.write_contexts) {
    // Nothing to write: the plan runs as built (its weights are the partition's
    // copies, which it keeps alive), with the bits a blob of it would give.
    if (!settings_.compile_only)
      c.partition = std::make_unique<CompiledPartition>(
          std::shared_ptr<const runtime::Plan>(planned, planned->plan.get()), std::move(inputs), std::move(outputs));
    return c;
  }
  std::shared_ptr<const void> owner;
  std::string_view blob;
  std::string what;
  const runtime::ref_blob::BlobContents contents = planned->blob_contents();
  if (!settings_.embed) {
    const fs::path model = context_model_path(graph);
    const std::string file = compile::ref_blob_name(model, blobs_written_++);
    const fs::path path = model.parent_path() / from_utf8(file);
    AtomicFileWriter w(path);
    runtime::ref_blob::write_blob(contents, [&](const void* d, std::size_t n) { w.write(d, n); });
    w.commit();
    c.context_node = make_context_node(fused_node, file, false, name, planned->notes());
    if (!settings_.compile_only) {
      auto mapped = MappedFile::open(path);
      blob = mapped->view();
      owner = mapped;
    }
    what = to_utf8(path);
  } else {
    std::size_t size = 0;
    auto bytes = blob_in_memory(contents, size);
    blob = std::string_view(reinterpret_cast<const char*>(bytes.get()), size);
    owner = bytes;
    c.context_node = make_context_node(fused_node, blob, true, name, planned->notes());
    what = source + ": partition " + name;
  }
  planned.reset();  // (the plan and the partition's weights go before the blob's plan is loaded)
  if (!settings_.compile_only) {
    // What runs is what the blob says, as when the compiled model is loaded.
    auto plan = runtime::ref_blob::load_plan(blob, owner, what);
    c.partition = std::make_unique<CompiledPartition>(plan, std::move(inputs), std::move(outputs));
  }
  return c;
}

RefEp::Compiled RefEp::load(const OrtGraph* graph, const OrtNode* node, const OrtNode* fused_node) const {
  if (settings_.write_contexts)
    throw InputError(reader_.model_path(graph) + ": the model is already compiled (EPContext node '" +
                     reader_.name(node) + "' of " + runtime::ref_blob::kSource +
                     "); compile the model from before compilation");
  runtime::ref_blob::ContextNode c;
  c.node_name = reader_.name(node);
  c.source = reader_.string_attribute(node, "source").value_or("");
  c.main_context = reader_.int_attribute(node, "main_context").value_or(1);
  c.embed_mode = reader_.int_attribute(node, "embed_mode").value_or(1);
  c.partition_name = reader_.string_attribute(node, "partition_name").value_or("");
  const std::vector<const OrtValueInfo*> inputs = reader_.inputs(node), outputs = reader_.outputs(node);
  c.inputs = static_cast<int>(inputs.size());
  c.outputs = static_cast<int>(outputs.size());
  std::string path;  // a sidecar's name (embed_mode 0)
  const std::string model_path = reader_.model_path(graph);
  if (c.embed_mode == 1) {
    const std::size_t size = reader_.string_attribute_size(node, "ep_cache_context");
    std::optional<MappedBlob> mapped;
    if (size >= kMapBlobsFrom) mapped = map_blob_in_model_file(from_utf8(model_path), c.node_name, size);
    if (mapped) {
      c.cache_context = mapped->bytes;
      c.cache_keepalive = mapped->owner;
      const bool aligned = reinterpret_cast<std::uintptr_t>(mapped->bytes.data()) % 64 == 0;
      log(ORT_LOGGING_LEVEL_INFO, "EPContext node '" + c.node_name + "': its blob of " + std::to_string(size) +
                                      " bytes is read where it lies in " + model_path +
                                      (aligned ? "" : " (not at a 64-byte offset: its packed weights are copied)"));
    } else if (size) {
      log(ORT_LOGGING_LEVEL_INFO, "EPContext node '" + c.node_name + "': its blob of " + std::to_string(size) +
                                      " bytes is copied out of ONNX Runtime's attribute");
      // One copy, out of ORT's attribute into 64-byte aligned memory the plan keeps.
      auto* p = static_cast<char*>(aligned_allocate((size + 63) / 64 * 64, 64));
      if (!p) throw std::bad_alloc();
      std::shared_ptr<const char> owner(p, [](const char* q) { aligned_free(const_cast<char*>(q)); });
      reader_.read_string_attribute(node, "ep_cache_context", p, size);
      c.cache_context = std::string_view(p, size);
      c.cache_keepalive = owner;
    }
  } else {
    path = reader_.string_attribute(node, "ep_cache_context").value_or("");
    c.cache_context = path;
  }
  runtime::ref_blob::LoadedContext loaded = runtime::ref_blob::load_context(c, from_utf8(model_path));
  // The fused node's inputs and outputs by name; the node's i-th is the plan's i-th.
  std::map<std::string, std::string> plan_name;
  const runtime::Plan& plan = *loaded.plan;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i]) plan_name[reader_.name(inputs[i])] = plan.values[static_cast<std::size_t>(plan.inputs[i])].name;
  for (std::size_t i = 0; i < outputs.size(); ++i)
    if (outputs[i]) plan_name[reader_.name(outputs[i])] = plan.values[static_cast<std::size_t>(plan.outputs[i])].name;
  auto to_plan = [&](const std::vector<const OrtValueInfo*>& values) {
    std::vector<std::string> names;
    for (const OrtValueInfo* v : values) names.push_back(plan_name.at(reader_.name(v)));
    return names;
  };
  Compiled compiled;
  compiled.partition = std::make_unique<CompiledPartition>(loaded.plan, to_plan(reader_.inputs(fused_node)),
                                                           to_plan(reader_.outputs(fused_node)));
  return compiled;
}

const char* ORT_API_CALL RefEp::name_of(const OrtEp*) noexcept { return runtime::ref_blob::kSource; }

OrtStatus* ORT_API_CALL RefEp::get_capability(OrtEp* self, const OrtGraph* graph,
                                              OrtEpGraphSupportInfo* support) noexcept {
  auto* ep = static_cast<RefEp*>(self);
  return guarded(ep->api_, [&] { ep->claim(graph, support); });
}

OrtStatus* ORT_API_CALL RefEp::compile_graphs(OrtEp* self, const OrtGraph** graphs, const OrtNode** fused_nodes,
                                              std::size_t count, OrtNodeComputeInfo** infos,
                                              OrtNode** context_nodes) noexcept {
  auto* ep = static_cast<RefEp*>(self);
  return guarded(ep->api_, [&] {
    for (std::size_t i = 0; i < count; ++i) {
      std::vector<const OrtNode*> nodes = ep->reader_.nodes(graphs[i]);
      Compiled c = nodes.size() == 1 && is_context_node(ep->reader_, nodes[0])
                       ? ep->load(graphs[i], nodes[0], fused_nodes[i])
                       : ep->compile(graphs[i], fused_nodes[i]);
      infos[i] = new ComputeInfo(ep->api_, std::move(c.partition));
      if (context_nodes) context_nodes[i] = c.context_node;
    }
  });
}

void ORT_API_CALL RefEp::release_infos(OrtEp*, OrtNodeComputeInfo** infos, std::size_t count) noexcept {
  for (std::size_t i = 0; i < count; ++i) delete static_cast<ComputeInfo*>(infos[i]);
}

const char* ORT_API_CALL RefEp::compatibility_info(OrtEp*, const OrtGraph*) noexcept {
  return runtime::ref_blob::kSdkVersion;
}

}  // namespace winml::ort_ep
