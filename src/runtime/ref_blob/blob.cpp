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
#include "runtime/ref_blob/plan_loader.h"
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
  return plan_from_meta(p.meta, blob.data() + p.data_offset, keepalive, what);
}

}  // namespace winml::runtime::ref_blob
