#include "runtime/ref_blob/plan_codec.h"

#include <algorithm>
#include <concepts>
#include <optional>
#include <type_traits>

#include "base/checked_size.h"
#include "model/tensor_data.h"
#include "runtime/gemm.h"
#include "runtime/ref_blob/byte_stream.h"

namespace winml::runtime::ref_blob {

namespace {

// The layout, written once: `fields(io, record)` lists a record's fields in
// their order on disk, and the Writer and the Reader each give every field
// type its encoding. Counts of records are checked against the bytes left
// (the smallest encoding of one record: `min_bytes`).
struct Writer {
  ByteWriter w;
  void operator()(const std::string& v) { w.bytes(v); }
  void operator()(const bool& v) { w.u8(v ? 1 : 0); }
  void operator()(const std::int32_t& v) { w.i32(v); }
  void operator()(const std::int64_t& v) { w.i64(v); }
  void operator()(const std::uint64_t& v) { w.u64(v); }
  void operator()(const std::vector<int>& v) { w.ints(v); }
  void operator()(const std::vector<std::int64_t>& v) { w.i64s(v); }
  void operator()(const std::vector<std::string>& v) { w.strings(v); }
  void operator()(const std::optional<Shape>& v) {
    w.u8(v ? 1 : 0);
    w.i64s(v ? *v : Shape{});
  }
  void operator()(const std::map<std::string, std::int64_t>& v) {
    w.u32(static_cast<std::uint32_t>(v.size()));
    for (const auto& [name, value] : v) {
      w.bytes(name);
      w.i64(value);
    }
  }
  template <typename Record>
  void records(const std::vector<Record>& v, std::size_t /*min_bytes*/) {
    w.u32(static_cast<std::uint32_t>(v.size()));
    for (const auto& r : v) fields(*this, r);
  }
};

struct Reader {
  ByteReader r;
  void operator()(std::string& v) { v = r.string(); }
  void operator()(bool& v) { v = r.u8() != 0; }
  void operator()(std::int32_t& v) { v = r.i32(); }
  void operator()(std::int64_t& v) { v = r.i64(); }
  void operator()(std::uint64_t& v) { v = r.u64(); }
  void operator()(std::vector<int>& v) { v = r.ints(); }
  void operator()(std::vector<std::int64_t>& v) { v = r.i64s(); }
  void operator()(std::vector<std::string>& v) { v = r.strings(); }
  void operator()(std::optional<Shape>& v) {
    const bool present = r.u8() != 0;
    Shape shape = r.i64s();
    if (present) v = std::move(shape);
    else v.reset();
  }
  void operator()(std::map<std::string, std::int64_t>& v) {
    for (std::size_t n = r.count(16); n > 0; --n) {
      std::string name = r.string();
      v[name] = r.i64();
    }
  }
  template <typename Record>
  void records(std::vector<Record>& v, std::size_t min_bytes) {
    v.resize(r.count(min_bytes));
    for (auto& x : v) fields(*this, x);
  }
};

// `V` is the record, const when writing.
template <typename V, typename Record>
concept RecordOf = std::same_as<std::remove_const_t<V>, Record>;

template <typename Io, RecordOf<ValueInfo> V>
void fields(Io& io, V& v) {
  io(v.name), io(v.dtype), io(v.shape), io(v.buffer), io(v.dim_params);
}
template <typename Io, RecordOf<MetaConstant> V>
void fields(Io& io, V& c) {
  io(c.value), io(c.dtype), io(c.shape), io(c.offset), io(c.bytes);
}
template <typename Io, RecordOf<MetaPacked> V>
void fields(Io& io, V& p) {
  io(p.left), io(p.k), io(p.extent), io(p.kc), io(p.isa), io(p.offset), io(p.bytes);
}
template <typename Io, RecordOf<ArenaBuffer> V>
void fields(Io& io, V& b) {
  io(b.offset), io(b.bytes);
}
template <typename Io, RecordOf<MetaStep> V>
void fields(Io& io, V& s) {
  io(s.opset), io(s.explicit_inputs), io(s.inputs), io(s.outputs), io(s.release), io(s.implicit_names);
}
template <typename Io, RecordOf<Meta> V>
void fields(Io& io, V& m) {
  io(m.partition_name), io(m.dims), io(m.opsets);
  io.records(m.values, 25);
  io(m.inputs), io(m.outputs);
  io.records(m.constants, 36);
  io.records(m.packed, 41);
  io.records(m.buffers, 16);
  io(m.arena_bytes), io(m.nodes);
  io.records(m.steps, 40);
  io(m.data_checksum.high), io(m.data_checksum.low);
}

// Every index and size against the tables and the data section.
void check(const Meta& m, std::uint64_t data_bytes, const ByteReader& r) {
  for (const auto& v : m.values) {
    if (!v.shape) continue;
    for (auto d : *v.shape)
      if (d < 0) r.fail("value '" + v.name + "' has a negative dimension");
    if (!checked_byte_size(*v.shape, std::max<std::size_t>(dtype_size(v.dtype), 1)))
      r.fail("value '" + v.name + "' has a shape of more than 2^64 bytes");
  }
  const int value_count = static_cast<int>(m.values.size());
  auto check_ids = [&](const std::vector<int>& ids, bool allow_absent, const char* where) {
    for (int id : ids)
      if (id >= value_count || id < (allow_absent ? -1 : 0))
        r.fail(std::string("value index ") + std::to_string(id) + " out of range in " + where);
  };
  check_ids(m.inputs, false, "the inputs");
  check_ids(m.outputs, false, "the outputs");
  for (const auto& c : m.constants) {
    check_ids({c.value}, false, "the constants");
    for (auto d : c.shape)
      if (d < 0) r.fail("a constant has a negative dimension");
    if (c.dtype == onnx::TensorProto::STRING || !model::has_fixed_size(c.dtype))
      r.fail("constant '" + m.values[c.value].name + "' has an unsupported element type");
    // (4-bit types are stored two to a byte)
    const auto count = checked_byte_size(c.shape, 1);
    if (!count || model::storage_bytes(c.dtype, *count) != c.bytes)
      r.fail("constant '" + m.values[c.value].name + "' has " + std::to_string(c.bytes) + " bytes for shape " +
             shape_string(c.shape));
    if (!range_fits(c.offset, c.bytes, data_bytes))
      r.fail("constant '" + m.values[c.value].name + "' lies outside the data section");
  }

  for (const auto& p : m.packed) {
    if (packed_weights_bytes(p.k, p.extent, p.kc) != p.bytes)
      r.fail("packed weights have an inconsistent size");
    if (!range_fits(p.offset, p.bytes, data_bytes)) r.fail("packed weights lie outside the data section");
  }

  if (m.arena_bytes < 0) r.fail("negative arena size");
  for (const auto& b : m.buffers)
    if (b.offset < 0 || b.bytes < 0 ||
        !range_fits(static_cast<std::uint64_t>(b.offset), static_cast<std::uint64_t>(b.bytes),
              static_cast<std::uint64_t>(m.arena_bytes)))
      r.fail("an arena buffer lies outside the arena");
  for (const auto& v : m.values) {
    if (v.buffer < 0) continue;
    if (v.buffer >= static_cast<int>(m.buffers.size()) || !v.shape)
      r.fail("value '" + v.name + "' has an invalid arena buffer");
    const auto need = checked_byte_size(*v.shape, dtype_size(v.dtype));
    if (!need || *need > static_cast<std::uint64_t>(m.buffers[static_cast<std::size_t>(v.buffer)].bytes))
      r.fail("value '" + v.name + "' does not fit its arena buffer");
  }

  for (const auto& s : m.steps) {
    check_ids(s.inputs, true, "a step's inputs");
    check_ids(s.outputs, true, "a step's outputs");
    check_ids(s.release, false, "a step's release list");
    if (s.explicit_inputs < 0 || s.explicit_inputs > static_cast<int>(s.inputs.size()) ||
        s.inputs.size() - static_cast<std::size_t>(s.explicit_inputs) != s.implicit_names.size())
      r.fail("a step's implicit inputs do not match its names");
  }
}

}  // namespace

std::string encode_meta(const Meta& m) {
  Writer w;
  fields(w, m);
  return w.w.take();
}

Meta decode_meta(std::string_view bytes, std::uint64_t data_bytes, const std::string& what) {
  Reader reader{ByteReader(bytes, what + ": ref blob metadata")};
  Meta m;
  fields(reader, m);
  if (!reader.r.at_end()) reader.r.fail("unexpected bytes after the metadata");
  check(m, data_bytes, reader.r);
  return m;
}

}  // namespace winml::runtime::ref_blob
