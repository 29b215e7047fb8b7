#include <google/protobuf/arena.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <tuple>

#include "base/checked_size.h"
#include "base/error.h"
#include "base/memory_pages.h"
#include "model/model_io.h"
#include "model/tensor_data.h"
#include "runtime/errors.h"
#include "runtime/executor.h"
#include "runtime/gemm.h"
#include "runtime/kernel_registry.h"
#include "runtime/ref_blob/plan_codec.h"
#include "runtime/ref_blob/ref_blob.h"

namespace winml::runtime::ref_blob {

namespace {

constexpr char kMagic[8] = {'W', 'I', 'N', 'M', 'L', 'R', 'E', 'F'};
constexpr std::uint64_t kHeaderBytes = 80;
constexpr std::uint64_t kChecksummedHeaderBytes = 64;  // the checksum itself follows
constexpr std::uint64_t kAlign = 64;
constexpr char kZeros[kAlign] = {};

std::uint64_t align_up(std::uint64_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

template <typename T>
void put(char* at, T v) {
  std::memcpy(at, &v, sizeof v);
}
template <typename T>
T get(const char* at) {
  T v;
  std::memcpy(&v, at, sizeof v);
  return v;
}

// The opset a step's kernel was looked up with (as build_plan does it).
std::int64_t opset_of(const Opsets& opsets, const std::string& domain) {
  auto it = opsets.find(canonical_domain(domain));
  if (it != opsets.end()) return it->second;
  return domain.empty() || domain == "ai.onnx" ? 0 : 1;
}

store::Digest header_checksum(std::string_view header, std::string_view meta) {
  store::Hasher h;
  h.update(header.substr(0, kChecksummedHeaderBytes));
  h.update(meta);
  return h.finish();
}

struct Parsed {
  std::uint32_t version = 0;
  std::uint64_t data_offset = 0;
  std::uint64_t data_bytes = 0;
  std::uint64_t meta_bytes = 0;
  Meta meta;
};

[[noreturn]] void corrupt(const std::string& what, const std::string& message) {
  throw InputError(what + ": " + message);
}

Parsed parse(std::string_view blob, const std::string& what) {
  if (blob.size() < 12 || std::memcmp(blob.data(), kMagic, sizeof kMagic) != 0)
    corrupt(what, "not a ref blob (no WINMLREF header): the file is corrupt or belongs to another execution provider");
  Parsed p;
  p.version = get<std::uint32_t>(blob.data() + 8);
  if (p.version != kFormatVersion)
    corrupt(what, "ref blob format version " + std::to_string(p.version) +
                      " is not supported (this winml-make reads "
                      "version " +
                      std::to_string(kFormatVersion) + "); recompile the model with ep = \"ref\"");
  if (blob.size() < kHeaderBytes)
    corrupt(what, "ref blob is truncated (" + std::to_string(blob.size()) + " bytes, shorter than its header)");
  const char* h = blob.data();
  std::uint64_t header_bytes = get<std::uint32_t>(h + 12);
  std::uint64_t meta_offset = get<std::uint64_t>(h + 16);
  p.meta_bytes = get<std::uint64_t>(h + 24);
  p.data_offset = get<std::uint64_t>(h + 32);
  p.data_bytes = get<std::uint64_t>(h + 40);
  std::uint64_t total = get<std::uint64_t>(h + 48);
  if (header_bytes != kHeaderBytes || meta_offset != kHeaderBytes || !range_fits(meta_offset, p.meta_bytes, total) ||
      p.data_offset < meta_offset + p.meta_bytes || p.data_offset % kAlign != 0 ||
      !range_fits(p.data_offset, p.data_bytes, total) || p.data_offset + p.data_bytes != total)
    corrupt(what, "ref blob header is corrupt (inconsistent section offsets)");
  if (total != blob.size())
    corrupt(what, "ref blob is " + std::string(total > blob.size() ? "truncated" : "followed by stray bytes") + ": " +
                      std::to_string(blob.size()) + " bytes, its header says " + std::to_string(total));
  std::string_view meta = blob.substr(meta_offset, p.meta_bytes);
  store::Digest stored{get<std::uint64_t>(h + 64), get<std::uint64_t>(h + 72)};
  if (header_checksum(blob, meta) != stored)
    corrupt(what,
            "ref blob checksum mismatch in its header and plan: the blob is corrupt or was modified; "
            "recompile the model");
  p.meta = decode_meta(meta, p.data_bytes, what);
  return p;
}

}  // namespace

namespace {

// The metadata and the data section's size; the checksum is filled in by emit().
Meta layout(const BlobContents& contents, std::uint64_t& data_bytes) {
  const Plan& plan = contents.plan;
  Meta m;
  m.partition_name = contents.partition_name;
  m.dims = contents.dims;
  m.opsets = plan.opsets;
  m.values = plan.values;
  m.inputs = plan.inputs;
  m.outputs = plan.outputs;
  m.buffers = plan.buffers;
  m.arena_bytes = plan.arena_bytes;

  std::uint64_t cursor = 0;
  for (const auto& [id, t] : plan.constants) {
    const std::string& name = plan.values[static_cast<std::size_t>(id)].name;
    if (!t.defined() || t.dtype() == onnx::TensorProto::STRING || !model::has_fixed_size(t.dtype()))
      throw UnsupportedError("constant '" + name + "' of type " + dtype_name(t.dtype()) +
                             " cannot be stored in a ref blob");
    MetaConstant c{id, t.dtype(), t.shape(), align_up(cursor), t.bytes()};
    cursor = c.offset + c.bytes;
    m.constants.push_back(std::move(c));
  }
  for (const auto& p : plan.packed) {
    MetaPacked mp{p->side == PackedWeights::Side::kLeft, p->k, p->extent, p->kc, p->isa, align_up(cursor), p->bytes()};
    cursor = mp.offset + mp.bytes;
    m.packed.push_back(std::move(mp));
  }
  data_bytes = cursor;

  onnx::GraphProto nodes;
  for (const Step& s : plan.steps) {
    if (s.node < 0 || s.node >= contents.graph.node_size())
      throw std::logic_error("ref blob: step " + s.describe() + " has no node in the graph");
    if (s.relu_output)  // (its node alone would run without the Relu)
      throw std::logic_error("ref blob: step " + s.describe() + " has a Relu folded in");
    *nodes.add_node() = contents.graph.node(s.node);
    MetaStep ms;
    ms.opset = opset_of(plan.opsets, s.domain);
    ms.explicit_inputs = s.explicit_inputs;
    ms.inputs = s.inputs;
    ms.outputs = s.outputs;
    ms.release = s.release;
    ms.implicit_names = s.implicit_names;
    m.steps.push_back(std::move(ms));
  }
  m.nodes = model::serialize_deterministic(nodes);
  return m;
}

// The checksum does not change the metadata's size: the total is known early.
std::uint64_t total_size(const Meta& m, std::uint64_t data_bytes) {
  return align_up(kHeaderBytes + encode_meta(m).size()) + data_bytes;
}

// The data section in order, padding included: the constants, then the
// packed weights.
void for_each_data_piece(const Plan& plan, const Meta& m, const Sink& piece) {
  std::uint64_t cursor = 0;
  auto put_piece = [&](std::uint64_t offset, const void* data, std::uint64_t bytes) {
    piece(kZeros, offset - cursor);
    piece(data, bytes);
    cursor = offset + bytes;
  };
  for (std::size_t i = 0; i < m.constants.size(); ++i)
    put_piece(m.constants[i].offset, plan.constants[i].second.raw(), m.constants[i].bytes);
  for (std::size_t i = 0; i < m.packed.size(); ++i)
    put_piece(m.packed[i].offset, plan.packed[i]->data.get(), m.packed[i].bytes);
}

std::uint64_t emit(const BlobContents& contents, Meta& m, std::uint64_t data_bytes, const Sink& sink) {
  const Plan& plan = contents.plan;
  // The data section exactly as it will be written, padding included.
  store::Hasher data_hash;
  for_each_data_piece(plan, m, [&](const void* data, std::size_t size) { data_hash.update(data, size); });
  m.data_checksum = data_hash.finish();

  const std::string meta = encode_meta(m);
  const std::uint64_t data_offset = align_up(kHeaderBytes + meta.size());
  const std::uint64_t total = data_offset + data_bytes;
  char header[kHeaderBytes] = {};
  std::memcpy(header, kMagic, sizeof kMagic);
  put<std::uint32_t>(header + 8, kFormatVersion);
  put<std::uint32_t>(header + 12, static_cast<std::uint32_t>(kHeaderBytes));
  put<std::uint64_t>(header + 16, kHeaderBytes);
  put<std::uint64_t>(header + 24, meta.size());
  put<std::uint64_t>(header + 32, data_offset);
  put<std::uint64_t>(header + 40, data_bytes);
  put<std::uint64_t>(header + 48, total);
  store::Digest sum = header_checksum(std::string_view(header, kHeaderBytes), meta);
  put<std::uint64_t>(header + 64, sum.high);
  put<std::uint64_t>(header + 72, sum.low);

  sink(header, kHeaderBytes);
  sink(meta.data(), meta.size());
  sink(kZeros, data_offset - kHeaderBytes - meta.size());
  for_each_data_piece(plan, m, sink);
  return total;
}

}  // namespace

std::uint64_t write_blob(const BlobContents& contents, const Sink& sink) {
  std::uint64_t data_bytes = 0;
  Meta m = layout(contents, data_bytes);
  return emit(contents, m, data_bytes, sink);
}

std::uint64_t blob_size(const BlobContents& contents) {
  std::uint64_t data_bytes = 0;
  Meta m = layout(contents, data_bytes);
  return total_size(m, data_bytes);
}

std::string blob_bytes(const BlobContents& contents) {
  std::uint64_t data_bytes = 0;
  Meta m = layout(contents, data_bytes);
  std::string out;
  out.reserve(static_cast<std::size_t>(total_size(m, data_bytes)));  // one allocation, however large
  emit(contents, m, data_bytes,
       [&](const void* data, std::size_t size) { out.append(static_cast<const char*>(data), size); });
  return out;
}

namespace {

BlobSummary summarize(const Parsed& p) {
  BlobSummary s;
  s.version = p.version;
  s.total_bytes = p.data_offset + p.data_bytes;
  s.metadata_bytes = p.meta_bytes;
  s.data_bytes = p.data_bytes;
  s.partition_name = p.meta.partition_name;
  s.dims = p.meta.dims;
  s.steps = p.meta.steps.size();
  s.values = p.meta.values.size();
  s.constants = p.meta.constants.size();
  s.inputs = p.meta.inputs.size();
  s.outputs = p.meta.outputs.size();
  s.arena_bytes = p.meta.arena_bytes;
  s.data_checksum = p.meta.data_checksum;
  return s;
}

}  // namespace

BlobSummary check_blob(std::string_view blob, const std::string& what, bool full) {
  Parsed p = parse(blob, what);
  if (full && store::digest_of(blob.substr(p.data_offset, p.data_bytes)) != p.meta.data_checksum)
    corrupt(what,
            "ref blob checksum mismatch in its weights: the blob is corrupt or was modified; recompile the "
            "model");
  return summarize(p);
}

std::shared_ptr<const Plan> load_plan(std::string_view blob, std::shared_ptr<const void> keepalive,
                                      const std::string& what, BlobSummary* summary) {
  Parsed p = parse(blob, what);
  if (summary) *summary = summarize(p);
  Meta& m = p.meta;
  auto plan = std::make_shared<Plan>();
  plan->source = what;
  plan->opsets = std::move(m.opsets);
  plan->values = std::move(m.values);
  plan->inputs = std::move(m.inputs);
  plan->outputs = std::move(m.outputs);
  plan->buffers = std::move(m.buffers);
  plan->arena_bytes = m.arena_bytes;
  plan->reindex();

  // Weights are used where they lie; only a misaligned one (possible inside
  // an embedded blob) is copied, since kernels read through typed pointers.
  const char* data = blob.data() + p.data_offset;
  std::vector<const Tensor*> constant_of(plan->values.size(), nullptr);
  plan->constants.reserve(m.constants.size());
  for (auto& c : m.constants) {
    const char* at = data + c.offset;
    Tensor t;
    if (reinterpret_cast<std::uintptr_t>(at) % std::max<std::size_t>(dtype_size(c.dtype), 1) != 0) {
      t = Tensor::allocate(c.dtype, c.shape);
      if (c.bytes) std::memcpy(t.mutable_raw(), at, c.bytes);
    } else {
      t = Tensor::view(c.dtype, std::move(c.shape), at, keepalive);
    }
    plan->constants.emplace_back(c.value, std::move(t));
  }
  for (const auto& [id, t] : plan->constants) constant_of[static_cast<std::size_t>(id)] = &t;

  // Packed weights in the panel layout are handed to the kernels as they ask
  // for them (views of the blob, like the constants); others are repacked.
  PackTrace replay;
  replay.mode = PackTrace::Mode::kReplay;
  for (const auto& mp : m.packed) {
    auto p = std::make_shared<PackedWeights>();
    p->side = mp.left ? PackedWeights::Side::kLeft : PackedWeights::Side::kRight;
    p->k = mp.k;
    p->extent = mp.extent;
    p->kc = mp.kc;
    p->isa = mp.isa == kPanelLayout ? kPanelLayout : "";  // another layout never matches
    const char* at = data + mp.offset;
    if (reinterpret_cast<std::uintptr_t>(at) % 64 == 0) {
      p->data = std::shared_ptr<float>(keepalive, reinterpret_cast<float*>(const_cast<char*>(at)));
    } else {
      // Inside an embedded blob: the kernels expect 64-byte aligned panels.
      float* copy = static_cast<float*>(aligned_allocate((mp.bytes + 63) / 64 * 64 + 64, 64));
      if (!copy) throw std::bad_alloc();
      std::memcpy(copy, at, mp.bytes);
      p->data = std::shared_ptr<float>(copy, [](float* q) { aligned_free(q); });
    }
    replay.packed.push_back(std::move(p));
  }
  ScopedPackTrace replaying(&replay);

  // An arena makes the nodes' thousands of small allocations (and frees)
  // one. Top-level nodes are only read while kernels are created, but the
  // plans of If/Loop/Scan bodies hold views of their initializers and
  // Constant values: with a subgraph, the arena lives as long as the plan.
  auto arena = std::make_shared<google::protobuf::Arena>();
  auto& nodes = *google::protobuf::Arena::CreateMessage<onnx::GraphProto>(arena.get());
  if (!nodes.ParseFromString(m.nodes) || nodes.node_size() != static_cast<int>(m.steps.size()))
    corrupt(what, "ref blob nodes do not match its steps");
  const PlanOptions sub_options{m.dims, /*memory_plan=*/false};
  NodeContext::SubgraphBuilder subgraphs = [&](const onnx::GraphProto& g) {
    plan->keepalive = arena;
    return build_graph_plan(g, plan->opsets, nullptr, what, sub_options);
  };
  auto& registry = KernelRegistry::global();
  std::map<std::tuple<std::string, std::string, std::int64_t>, std::shared_ptr<const KernelEntry>> entries;
  plan->steps.reserve(m.steps.size());
  for (std::size_t i = 0; i < m.steps.size(); ++i) {
    const onnx::NodeProto& n = nodes.node(static_cast<int>(i));
    MetaStep& ms = m.steps[i];
    Step s;
    s.op_type = n.op_type();
    s.domain = canonical_domain(n.domain());
    s.node_name = n.name();
    s.node = static_cast<int>(i);
    if (ms.explicit_inputs != n.input_size() || static_cast<int>(ms.outputs.size()) != n.output_size())
      corrupt(what, "ref blob step " + s.describe() + " does not match its node");
    // Few distinct ops, many nodes: look each up once.
    auto& entry = entries[std::make_tuple(s.domain, s.op_type, ms.opset)];
    if (!entry) entry = registry.find(s.domain, s.op_type, ms.opset);
    if (!entry)
      throw UnsupportedError(what + ": " + s.describe() + ": op " + (s.domain.empty() ? "" : s.domain + ":") +
                             s.op_type + " at opset " + std::to_string(ms.opset) +
                             " is not supported by this runtime; recompile the model with this winml-make");
    std::vector<const Tensor*> constants;
    for (int k = 0; k < ms.explicit_inputs; ++k) {
      int id = ms.inputs[static_cast<std::size_t>(k)];
      constants.push_back(id >= 0 ? constant_of[static_cast<std::size_t>(id)] : nullptr);
    }
    try {
      NodeContext ctx(n, ms.opset, plan->opsets, constants, subgraphs);
      s.kernel = entry->factory(ctx);
    } catch (...) {
      // The message prefix is built only on failure (this loop is hot).
      auto error = std::current_exception();
      with_error_prefix(what + ": " + s.describe() + ": ", [&] { std::rethrow_exception(error); });
    }
    s.widen_half = entry->traits.widen_half;
    s.output_aliases_input = entry->traits.alias_input0;
    s.may_write_over_input0 = entry->traits.may_write_over_input0;
    s.explicit_inputs = ms.explicit_inputs;
    s.inputs = std::move(ms.inputs);
    s.outputs = std::move(ms.outputs);
    // The stored memory plan placed output 0 over input 0 where they share a buffer.
    s.writes_over_input0 = s.may_write_over_input0 && !s.inputs.empty() && !s.outputs.empty() &&
                           s.inputs[0] >= 0 && s.outputs[0] >= 0 &&
                           plan->values[static_cast<std::size_t>(s.inputs[0])].buffer >= 0 &&
                           plan->values[static_cast<std::size_t>(s.inputs[0])].buffer ==
                               plan->values[static_cast<std::size_t>(s.outputs[0])].buffer;
    s.release = std::move(ms.release);
    s.implicit_names = std::move(ms.implicit_names);
    plan->steps.push_back(std::move(s));
  }
  // What the kernels now hold, when every stored entry was used as stored.
  if (replay.mode == PackTrace::Mode::kReplay && replay.next == replay.packed.size())
    plan->packed = std::move(replay.packed);
  return plan;
}

}  // namespace winml::runtime::ref_blob
