#include "model/inspect.h"

#include <map>
#include <set>
#include <sstream>

#include "base/text.h"
#include "model/epcontext.h"
#include "model/tensor_data.h"
#include "model/walk.h"
#include "base/path_text.h"

namespace winml::model {

using nlohmann::json;

json shape_json(const onnx::TypeProto& type) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape()) return nullptr;
  json dims = json::array();
  for (const auto& d : type.tensor_type().shape().dim()) {
    if (d.has_dim_value()) dims.push_back(d.dim_value());
    else if (d.has_dim_param()) dims.push_back(d.dim_param());
    else dims.push_back(nullptr);
  }
  return dims;
}

namespace {
json value_infos(const google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>& vs,
                 const std::set<std::string>& exclude = {}) {
  json out = json::array();
  for (const auto& v : vs) {
    if (exclude.count(v.name())) continue;
    json j;
    j["name"] = v.name();
    j["dtype"] = v.type().has_tensor_type() ? data_type_name(v.type().tensor_type().elem_type()) : "non-tensor";
    j["shape"] = shape_json(v.type());
    out.push_back(j);
  }
  return out;
}
}  // namespace

json inspect_model(const Model& m) {
  const auto& p = m.proto;
  json s;
  s["path"] = to_utf8(m.path);
  s["ir_version"] = p.ir_version();
  json opsets = json::object();
  for (const auto& o : p.opset_import()) opsets[o.domain().empty() ? "ai.onnx" : o.domain()] = o.version();
  s["opsets"] = opsets;
  s["producer_name"] = p.producer_name();
  s["producer_version"] = p.producer_version();

  std::set<std::string> init_names;
  for (const auto& t : p.graph().initializer()) init_names.insert(t.name());
  s["inputs"] = value_infos(p.graph().input(), init_names);  // IR < 4 lists initializers as inputs
  s["outputs"] = value_infos(p.graph().output());

  std::map<std::string, int> op_counts;
  int nodes = 0, subgraphs = -1;
  for_each_graph(p.graph(), [&](const onnx::GraphProto& g, int) {
    ++subgraphs;
    for (const auto& n : g.node()) {
      ++nodes;
      op_counts[(n.domain().empty() || n.domain() == "ai.onnx" ? "" : n.domain() + ":") + n.op_type()]++;
    }
  });
  s["node_count"] = nodes;
  s["subgraph_count"] = subgraphs;
  s["op_counts"] = op_counts;

  std::uint64_t init_count = 0, init_bytes = 0;
  for_each_tensor(p.graph(), [&](const onnx::TensorProto& t, TensorSite site) {
    if (site != TensorSite::kInitializer) return;
    ++init_count;
    init_bytes += payload_size(t);
  });
  s["initializer_count"] = init_count;
  s["initializer_bytes"] = init_bytes;

  json ext = json::array();
  for (const auto& [location, file] : m.external_files)
    ext.push_back({{"location", location}, {"bytes", file->size()}});
  s["external_data"] = ext;

  json ctx = json::array();
  for (const auto& e : find_ep_contexts(p, m.dir())) {
    json j{{"node", e.node_name},
           {"source", e.source},
           {"partition_name", e.partition_name},
           {"main_context", e.main_context},
           {"embed_mode", e.embed_mode},
           {"blob_bytes", e.blob_size}};
    if (e.embed_mode == 0) j["blob_file"] = e.blob_file;
    ctx.push_back(j);
  }
  s["epcontext_nodes"] = ctx;
  s["is_epcontext_model"] = !ctx.empty();
  return s;
}

std::string format_inspection(const json& s) {
  std::ostringstream o;
  o << "model:        " << s["path"].get<std::string>() << "\n";
  o << "ir_version:   " << s["ir_version"] << "\n";
  o << "opsets:      ";
  for (const auto& [d, v] : s["opsets"].items()) o << " " << d << "=" << v;
  o << "\nproducer:     " << s["producer_name"].get<std::string>() << " " << s["producer_version"].get<std::string>()
    << "\n";
  auto io = [&](const char* title, const json& list) {
    o << title << "\n";
    for (const auto& v : list) {
      std::vector<std::string> dims;
      if (v["shape"].is_array())
        for (const auto& d : v["shape"])
          dims.push_back(d.is_null() ? "?" : d.is_string() ? d.get<std::string>() : d.dump());
      o << "  " << v["name"].get<std::string>() << ": " << v["dtype"].get<std::string>() << "["
        << (v["shape"].is_array() ? join(dims, ",") : "?") << "]\n";
    }
  };
  io("inputs:", s["inputs"]);
  io("outputs:", s["outputs"]);
  o << "nodes:        " << s["node_count"] << " (" << s["subgraph_count"] << " subgraphs)\n";
  for (const auto& [op, n] : s["op_counts"].items()) o << "  " << op << ": " << n << "\n";
  o << "initializers: " << s["initializer_count"] << " (" << human_bytes(s["initializer_bytes"].get<std::uint64_t>())
    << ")\n";
  for (const auto& e : s["external_data"])
    o << "external data: " << e["location"].get<std::string>() << " (" << human_bytes(e["bytes"].get<std::uint64_t>())
      << ")\n";
  for (const auto& c : s["epcontext_nodes"]) {
    o << "EPContext:    " << c["node"].get<std::string>() << " source=" << c["source"].get<std::string>()
      << " embed_mode=" << c["embed_mode"] << " blob=";
    if (c.contains("blob_file")) o << c["blob_file"].get<std::string>() << " ";
    o << "(" << human_bytes(c["blob_bytes"].get<std::uint64_t>()) << ")\n";
  }
  return o.str();
}

}  // namespace winml::model
