#include "model/model_diff.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include "base/mapped_file.h"
#include "model/epcontext.h"
#include "model/tensor_values.h"
#include "base/path_text.h"

namespace winml::model {

namespace {

using Out = std::vector<Difference>;

std::string quoted(const std::string& s) { return "'" + s + "'"; }

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// "float32[1,3,'N',?]", or the kind of a non-tensor type.
std::string describe_type(const onnx::TypeProto& t) {
  if (!t.has_tensor_type()) return t.has_sequence_type() ? "sequence" : t.has_map_type() ? "map" : "other";
  std::string s = data_type_name(t.tensor_type().elem_type());
  if (!t.tensor_type().has_shape()) return s + "[unknown rank]";
  s += "[";
  bool first = true;
  for (const auto& d : t.tensor_type().shape().dim()) {
    if (!first) s += ",";
    first = false;
    s += d.has_dim_value() ? std::to_string(d.dim_value()) : d.has_dim_param() ? quoted(d.dim_param()) : "?";
  }
  return s + "]";
}

void compare_field(Out& out, const std::string& name, const std::string& a, const std::string& b) {
  if (a != b) out.push_back({"metadata", name, (a.empty() ? "(none)" : a) + " vs " + (b.empty() ? "(none)" : b)});
}

void compare_maps(Out& out, const std::string& kind, const std::string& prefix,
                  const std::map<std::string, std::string>& a, const std::map<std::string, std::string>& b) {
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    if (it == b.end()) out.push_back({kind, prefix + k, "only in A (" + v + ")"});
    else if (it->second != v) out.push_back({kind, prefix + k, v + " vs " + it->second});
  }
  for (const auto& [k, v] : b)
    if (!a.count(k)) out.push_back({kind, prefix + k, "only in B (" + v + ")"});
}

void compare_metadata(Out& out, const onnx::ModelProto& a, const onnx::ModelProto& b) {
  compare_field(out, "ir_version", std::to_string(a.ir_version()), std::to_string(b.ir_version()));
  compare_field(out, "producer_name", a.producer_name(), b.producer_name());
  compare_field(out, "producer_version", a.producer_version(), b.producer_version());
  compare_field(out, "domain", a.domain(), b.domain());
  compare_field(out, "model_version", std::to_string(a.model_version()), std::to_string(b.model_version()));
  compare_field(out, "doc_string", a.doc_string(), b.doc_string());
  auto opsets = [](const onnx::ModelProto& m) {
    std::map<std::string, std::string> o;
    for (const auto& i : m.opset_import()) o[i.domain().empty() ? "ai.onnx" : i.domain()] = std::to_string(i.version());
    return o;
  };
  compare_maps(out, "metadata", "opset ", opsets(a), opsets(b));
  auto props = [](const onnx::ModelProto& m) {
    std::map<std::string, std::string> o;
    for (const auto& p : m.metadata_props()) o[p.key()] = p.value();
    return o;
  };
  compare_maps(out, "metadata", "metadata_props ", props(a), props(b));
}

void compare_values(Out& out, const std::string& kind, const std::string& where,
                    const google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>& a,
                    const google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>& b) {
  auto types = [](const auto& vs) {
    std::map<std::string, std::string> o;
    for (const auto& v : vs) o[v.name()] = describe_type(v.type());
    return o;
  };
  compare_maps(out, kind, where, types(a), types(b));
  std::vector<std::string> na, nb;
  for (const auto& v : a) na.push_back(v.name());
  for (const auto& v : b) nb.push_back(v.name());
  if (na != nb && std::set(na.begin(), na.end()) == std::set(nb.begin(), nb.end()))
    out.push_back({kind, where + "(order)", "the same " + kind + "s in another order"});
}

// Initializer values: how many elements differ, by how much at most.
void compare_tensor(Out& out, const std::string& name, const Model& ma, const onnx::TensorProto& a, const Model& mb,
                    const onnx::TensorProto& b) {
  const std::string ta = data_type_name(a.data_type()), tb = data_type_name(b.data_type());
  std::vector<std::int64_t> da(a.dims().begin(), a.dims().end()), db(b.dims().begin(), b.dims().end());
  if (a.data_type() != b.data_type() || da != db) {
    auto shape = [](const std::string& t, const std::vector<std::int64_t>& d) {
      std::string s = t + "[";
      for (std::size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
      return s + "]";
    };
    out.push_back({"initializer", name, shape(ta, da) + " vs " + shape(tb, db)});
    return;
  }
  const TensorBytes ba = ma.tensor_bytes(a), bb = mb.tensor_bytes(b);
  if (ba.bytes.size() == bb.bytes.size() &&
      std::memcmp(ba.bytes.data(), bb.bytes.data(), ba.bytes.size()) == 0)
    return;
  const std::string total = std::to_string(element_count(a));
  if (auto fa = read_floats(ma, a), fb = read_floats(mb, b); fa && fb && fa->size() == fb->size()) {
    std::int64_t count = 0;
    double most = 0;
    for (std::size_t i = 0; i < fa->size(); ++i) {
      if (std::bit_cast<std::uint32_t>((*fa)[i]) == std::bit_cast<std::uint32_t>((*fb)[i])) continue;
      ++count;
      const double d = std::fabs(static_cast<double>((*fa)[i]) - (*fb)[i]);
      most = std::isnan(d) || std::isnan(most) ? NAN : std::max(most, d);
    }
    out.push_back({"initializer", name,
                   std::to_string(count) + " of " + total + " elements differ, max |A-B| " + number(most)});
    return;
  }
  if (auto ia = read_ints(ma, a), ib = read_ints(mb, b); ia && ib && ia->size() == ib->size()) {
    std::int64_t count = 0;
    double most = 0;
    for (std::size_t i = 0; i < ia->size(); ++i)
      if ((*ia)[i] != (*ib)[i]) {
        ++count;
        most = std::max(most, std::fabs(static_cast<double>((*ia)[i]) - static_cast<double>((*ib)[i])));
      }
    out.push_back({"initializer", name,
                   std::to_string(count) + " of " + total + " elements differ, max |A-B| " + number(most)});
    return;
  }
  out.push_back({"initializer", name, "the bytes differ (" + ta + ")"});
}

std::string describe_attribute(const Model& m, const onnx::AttributeProto& a) {
  switch (a.type()) {
    case onnx::AttributeProto::INT: return std::to_string(a.i());
    case onnx::AttributeProto::FLOAT: return number(a.f());
    case onnx::AttributeProto::STRING: {
      const std::string_view s = m.string_bytes(a);
      return s.size() <= 64 ? quoted(std::string(s)) : std::to_string(s.size()) + " bytes";
    }
    case onnx::AttributeProto::INTS: {
      std::string s = "[";
      for (int i = 0; i < a.ints_size(); ++i) s += (i ? "," : "") + std::to_string(a.ints(i));
      return s + "]";
    }
    default: return "a " + onnx::AttributeProto::AttributeType_Name(a.type()) + " value";
  }
}

// The bytes an attribute stands for: a mapped blob's from its mapping.
bool same_attribute(const Model& ma, const onnx::AttributeProto& a, const Model& mb, const onnx::AttributeProto& b) {
  if (a.type() == onnx::AttributeProto::STRING && b.type() == onnx::AttributeProto::STRING)
    return ma.string_bytes(a) == mb.string_bytes(b);
  return a.SerializeAsString() == b.SerializeAsString();
}

void compare_graph(Out& out, const Model& ma, const onnx::GraphProto& a, const Model& mb, const onnx::GraphProto& b,
                   const std::string& where);

void compare_node(Out& out, const Model& ma, const onnx::NodeProto& a, const Model& mb, const onnx::NodeProto& b,
                  const std::string& label) {
  auto op = [](const onnx::NodeProto& n) { return (n.domain().empty() ? "" : n.domain() + ":") + n.op_type(); };
  auto list = [](const auto& names) {
    std::string s = "(";
    for (int i = 0; i < names.size(); ++i) s += (i ? ", " : "") + names.Get(i);
    return s + ")";
  };
  if (op(a) != op(b)) out.push_back({"node", label, op(a) + " vs " + op(b)});
  if (list(a.input()) != list(b.input())) out.push_back({"node", label, "inputs " + list(a.input()) + " vs " + list(b.input())});
  if (list(a.output()) != list(b.output()))
    out.push_back({"node", label, "outputs " + list(a.output()) + " vs " + list(b.output())});
  std::map<std::string, const onnx::AttributeProto*> aa, ab;
  for (const auto& x : a.attribute()) aa[x.name()] = &x;
  for (const auto& x : b.attribute()) ab[x.name()] = &x;
  const std::string prefix = label + ".";
  for (const auto& [name, x] : aa) {
    auto it = ab.find(name);
    if (it == ab.end()) {
      out.push_back({"attribute", prefix + name, "only in A (" + describe_attribute(ma, *x) + ")"});
      continue;
    }
    const onnx::AttributeProto& y = *it->second;
    if (x->type() == onnx::AttributeProto::GRAPH && y.type() == onnx::AttributeProto::GRAPH) {
      compare_graph(out, ma, x->g(), mb, y.g(), prefix + name + "/");
      continue;
    }
    if (!same_attribute(ma, *x, mb, y))
      out.push_back({"attribute", prefix + name, describe_attribute(ma, *x) + " vs " + describe_attribute(mb, y)});
  }
  for (const auto& [name, y] : ab)
    if (!aa.count(name)) out.push_back({"attribute", prefix + name, "only in B (" + describe_attribute(mb, *y) + ")"});
}

void compare_graph(Out& out, const Model& ma, const onnx::GraphProto& a, const Model& mb, const onnx::GraphProto& b,
                   const std::string& where) {
  compare_values(out, "input", where, a.input(), b.input());
  compare_values(out, "output", where, a.output(), b.output());

  // Nodes by name when every node has a unique one in both, else by position.
  auto names = [](const onnx::GraphProto& g) {
    std::map<std::string, int> o;
    for (int i = 0; i < g.node_size(); ++i)
      if (g.node(i).name().empty() || !o.emplace(g.node(i).name(), i).second) return std::map<std::string, int>{};
    return o;
  };
  const auto na = names(a), nb = names(b);
  if (!na.empty() && !nb.empty()) {
    for (const auto& [name, i] : na) {
      auto it = nb.find(name);
      const std::string label = where + quoted(name);
      if (it == nb.end()) out.push_back({"node", label, "only in A (" + a.node(i).op_type() + ")"});
      else compare_node(out, ma, a.node(i), mb, b.node(it->second), label);
    }
    for (const auto& [name, i] : nb)
      if (!na.count(name)) out.push_back({"node", where + quoted(name), "only in B (" + b.node(i).op_type() + ")"});
  } else {
    const int common = std::min(a.node_size(), b.node_size());
    for (int i = 0; i < common; ++i)
      compare_node(out, ma, a.node(i), mb, b.node(i), where + "#" + std::to_string(i));
    if (a.node_size() != b.node_size())
      out.push_back({"node", where + "(count)", std::to_string(a.node_size()) + " vs " + std::to_string(b.node_size())});
  }

  std::map<std::string, const onnx::TensorProto*> ia, ib;
  for (const auto& t : a.initializer()) ia[t.name()] = &t;
  for (const auto& t : b.initializer()) ib[t.name()] = &t;
  for (const auto& [name, t] : ia) {
    auto it = ib.find(name);
    if (it == ib.end()) out.push_back({"initializer", where + name, "only in A"});
    else compare_tensor(out, where + name, ma, *t, mb, *it->second);
  }
  for (const auto& [name, t] : ib)
    if (!ia.count(name)) out.push_back({"initializer", where + name, "only in B"});
}

// EPContext blobs in files beside the models: their bytes.
void compare_blobs(Out& out, const Model& a, const Model& b) {
  std::map<std::string, EpContextNode> ea, eb;
  for (auto& n : find_ep_contexts(a.proto, a.dir())) ea[n.node_name] = n;
  for (auto& n : find_ep_contexts(b.proto, b.dir())) eb[n.node_name] = n;
  for (const auto& [name, x] : ea) {
    auto it = eb.find(name);
    if (it == eb.end() || x.blob_file.empty() || it->second.blob_file.empty()) continue;  // (nodes and attributes say)
    const auto fa = MappedFile::open(a.dir() / from_utf8(x.blob_file)), fb = MappedFile::open(b.dir() / from_utf8(it->second.blob_file));
    const std::string_view va = fa->view(), vb = fb->view();
    if (va == vb) continue;
    const auto first = std::mismatch(va.begin(), va.end(), vb.begin(), vb.end()).first - va.begin();
    out.push_back({"blob", x.blob_file + " (" + quoted(name) + ")",
                   std::to_string(va.size()) + " vs " + std::to_string(vb.size()) + " bytes, first difference at byte " +
                       std::to_string(first)});
  }
}

}  // namespace

std::vector<Difference> diff_models(const Model& a, const Model& b) {
  Out out;
  compare_metadata(out, a.proto, b.proto);
  compare_graph(out, a, a.proto.graph(), b, b.proto.graph(), "");
  compare_blobs(out, a, b);
  if (out.empty() && a.mapped_strings.empty() && b.mapped_strings.empty() &&
      a.proto.SerializeAsString() != b.proto.SerializeAsString())
    out.push_back({"serialization", "model", "the protobufs differ in a field not compared above (value_info, doc strings, "
                                             "field order)"});
  return out;
}

std::string format_differences(const std::vector<Difference>& d) {
  std::string s;
  for (const auto& x : d) s += x.kind + " " + x.name + ": " + x.detail + "\n";
  return s;
}

nlohmann::json differences_json(const std::vector<Difference>& d) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& x : d) arr.push_back({{"kind", x.kind}, {"name", x.name}, {"detail", x.detail}});
  return arr;
}

}  // namespace winml::model
