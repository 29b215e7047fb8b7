#include "runtime/ref_blob/plan_codec.h"

#include <algorithm>

#include "base/checked_size.h"
#include "runtime/ref_blob/byte_stream.h"

namespace winml::runtime::ref_blob {

std::string encode_meta(const Meta& m) {
  ByteWriter w;
  w.bytes(m.partition_name);
  w.u32(static_cast<std::uint32_t>(m.dims.size()));
  for (const auto& [name, value] : m.dims) {
    w.bytes(name);
    w.i64(value);
  }
  w.u32(static_cast<std::uint32_t>(m.opsets.size()));
  for (const auto& [domain, version] : m.opsets) {
    w.bytes(domain);
    w.i64(version);
  }
  w.u32(static_cast<std::uint32_t>(m.values.size()));
  for (const auto& v : m.values) {
    w.bytes(v.name);
    w.i32(v.dtype);
    w.u8(v.shape ? 1 : 0);
    w.i64s(v.shape ? *v.shape : Shape{});
    w.i32(v.buffer);
    w.strings(v.dim_params);
  }
  w.ints(m.inputs);
  w.ints(m.outputs);
  w.u32(static_cast<std::uint32_t>(m.constants.size()));
  for (const auto& c : m.constants) {
    w.i32(c.value);
    w.i32(c.dtype);
    w.i64s(c.shape);
    w.u64(c.offset);
    w.u64(c.bytes);
  }
  w.u32(static_cast<std::uint32_t>(m.packed.size()));
  for (const auto& p : m.packed) {
    w.u8(p.left ? 1 : 0);
    w.i64(p.k);
    w.i64(p.extent);
    w.i64(p.kc);
    w.bytes(p.isa);
    w.u64(p.offset);
    w.u64(p.bytes);
  }
  w.u32(static_cast<std::uint32_t>(m.buffers.size()));
  for (const auto& b : m.buffers) {
    w.i64(b.offset);
    w.i64(b.bytes);
  }
  w.i64(m.arena_bytes);
  w.bytes(m.nodes);
  w.u32(static_cast<std::uint32_t>(m.steps.size()));
  for (const auto& s : m.steps) {
    w.i64(s.opset);
    w.i32(s.explicit_inputs);
    w.ints(s.inputs);
    w.ints(s.outputs);
    w.ints(s.release);
    w.strings(s.implicit_names);
  }
  w.u64(m.data_checksum.high);
  w.u64(m.data_checksum.low);
  return w.take();
}

namespace {

bool fits(std::uint64_t offset, std::uint64_t bytes, std::uint64_t limit) {
  return offset <= limit && bytes <= limit - offset;
}

}  // namespace

Meta decode_meta(std::string_view bytes, std::uint64_t data_bytes, const std::string& what) {
  ByteReader r(bytes, what + ": ref blob metadata");
  Meta m;
  m.partition_name = r.string();
  for (std::size_t n = r.count(16); n > 0; --n) {
    std::string name = r.string();
    m.dims[name] = r.i64();
  }
  for (std::size_t n = r.count(16); n > 0; --n) {
    std::string domain = r.string();
    m.opsets[domain] = r.i64();
  }
  m.values.resize(r.count(25));
  for (auto& v : m.values) {
    v.name = r.string();
    v.dtype = r.i32();
    bool has_shape = r.u8() != 0;
    Shape shape = r.i64s();
    if (has_shape) {
      for (auto d : shape)
        if (d < 0) r.fail("value '" + v.name + "' has a negative dimension");
      if (!checked_byte_size(shape, std::max<std::size_t>(dtype_size(v.dtype), 1)))
        r.fail("value '" + v.name + "' has a shape of more than 2^64 bytes");
      v.shape = std::move(shape);
    }
    v.buffer = r.i32();
    v.dim_params = r.strings();
  }
  const int value_count = static_cast<int>(m.values.size());
  auto check_ids = [&](const std::vector<int>& ids, bool allow_absent, const char* where) {
    for (int id : ids)
      if (id >= value_count || id < (allow_absent ? -1 : 0))
        r.fail(std::string("value index ") + std::to_string(id) + " out of range in " + where);
  };
  m.inputs = r.ints();
  check_ids(m.inputs, false, "the inputs");
  m.outputs = r.ints();
  check_ids(m.outputs, false, "the outputs");

  m.constants.resize(r.count(36));
  for (auto& c : m.constants) {
    c.value = r.i32();
    c.dtype = r.i32();
    c.shape = r.i64s();
    c.offset = r.u64();
    c.bytes = r.u64();
    check_ids({c.value}, false, "the constants");
    for (auto d : c.shape)
      if (d < 0) r.fail("a constant has a negative dimension");
    std::size_t element = dtype_size(c.dtype);
    if (element == 0) r.fail("constant '" + m.values[c.value].name + "' has an unsupported element type");
    if (checked_byte_size(c.shape, element) != c.bytes)
      r.fail("constant '" + m.values[c.value].name + "' has " + std::to_string(c.bytes) + " bytes for shape " +
             shape_string(c.shape));
    if (!fits(c.offset, c.bytes, data_bytes))
      r.fail("constant '" + m.values[c.value].name + "' lies outside the data section");
  }

  m.packed.resize(r.count(41));
  for (auto& p : m.packed) {
    p.left = r.u8() != 0;
    p.k = r.i64();
    p.extent = r.i64();
    p.kc = r.i64();
    p.isa = r.string();
    p.offset = r.u64();
    p.bytes = r.u64();
    if (p.k < 0 || p.extent < 0 || p.kc < 0 || checked_byte_size(std::initializer_list<std::int64_t>{p.k, p.extent}, sizeof(float)) != p.bytes)
      r.fail("packed weights have an inconsistent size");
    if (!fits(p.offset, p.bytes, data_bytes)) r.fail("packed weights lie outside the data section");
  }

  m.buffers.resize(r.count(16));
  for (auto& b : m.buffers) {
    b.offset = r.i64();
    b.bytes = r.i64();
  }
  m.arena_bytes = r.i64();
  if (m.arena_bytes < 0) r.fail("negative arena size");
  for (const auto& b : m.buffers)
    if (b.offset < 0 || b.bytes < 0 || !fits(static_cast<std::uint64_t>(b.offset), static_cast<std::uint64_t>(b.bytes),
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

  m.nodes = r.string();
  m.steps.resize(r.count(40));
  for (auto& s : m.steps) {
    s.opset = r.i64();
    s.explicit_inputs = r.i32();
    s.inputs = r.ints();
    s.outputs = r.ints();
    s.release = r.ints();
    s.implicit_names = r.strings();
    check_ids(s.inputs, true, "a step's inputs");
    check_ids(s.outputs, true, "a step's outputs");
    check_ids(s.release, false, "a step's release list");
    if (s.explicit_inputs < 0 || s.explicit_inputs > static_cast<int>(s.inputs.size()) ||
        s.inputs.size() - static_cast<std::size_t>(s.explicit_inputs) != s.implicit_names.size())
      r.fail("a step's implicit inputs do not match its names");
  }
  m.data_checksum.high = r.u64();
  m.data_checksum.low = r.u64();
  if (!r.at_end()) r.fail("unexpected bytes after the metadata");
  return m;
}

}  // namespace winml::runtime::ref_blob
