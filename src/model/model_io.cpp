#include "model/model_io.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <climits>
#include <set>

#include "base/atomic_file.h"
#include "base/error.h"
#include "model/blob_alignment.h"
#include "model/epcontext.h"
#include "model/external_data.h"
#include "model/mapped_blobs.h"
#include "model/path_safety.h"
#include "model/validate.h"
#include "model/walk.h"
#include "base/path_text.h"

namespace winml::model {

namespace fs = std::filesystem;
namespace pbio = google::protobuf::io;

namespace {

// Large tensors start on a 64 KiB boundary so they can be memory-mapped
// directly on every OS (Windows' allocation granularity is 64 KiB); small
// ones on 64 bytes, enough for any SIMD load.
std::uint64_t alignment_for(std::uint64_t size) { return size >= kMiB ? 65536 : 64; }

std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

void map_external_data(Model& m) {
  const std::string path = to_utf8(m.path);
  for_each_tensor(m.proto.graph(), [&](const onnx::TensorProto& t, TensorSite) {
    if (!is_external(t)) return;
    ExternalDataRef ref = read_external_ref(t, path);
    auto it = m.external_files.find(ref.location);
    if (it == m.external_files.end()) {
      fs::path file = resolve_inside(m.dir(), ref.location, "external data location", m.path);
      if (!fs::exists(file))
        throw InputError(file_error(
            path, "external data file '" + ref.location + "' is missing (expected at " + to_utf8(file) + ")"));
      it = m.external_files.emplace(ref.location, MappedFile::open(file)).first;
    }
    const MappedFile& f = *it->second;
    std::uint64_t expected = storage_bytes(t.data_type(), static_cast<std::uint64_t>(element_count(t)));
    std::uint64_t length = ref.length.value_or(f.size() >= ref.offset ? f.size() - ref.offset : 0);
    if (ref.offset > f.size() || length > f.size() - ref.offset)
      throw InputError(file_error(
          to_utf8(f.path()), "is too short for tensor '" + t.name() + "' of " + path + ": needs bytes up to offset " +
                                 std::to_string(ref.offset + length) + ", file has " + std::to_string(f.size())));
    if (has_fixed_size(t.data_type()) && length != expected)
      throw InputError(file_error(path, "tensor '" + t.name() + "' has external data length " + std::to_string(length) +
                                            " but its shape and type need " + std::to_string(expected)));
  });
}

// Where a tensor's bytes currently live, for copying them to a new sidecar.
void write_tensor_payload(const Model& m, const onnx::TensorProto& t, AtomicFileWriter& out) {
  if (is_external(t)) {
    ExternalDataRef ref = read_external_ref(t, to_utf8(m.path));
    const auto& file = m.external_files.at(ref.location);
    std::uint64_t length = ref.length.value_or(file->size() - ref.offset);
    out.copy_from_fd(file->fd(), ref.offset, length);
    return;
  }
  TensorBytes b = inline_tensor_bytes(t);
  out.write(b.bytes.data(), b.bytes.size());
}

void make_inline(const Model& m, onnx::TensorProto& t) {
  if (!is_external(t)) return;
  TensorBytes b = m.tensor_bytes(t);
  std::string bytes(reinterpret_cast<const char*>(b.bytes.data()), b.bytes.size());
  set_raw_data(t, bytes.data(), bytes.size());
}

bool can_be_external(const onnx::TensorProto& t, TensorSite site, std::uint64_t min_bytes) {
  return site == TensorSite::kInitializer && has_fixed_size(t.data_type()) && payload_size(t) >= min_bytes;
}

void write_proto(const google::protobuf::MessageLite& msg, AtomicFileWriter& out) {
  {
    pbio::FileOutputStream fos(out.fd());
    {
      pbio::CodedOutputStream cos(&fos);
      cos.SetSerializationDeterministic(true);
      msg.SerializeWithCachedSizes(&cos);
      if (cos.HadError()) throw BuildError(file_error(to_utf8(out.destination()), "serialization failed"));
    }
    if (!fos.Flush()) throw BuildError(file_error(to_utf8(out.destination()), "write failed"));
  }
}

}  // namespace

std::string data_file_name(const fs::path& model_path) { return to_utf8(model_path.filename()) + ".data"; }

std::string serialize_deterministic(const google::protobuf::MessageLite& message) {
  std::string out;
  out.reserve(message.ByteSizeLong());
  {
    pbio::StringOutputStream sos(&out);
    pbio::CodedOutputStream cos(&sos);
    cos.SetSerializationDeterministic(true);
    message.SerializeWithCachedSizes(&cos);
  }
  return out;
}

Model load_model(const fs::path& path, const LoadOptions& options) {
  Model m;
  m.path = path;
  auto file = MappedFile::open(path);
  if (file->size() == 0) throw InputError(file_error(to_utf8(path), "empty file, not an ONNX model"));
  if (file->size() > static_cast<std::uint64_t>(INT_MAX))
    throw InputError(file_error(to_utf8(path),
                                "model file exceeds 2 GiB; protobuf cannot hold it (store the "
                                "weights as external data)"));
  std::optional<LiftedModel> lifted;
  if (options.map_blobs) lifted = lift_context_blobs(file->view(), options.map_blobs_from);
  {
    const std::string_view bytes = lifted ? std::string_view(lifted->reduced) : file->view();
    pbio::ArrayInputStream ais(bytes.data(), static_cast<int>(bytes.size()));
    pbio::CodedInputStream cis(&ais);
    cis.SetTotalBytesLimit(INT_MAX);
    if (!m.proto.ParseFromCodedStream(&cis) || !cis.ConsumedEntireMessage())
      throw InputError(file_error(to_utf8(path),
                                  "not a valid ONNX model (protobuf parsing failed: the file is "
                                  "truncated, corrupt or not ONNX)"));
  }
  if (lifted) {
    const onnx::GraphProto& g = m.proto.graph();
    for (const LiftedString& s : lifted->strings) {
      if (s.node >= g.node_size() || s.attribute >= g.node(s.node).attribute_size())
        throw InputError(file_error(to_utf8(path), "not a valid ONNX model (an EPContext node is malformed)"));
      const char* at = reinterpret_cast<const char*>(file->data()) + s.offset;
      m.mapped_strings[&g.node(s.node).attribute(s.attribute)] = std::string_view(at, s.size);
    }
    m.mapped_model = file;
  }
  if (options.validate) validate_structure(m.proto, to_utf8(path));
  map_external_data(m);
  resolve_context_files(m.proto, path);
  return m;
}

std::uint64_t inline_size(const Model& m) {
  std::uint64_t total = m.proto.ByteSizeLong();
  for_each_tensor(m.proto.graph(), [&](const onnx::TensorProto& t, TensorSite) {
    if (is_external(t)) total += payload_size(t) + 16;  // + field overhead
  });
  return total;
}

std::string serialize_inline(const Model& m) {
  if (inline_size(m) >= static_cast<std::uint64_t>(INT_MAX))
    throw BuildError(file_error(to_utf8(m.path), "exceeds 2 GiB with its data inline"));
  onnx::ModelProto copy = m.proto;  // (external tensors hold references: a small copy)
  for_each_tensor(*copy.mutable_graph(), [&](onnx::TensorProto& t, TensorSite) { make_inline(m, t); });
  return serialize_deterministic(copy);
}

void save_model(Model& m, const fs::path& path, const SaveOptions& options) {
  if (!m.mapped_strings.empty())
    throw std::logic_error(to_utf8(path) + ": a model loaded with its blobs mapped (LoadOptions::map_blobs) is not saved");
  const std::string data_name = data_file_name(path);
  const fs::path data_path = path.parent_path() / from_utf8(data_name);
  std::uint64_t total = inline_size(m);
  bool external = options.external == ExternalData::kAlways ||
                  (options.external == ExternalData::kAuto && total >= options.external_data_threshold) ||
                  total >= static_cast<std::uint64_t>(INT_MAX);  // protobuf's hard limit
  if (options.external == ExternalData::kNever && total >= static_cast<std::uint64_t>(INT_MAX))
    throw BuildError(file_error(to_utf8(path), "model exceeds 2 GiB and must be saved with external data"));
  // `-o /dev/null` or a pipe takes the model as one stream: a sidecar beside
  // it would be written outside anything the user named (/dev/null.data).
  if (external && is_stream_destination(path)) {
    if (total >= static_cast<std::uint64_t>(INT_MAX))
      throw BuildError(file_error(to_utf8(path), "is a device or a pipe, and a model over 2 GiB keeps its weights in "
                                                 "a sidecar file beside it; write it to a file instead"));
    external = false;
  }

  std::map<std::string, std::shared_ptr<const MappedFile>> new_files;
  if (external) {
    AtomicFileWriter data(data_path);
    for_each_tensor(*m.proto.mutable_graph(), [&](onnx::TensorProto& t, TensorSite site) {
      if (!can_be_external(t, site, options.min_external_tensor_bytes)) {
        make_inline(m, t);
        return;
      }
      std::uint64_t size = payload_size(t);
      std::uint64_t offset = align_up(data.size(), alignment_for(size));
      data.pad_to(offset);
      write_tensor_payload(m, t, data);
      set_external_ref(t, data_name, offset, size);
    });
    // Every byte of the old sidecars is copied: let go of them before the new
    // one replaces the model's own (Windows replaces no file this process has mapped).
    m.external_files.clear();
    data.commit();
    new_files.emplace(data_name, MappedFile::open(data_path));
  } else {
    for_each_tensor(*m.proto.mutable_graph(), [&](onnx::TensorProto& t, TensorSite) { make_inline(m, t); });
    m.external_files.clear();  // (so that a stale sidecar it read can be removed below, on Windows too)
  }

  if (options.blob_alignment) align_embedded_blobs(m.proto, options.blob_alignment, 64 * 1024);
  AtomicFileWriter out(path);
  m.proto.ByteSizeLong();  // caches sizes for SerializeWithCachedSizes
  write_proto(m.proto, out);
  out.commit();

  if (!external) {
    std::error_code ec;
    fs::remove(data_path, ec);  // a sidecar of an earlier, larger version
  }
  m.path = path;
  m.external_files = std::move(new_files);
}

}  // namespace winml::model
