#include "compile/ref_backend.h"

#include "compile/backend.h"

#include "base/progress.h"

#include <climits>
#include <map>
#include <set>

#include "base/atomic_file.h"
#include "base/error.h"
#include "base/path_text.h"
#include "base/text.h"
#include "compile/epcontext_node.h"
#include "compile/node_support.h"
#include "compile/partition.h"
#include "compile/ref_partition.h"
#include "model/external_data.h"
#include "model/walk.h"
#include "runtime/errors.h"
#include "runtime/executor.h"
#include "runtime/kernel_registry.h"
#include "runtime/plan.h"
#include "runtime/ref_blob/ref_blob.h"
#include "runtime/static_shapes.h"

namespace winml::compile {

namespace fs = std::filesystem;
using runtime::Opsets;

namespace {

constexpr std::uint64_t kMiB = 1024ull * 1024ull;

// A node is supported when the runtime can create its kernel (op, opset and
// attributes accepted, subgraphs included): compile/node_support.h.
class SupportCheck {
 public:
  SupportCheck(const model::Model& m, const onnx::GraphProto& g, const Opsets& opsets,
               const std::map<std::string, std::int64_t>& dims)
      : model_(m), opsets_(opsets), dims_(dims) {
    for (const auto& t : g.initializer()) initializers_[t.name()] = &t;
  }

  bool operator()(const onnx::NodeProto& n) const {
    std::vector<runtime::Tensor> held;
    held.reserve(static_cast<std::size_t>(n.input_size()));
    std::vector<const runtime::Tensor*> constants;
    for (const auto& in : n.input()) {
      auto it = initializers_.find(in);
      if (in.empty() || it == initializers_.end()) {
        constants.push_back(nullptr);
        continue;
      }
      held.push_back(runtime::from_proto(*it->second, &model_));
      constants.push_back(&held.back());
    }
    return runtime_runs_node(n, opsets_, constants, &model_, dims_);
  }

 private:
  const model::Model& model_;
  const Opsets& opsets_;
  const std::map<std::string, std::int64_t>& dims_;
  std::map<std::string, const onnx::TensorProto*> initializers_;
};

// Subgraph bodies travel inside the blob's nodes: their tensors must be inline.
void inline_subgraph_tensors(onnx::NodeProto& n, const model::Model& m) {
  for (auto& a : *n.mutable_attribute()) {
    auto fix = [&](onnx::GraphProto& g) {
      model::for_each_tensor(g, [&](onnx::TensorProto& t, model::TensorSite) {
        if (!model::is_external(t)) return;
        model::TensorBytes b = m.tensor_bytes(t);
        std::string bytes(reinterpret_cast<const char*>(b.bytes.data()), b.bytes.size());
        model::set_raw_data(t, bytes.data(), bytes.size());
      });
    };
    if (a.has_g()) fix(*a.mutable_g());
    for (auto& g : *a.mutable_graphs()) fix(g);
  }
}

// Element types and static shapes of intermediate values, computed when a
// partition boundary needs them.
class ValueTypes {
 public:
  ValueTypes(const onnx::GraphProto& g, const Opsets& opsets, const std::map<std::string, std::int64_t>& dims)
      : graph_(g), opsets_(opsets), dims_(dims) {}

  onnx::ValueInfoProto describe(const std::string& name) {
    for (const auto& v : graph_.input())
      if (v.name() == name) return v;
    for (const auto& v : graph_.output())
      if (v.name() == name && v.type().has_tensor_type()) return v;
    for (const auto& v : graph_.value_info())
      if (v.name() == name && v.type().has_tensor_type()) return v;
    if (!inferred_) {
      std::map<std::string, runtime::Shape> shapes;
      for (const auto& in : graph_.input()) shapes[in.name()] = runtime::resolve_input_shape(in, dims_);
      types_ = runtime::infer_static_types(graph_, opsets_, shapes);
      inferred_ = true;
    }
    onnx::ValueInfoProto v;
    v.set_name(name);
    auto it = types_.find(name);
    if (it != types_.end()) {
      auto* t = v.mutable_type()->mutable_tensor_type();
      t->set_elem_type(it->second.dtype);
      for (auto d : it->second.shape) t->mutable_shape()->add_dim()->set_dim_value(d);
    }
    return v;
  }

