#include "model/mapped_blobs.h"

#include "model/epcontext.h"

namespace winml::model {

namespace {

// Protobuf's wire format, as much as walking ModelProto -> GraphProto ->
// NodeProto -> AttributeProto needs.
enum WireType { kVarint = 0, kFixed64 = 1, kLength = 2, kFixed32 = 5 };

struct Field {
  std::uint32_t number = 0;
  int type = 0;
  const char* start = nullptr;    // the tag
  const char* payload = nullptr;  // after the tag (and the length, for kLength)
  std::uint64_t length = 0;       // of the payload, for kLength
  const char* end = nullptr;
  std::string_view bytes() const { return {payload, static_cast<std::size_t>(length)}; }
};

bool read_varint(const char*& p, const char* end, std::uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 64 && p < end; shift += 7) {
    const auto b = static_cast<unsigned char>(*p++);
    v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

// Calls fn(field) for each field of the message in `bytes`; false when malformed or fn returns false.
template <class Fn>
bool for_each_field(std::string_view bytes, Fn&& fn) {
  const char* p = bytes.data();
  const char* end = p + bytes.size();
  while (p < end) {
    Field f;
    f.start = p;
    std::uint64_t tag = 0;
    if (!read_varint(p, end, tag) || (tag >> 3) == 0 || (tag >> 3) > 0x1fffffff) return false;
    f.number = static_cast<std::uint32_t>(tag >> 3);
    f.type = static_cast<int>(tag & 7);
    std::uint64_t skip = 0;
    switch (f.type) {
      case kVarint: {
        std::uint64_t ignored = 0;
        f.payload = p;
        if (!read_varint(p, end, ignored)) return false;
        break;
      }
      case kFixed64: skip = 8; break;
      case kFixed32: skip = 4; break;
      case kLength:
        if (!read_varint(p, end, f.length)) return false;
        skip = f.length;
        break;
      default: return false;  // groups: not in ONNX
    }
    if (f.type != kVarint) {
      f.payload = p;
      if (skip > static_cast<std::uint64_t>(end - p)) return false;
      p += skip;
    }
    f.end = p;
    if (!fn(f)) return false;
  }
  return true;
}

void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void put_length_field(std::string& out, std::uint32_t number, const std::string& payload) {
  put_varint(out, (static_cast<std::uint64_t>(number) << 3) | kLength);
  put_varint(out, payload.size());
  out += payload;
}

constexpr std::uint32_t kModelGraph = 7, kGraphNode = 1, kNodeName = 3, kNodeOpType = 4, kNodeAttribute = 5,
                        kNodeDomain = 7, kAttributeName = 1, kAttributeString = 4;

class Lifter {
 public:
  Lifter(std::string_view file, std::uint64_t min_bytes, bool emit) : file_(file), min_(min_bytes), emit_(emit) {}

  bool model(std::string_view bytes, std::string& out) {
    int graphs = 0;
    return for_each_field(bytes, [&](const Field& f) {
      if (f.number == kModelGraph && f.type == kLength) {
        if (++graphs > 1) return false;  // (protobuf would merge them: leave it to protobuf)
        std::string g;
        if (!graph(f.bytes(), g)) return false;
        if (emit_) put_length_field(out, f.number, g);
      } else if (emit_) {
        out.append(f.start, f.end);
      }
      return true;
    });
  }

  std::vector<LiftedString> strings;

 private:
  bool graph(std::string_view bytes, std::string& out) {
    int index = 0;
    return for_each_field(bytes, [&](const Field& f) {
      if (f.number == kGraphNode && f.type == kLength) {
        std::string n;
        if (!node(f.bytes(), index++, n)) return false;
        if (emit_) put_length_field(out, f.number, n);
      } else if (emit_) {
        out.append(f.start, f.end);
      }
      return true;
    });
  }

  bool node(std::string_view bytes, int index, std::string& out) {
    std::string_view op, domain;
    node_name_ = {};
    bool ok = for_each_field(bytes, [&](const Field& f) {
      if (f.type == kLength && f.number == kNodeOpType) op = f.bytes();
      if (f.type == kLength && f.number == kNodeDomain) domain = f.bytes();
      if (f.type == kLength && f.number == kNodeName) node_name_ = f.bytes();
      return true;
    });
    if (!ok) return false;
    if (op != kEpContextOp || domain != kMicrosoftDomain) {
      if (emit_) out.assign(bytes);
      return true;
    }
    int attribute_index = 0;
    return for_each_field(bytes, [&](const Field& f) {
      if (f.number == kNodeAttribute && f.type == kLength) {
        std::string a;
        if (!attribute(f.bytes(), index, attribute_index++, a)) return false;
        if (emit_) put_length_field(out, f.number, a);
      } else if (emit_) {
        out.append(f.start, f.end);
      }
      return true;
    });
  }

  bool attribute(std::string_view bytes, int node_index, int attribute_index, std::string& out) {
    std::string_view name;
    const Field* blob = nullptr;
    Field s;
    int strings_seen = 0;
    bool ok = for_each_field(bytes, [&](const Field& f) {
      if (f.type == kLength && f.number == kAttributeName) name = f.bytes();
      if (f.type == kLength && f.number == kAttributeString) {
        s = f;
        blob = &s;
        ++strings_seen;
      }
      return true;
    });
    if (!ok || strings_seen > 1) return false;  // (protobuf keeps the last of several: leave it to protobuf)
    const bool lift = blob && name == "ep_cache_context" && blob->length >= min_;
    if (lift)
      strings.push_back({node_index, attribute_index, static_cast<std::uint64_t>(blob->payload - file_.data()),
                         blob->length, std::string(node_name_)});
    if (!emit_) return true;
    if (!lift) {
      out.assign(bytes);
      return true;
    }
    return for_each_field(bytes, [&](const Field& f) {
      if (f.start != blob->start) out.append(f.start, f.end);
      return true;
    });
  }

  std::string_view file_;
  std::uint64_t min_;
  bool emit_;
  std::string_view node_name_;  // of the node being walked
};

}  // namespace

std::vector<LiftedString> find_context_blobs(std::string_view serialized, std::uint64_t min_bytes) {
  std::string none;
  Lifter probe(serialized, min_bytes, false);
  if (!probe.model(serialized, none)) return {};
  return std::move(probe.strings);
}

std::optional<LiftedModel> lift_context_blobs(std::string_view serialized, std::uint64_t min_bytes) {
  // A first walk only looks (the weights of an ordinary model are skipped by
  // their lengths, never copied); a second writes the reduced copy.
  std::string none;
  Lifter probe(serialized, min_bytes, false);
  if (!probe.model(serialized, none) || probe.strings.empty()) return std::nullopt;
  LiftedModel r;
  Lifter lifter(serialized, min_bytes, true);
  if (!lifter.model(serialized, r.reduced)) return std::nullopt;
  r.strings = std::move(lifter.strings);
  return r;
}

}  // namespace winml::model