 private:
  const onnx::GraphProto& graph_;
  const Opsets& opsets_;
  const std::map<std::string, std::int64_t>& dims_;
  bool inferred_ = false;
  std::map<std::string, runtime::StaticType> types_;
};

std::string megabytes(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / static_cast<double>(kMiB));
  return buf;
}

}  // namespace

std::string ref_blob_name(const fs::path& model_path, std::size_t k) {
  std::string stem = to_utf8(model_path.stem());
  return k == 0 ? stem + "_ref.bin" : stem + "_ref_" + std::to_string(k) + ".bin";
}

namespace {

// One compilation: the source graph, taken apart into partition models and
// the outer graph that replaces each partition by its EPContext node.
class RefCompiler {
 public:
  RefCompiler(model::Model in, const fs::path& out, const RefOptions& options)
      : in_(std::move(in)), out_(out), options_(options), source_(to_utf8(in_.path)) {
    graph_.Swap(in_.proto.mutable_graph());
    opsets_ = runtime::model_opsets(in_.proto);
  }

  nlohmann::json run() {
    partition();
    ValueTypes types(graph_, opsets_, options_.dims);
    nlohmann::json partitions = nlohmann::json::array();
    for (std::size_t k = 0; k < parts_.size(); ++k) {
      progress::report("compile", k, parts_.size(), "partitions");
      partitions.push_back(compile_partition(k, types));
    }
    progress::report("compile", parts_.size(), parts_.size(), "partitions");
    save_outer_model();

    nlohmann::json metrics;
    metrics["backend"] = "ref";
    metrics["embed"] = options_.embed;
    metrics["nodes"] = graph_.node_size();
    metrics["nodes_compiled"] = in_partition_.size();
    nlohmann::json left = nlohmann::json::object();
    for (const auto& [op, n] : not_compiled_) left[op] = n;
    metrics["nodes_not_compiled"] = left;
    metrics["partitions"] = std::move(partitions);
    return metrics;
  }

 private:
  void partition() {
    SupportCheck check(in_, graph_, opsets_, options_.dims);
    std::vector<bool> supported(static_cast<std::size_t>(graph_.node_size()));
    for (int i = 0; i < graph_.node_size(); ++i) {
      supported[static_cast<std::size_t>(i)] = check(graph_.node(i));
      if (!supported[static_cast<std::size_t>(i)]) ++not_compiled_[graph_.node(i).op_type()];
    }
    parts_ = partition_graph(graph_, [&](int i) { return supported[static_cast<std::size_t>(i)]; });
    if (parts_.empty()) {
      std::vector<std::string> ops;
      for (const auto& [op, n] : not_compiled_) ops.push_back(op);
      throw BuildError(
          file_error(source_, "no node of the model runs on the ref runtime (unsupported: " + join(ops, ", ") + ")"));
    }
    for (const auto& p : parts_) in_partition_.insert(p.nodes.begin(), p.nodes.end());
    // Values the outer graph still reads: its nodes' inputs, graph outputs,
    // and graph inputs (whose initializers are overridable defaults).
    for (int i = 0; i < graph_.node_size(); ++i)
      if (!in_partition_.count(i))
        for (const auto& name : node_reads(graph_.node(i))) needed_outside_.insert(name);
    for (const auto& o : graph_.output()) needed_outside_.insert(o.name());
    for (const auto& v : graph_.input()) needed_outside_.insert(v.name());
    for (int i = 0; i < graph_.initializer_size(); ++i) initializer_index_[graph_.initializer(i).name()] = i;
    for (const auto& p : parts_)
      for (const auto& name : p.initializers) ++initializer_users_[name];
  }

  // The partition as a model of its own, weights moved in where only it reads them.
  model::Model partition_model(const Partition& p, const std::string& name, ValueTypes& types) {
    model::Model part;
    part.path = in_.path;
    part.external_files = in_.external_files;
    part.proto.set_ir_version(in_.proto.ir_version());
    *part.proto.mutable_opset_import() = in_.proto.opset_import();
    onnx::GraphProto& g = *part.proto.mutable_graph();
    g.set_name(name);
    for (const auto& v : p.inputs) *g.add_input() = types.describe(v);
    for (const auto& v : p.initializers) {
      onnx::TensorProto& src = *graph_.mutable_initializer(initializer_index_.at(v));
      if (!needed_outside_.count(v) && --initializer_users_[v] == 0) g.add_initializer()->Swap(&src);
      else *g.add_initializer() = src;
    }
    for (int i : p.nodes) {
      onnx::NodeProto& n = *g.add_node();
      n = graph_.node(i);
      inline_subgraph_tensors(n, in_);
    }
    for (const auto& v : p.outputs) *g.add_output() = types.describe(v);
    return part;
  }

  nlohmann::json compile_partition(std::size_t k, ValueTypes& types) {
    const Partition& p = parts_[k];
    const std::string name = "winml_ref_" + std::to_string(k);
    RefPartition part = plan_ref_partition(partition_model(p, name, types), opsets_, name, options_.dims, source_);
    const runtime::Plan& plan = *part.plan;
    runtime::ref_blob::BlobContents contents = part.blob_contents();

    EpContextAttributes attrs;
    attrs.embed_mode = options_.embed ? 1 : 0;
    attrs.ep_sdk_version = runtime::ref_blob::kSdkVersion;
    attrs.partition_name = name;
    attrs.source = runtime::ref_blob::kSource;
    nlohmann::json info;
    std::uint64_t blob_size = runtime::ref_blob::blob_size(contents);
    if (options_.embed) {
      // protobuf cannot hold a message of 2 GiB or more; leave room for the rest.
      embedded_bytes_ += blob_size;
      if (embedded_bytes_ + 64 * kMiB >= static_cast<std::uint64_t>(INT_MAX))
        throw BuildError(file_error(to_utf8(out_), "the ref blobs take more than " + megabytes(embedded_bytes_) +
                                                       ", too much to embed in an ONNX file (protobuf's 2 GiB "
                                                       "limit): use [compile] embed = false"));
      attrs.ep_cache_context = runtime::ref_blob::blob_bytes(contents);
      info["blob"] = "embedded";
    } else {
      const std::string file = ref_blob_name(out_, k);
      AtomicFileWriter w(out_.parent_path() / from_utf8(file));
      runtime::ref_blob::write_blob(contents, [&](const void* d, std::size_t n) { w.write(d, n); });
      w.commit();
      attrs.ep_cache_context = file;
      info["blob"] = file;
    }
    const std::uint64_t weight_bytes = part.weight_bytes();
    attrs.notes = part.notes();
    onnx::NodeProto node = make_epcontext_node(name, std::move(attrs));
    for (const auto& v : p.inputs) node.add_input(v);
    for (const auto& v : p.outputs) node.add_output(v);
    epcontext_nodes_.push_back(std::move(node));

    info["name"] = name;
    info["nodes"] = p.nodes.size();
    info["steps"] = plan.steps.size();
    info["folded_nodes"] = part.folded_nodes;
    info["inputs"] = p.inputs;
    info["outputs"] = p.outputs;
    info["blob_bytes"] = blob_size;
    info["weight_bytes"] = weight_bytes;
    info["arena_bytes"] = plan.arena_bytes;
    return info;
  }

  // Unsupported nodes and EPContext nodes, topologically sorted; the weights
  // and value_info they still need.
  void save_outer_model() {
    onnx::GraphProto outer;
    outer.set_name(graph_.name());
    outer.set_doc_string(graph_.doc_string());
    *outer.mutable_input() = graph_.input();
    *outer.mutable_output() = graph_.output();
    for (int i = 0; i < graph_.node_size(); ++i)
      if (!in_partition_.count(i)) *outer.add_node() = graph_.node(i);
    for (auto& n : epcontext_nodes_) outer.add_node()->Swap(&n);
    {
      std::vector<int> order = topological_order(outer);
      onnx::GraphProto sorted;
      for (int i : order) sorted.add_node()->Swap(outer.mutable_node(i));
      outer.mutable_node()->Swap(sorted.mutable_node());
    }
    std::set<std::string> outer_values;
    for (const auto& v : outer.input()) outer_values.insert(v.name());
    for (const auto& n : outer.node())
      for (const auto& o : n.output()) outer_values.insert(o);
    std::uint64_t outer_weight_bytes = 0;
    for (auto& t : *graph_.mutable_initializer()) {
      if (t.name().empty() || !needed_outside_.count(t.name())) continue;  // moved into a blob, or unused
      outer_weight_bytes += model::payload_size(t);
      outer.add_initializer()->Swap(&t);
    }
    for (const auto& v : graph_.value_info())
      if (outer_values.count(v.name())) *outer.add_value_info() = v;
    *outer.mutable_sparse_initializer() = graph_.sparse_initializer();
    *outer.mutable_quantization_annotation() = graph_.quantization_annotation();

    model::Model result;
    result.proto = in_.proto;  // everything but the graph, which was taken out
    result.proto.mutable_graph()->Swap(&outer);
    import_microsoft_domain(result.proto);
    result.path = in_.path;
    result.external_files = in_.external_files;
    model::SaveOptions save;
    // The choice concerns the weights left outside the blobs, not the blobs.
    save.external = outer_weight_bytes >= options_.external_data_threshold ? model::ExternalData::kAlways
                                                                           : model::ExternalData::kNever;
    // Embedded blobs start at 64-byte offsets of the file, so that a session
    // mapping the file uses their weights where they lie (model/mapped_blobs.h).
    save.blob_alignment = 64;
    model::save_model(result, out_, save);
  }

  model::Model in_;
  const fs::path out_;
  const RefOptions& options_;
  const std::string source_;
  onnx::GraphProto graph_;
  Opsets opsets_;
  std::vector<Partition> parts_;
  std::set<int> in_partition_;
  std::map<std::string, int> not_compiled_;  // op -> count
  std::set<std::string> needed_outside_;
  std::map<std::string, int> initializer_index_;
  std::map<std::string, int> initializer_users_;  // partitions still to take each initializer
  std::vector<onnx::NodeProto> epcontext_nodes_;
  std::uint64_t embedded_bytes_ = 0;
};

}  // namespace

nlohmann::json compile_ref(model::Model in, const fs::path& out, const RefOptions& options) {
  return RefCompiler(std::move(in), out, options).run();
}

nlohmann::json compile_with_ref(const BackendCall& call) {
  const CompileOptions& o = call.options;
  say(o, "compile: ref backend, embed = " + std::string(o.embed ? "true" : "false"));
  RefOptions ro;
  ro.embed = o.embed;
  ro.dims = o.dims;
  ro.external_data_threshold = o.external_data_threshold;
  nlohmann::json metrics = compile_ref(std::move(call.in), call.output, ro);
  for (const auto& p : metrics["partitions"])
    say(o, "compile: partition " + p["name"].get<std::string>() + ": " + std::to_string(p["nodes"].get<int>()) +
               " nodes, blob " + p["blob"].get<std::string>() + " (" +
               std::to_string(p["blob_bytes"].get<std::uint64_t>()) + " bytes)");
  if (!metrics["nodes_not_compiled"].empty())
    say(o, "compile: left outside the blobs (the runtime has no kernel): " + metrics["nodes_not_compiled"].dump());
  return metrics;
}

}  // namespace winml::compile
