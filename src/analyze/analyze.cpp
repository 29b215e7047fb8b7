#include "analyze/analyze.h"

#include <deque>

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <set>

#include "analyze/classify.h"
#include "base/path_text.h"
#include "base/utc_time.h"
#include "ep/ep_table.h"
#include "model/node_util.h"
#include "model/tensor_data.h"
#include "model/walk.h"
#include "passes/pass.h"
#include "passes/patterns.h"

namespace winml::analyze {

using nlohmann::json;

namespace {

// Tensors larger than this are copied without their bytes for shape
// inference: it reads only small constants (shapes, axes, pads).
constexpr std::uint64_t kSkeletonPayload = 64 * 1024;

void light_graph(const onnx::GraphProto& g, onnx::GraphProto& out) {
  out.set_name(g.name());
  *out.mutable_input() = g.input();
  *out.mutable_output() = g.output();
  *out.mutable_value_info() = g.value_info();
  *out.mutable_sparse_initializer() = g.sparse_initializer();
  for (const auto& n : g.node()) {
    auto* c = out.add_node();
    *c = n;
    for (int a = 0; a < n.attribute_size(); ++a) {
      const auto& attr = n.attribute(a);
      if (attr.has_g()) {
        c->mutable_attribute(a)->mutable_g()->Clear();
        light_graph(attr.g(), *c->mutable_attribute(a)->mutable_g());
      }
      for (int k = 0; k < attr.graphs_size(); ++k) {
        c->mutable_attribute(a)->mutable_graphs(k)->Clear();
        light_graph(attr.graphs(k), *c->mutable_attribute(a)->mutable_graphs(k));
      }
    }
  }
  for (const auto& t : g.initializer()) {
    auto* c = out.add_initializer();
    if (!model::is_external(t) && model::payload_size(t) <= kSkeletonPayload) {
      *c = t;
      continue;
    }
    c->set_name(t.name());
    c->set_data_type(t.data_type());
    *c->mutable_dims() = t.dims();
    c->set_data_location(onnx::TensorProto::EXTERNAL);
    auto* e = c->add_external_data();
    e->set_key("location");
    e->set_value("(not loaded for analysis)");
  }
}

// A copy of the model without large weight payloads, with inferred shapes.
onnx::ModelProto typed_skeleton(const model::Model& m) {
  onnx::ModelProto s;
  s.set_ir_version(m.proto.ir_version());
  *s.mutable_opset_import() = m.proto.opset_import();
  *s.mutable_functions() = m.proto.functions();
  light_graph(m.proto.graph(), *s.mutable_graph());
  passes::infer_shapes_lenient(s, passes::opset_facts(m), nullptr);
  return s;
}

std::string op_name(const onnx::NodeProto& n) {
  return model::is_default_domain(n.domain()) ? n.op_type() : n.domain() + ":" + n.op_type();
}

// One classifier per EP table asked for (all by default), each told the
// model's inputs with open dimensions. The classifiers refer to the tables.
class Classifiers {
 public:
  Classifiers(const model::Model& m, const AnalyzeOptions& options) {
    for (const auto& n : options.eps.empty() ? ep::ep_table_names() : options.eps)
      tables_.push_back(ep::load_ep_table(n));
    for (const auto& t : tables_) {
      auto d = options.devices.find(t.name);
      each.emplace_back(t, d != options.devices.end() ? d->second : options.device);
    }
    std::vector<std::string> dynamic_inputs;
    std::set<std::string> inits;
    for (const auto& t : m.proto.graph().initializer()) inits.insert(t.name());
    for (const auto& in : m.proto.graph().input()) {
      if (inits.count(in.name()) || !in.type().has_tensor_type()) continue;
      bool fixed = in.type().tensor_type().has_shape();
      for (const auto& d : in.type().tensor_type().shape().dim()) fixed = fixed && d.has_dim_value();
      if (!fixed) dynamic_inputs.push_back(in.name());
    }
    for (auto& c : each) c.set_dynamic_inputs(dynamic_inputs);
  }
  Classifiers(const Classifiers&) = delete;
  Classifiers& operator=(const Classifiers&) = delete;

  std::vector<EpClassifier> each;

 private:
  std::deque<ep::EpTable> tables_;  // (stable addresses)
};

json pattern_json(const passes::GraphView& view, const passes::Match& match, const std::string& where) {
  json nodes = json::array(), ops = json::array();
  std::set<std::string> op_set;
  for (int i : match.nodes) {
    nodes.push_back(view.node(i).name());
    op_set.insert(view.node(i).op_type());
  }
  for (const auto& o : op_set) ops.push_back(o);
  return {{"kind", match.kind}, {"graph", where}, {"nodes", nodes}, {"ops", ops}, {"output", match.output}};
}

// Walks the main graph and every body, counting operators, classifying
// each node for every EP and collecting the patterns.
class ModelWalk {
 public:
  ModelWalk(const model::Model& m, std::vector<EpClassifier>& classifiers)
      : m_(m), classifiers_(classifiers), skeleton_(typed_skeleton(m)) {
    model::for_each_graph(skeleton_.graph(), [&](const onnx::GraphProto& g, int) { skeleton_graphs_.push_back(&g); });
  }

  void visit(const onnx::GraphProto& g, const passes::GraphView* parent, const std::string& where) {
    auto view = passes::GraphView::read_only(g, m_, parent);
    // Same pre-order as model::for_each_graph, so indices line up.
    if (graph_index_ < skeleton_graphs_.size()) view.add_types(skeleton_graphs_[graph_index_]->value_info());
    ++graph_index_;
    for (int i = 0; i < view.size(); ++i) {
      const auto& n = view.node(i);
      ++total;
      ++counts[op_name(n)];
      std::int64_t opset = m_.opset(model::is_default_domain(n.domain()) ? "" : n.domain());
      for (auto& c : classifiers_) c.add(view, i, opset);
    }
    for (const auto& match : passes::find_patterns(view)) patterns.push_back(pattern_json(view, match, where));
    for (int i = 0; i < view.size(); ++i)
      for (const auto& a : view.node(i).attribute()) {
        std::string sub = where + "/" + view.node(i).name() + "." + a.name();
        if (a.has_g()) visit(a.g(), &view, sub);
        for (int k = 0; k < a.graphs_size(); ++k) visit(a.graphs(k), &view, sub + "[" + std::to_string(k) + "]");
      }
  }

  std::map<std::string, std::int64_t> counts;
  std::int64_t total = 0;
  json patterns = json::array();

 private:
  const model::Model& m_;
  std::vector<EpClassifier>& classifiers_;
  onnx::ModelProto skeleton_;
  std::vector<const onnx::GraphProto*> skeleton_graphs_;
  std::size_t graph_index_ = 0;
};

}  // namespace

json analyze_model(const model::Model& m, const AnalyzeOptions& options) {
  Classifiers classifiers(m, options);
  ModelWalk walk(m, classifiers.each);
  walk.visit(m.proto.graph(), nullptr, m.proto.graph().name().empty() ? "main" : m.proto.graph().name());

  json out;
  if (options.timestamp) out["analysis_timestamp"] = utc_now();
  json opsets = json::object();
  for (const auto& o : m.proto.opset_import()) opsets[o.domain().empty() ? "ai.onnx" : o.domain()] = o.version();
  out["metadata"] = {{"model_path", options.model_path.empty() ? to_utf8(m.path) : options.model_path},
                     {"opset_version", m.opset("")},
                     {"opsets", opsets},
                     {"producer_name", m.proto.producer_name()},
                     {"producer_version", m.proto.producer_version()},
                     {"total_operators", walk.total},
                     {"operator_counts", walk.counts},
                     {"unique_operator_types", walk.counts.size()},
                     {"detected_pattern_count", walk.patterns.size()}};
  out["patterns"] = walk.patterns;
  json results = json::array();
  for (const auto& c : classifiers.each) results.push_back(c.result());
  out["results"] = results;
  return out;
}

std::map<std::string, bool> discover_flags(const json& analysis, const std::string& ep_name) {
  const ep::EpTable table = ep::load_ep_table(ep_name);
  std::int64_t opset = analysis.at("metadata").at("opset_version").get<std::int64_t>();
  std::map<std::string, bool> flags;
  for (const auto& p : analysis.at("patterns")) {
    std::string kind = p.at("kind");
    std::set<std::string> ops;
    for (const auto& o : p.at("ops")) ops.insert(o.get<std::string>());
    if (kind == "identity_dropout_chain") {
      if (ops.count("Identity")) flags["eliminate_identity"] = true;
      if (ops.count("Dropout")) flags["eliminate_dropout"] = true;
    } else if (kind == "conv_bn" && table.runs("", "Conv")) {
      flags["fuse_bn_into_conv"] = true;
    } else if (kind == "conv_add_bias" && table.runs("", "Conv")) {
      flags["fuse_add_bias_into_conv"] = true;
    } else if (kind == "matmul_add" && table.runs("", "Gemm")) {
      flags["fuse_matmul_add_into_gemm"] = true;
    } else if (kind == "consecutive_transposes" && table.runs("", "Transpose")) {
      flags["fuse_consecutive_transposes"] = true;
    } else if (kind == "layer_norm" && opset >= 17 && table.runs("", "LayerNormalization")) {
      flags["fuse_layer_norm"] = true;
    } else if (kind == "gelu_erf" || kind == "gelu_tanh") {
      bool onnx_gelu = opset >= 20 && table.runs("", "Gelu");
      bool contrib = table.runs("com.microsoft", kind == "gelu_erf" ? "Gelu" : "FastGelu");
      if (onnx_gelu || contrib) flags["fuse_gelu"] = true;
    }
  }
  return flags;
}

std::string format_analysis(const json& a) {
  const auto& md = a.at("metadata");
  std::string s = "model: " + md.at("model_path").get<std::string>() + " (opset " +
                  std::to_string(md.at("opset_version").get<std::int64_t>()) + ", " +
                  md.at("producer_name").get<std::string>() + " " + md.at("producer_version").get<std::string>() +
                  ")\n";
  s += "operators: " + std::to_string(md.at("total_operators").get<std::int64_t>()) + " nodes, " +
       std::to_string(md.at("unique_operator_types").get<std::int64_t>()) + " types\n";
  std::map<std::string, int> kinds;
  for (const auto& p : a.at("patterns")) ++kinds[p.at("kind").get<std::string>()];
  s += "patterns: " + std::to_string(md.at("detected_pattern_count").get<std::int64_t>());
  for (const auto& [k, n] : kinds) s += (k == kinds.begin()->first ? " (" : ", ") + std::to_string(n) + " " + k;
  s += kinds.empty() ? "\n" : ")\n";
  for (const auto& r : a.at("results")) {
    const auto& c = r.at("classification");
    s += r.at("ep").get<std::string>() + " (" + r.at("ep_type").get<std::string>() + ", " +
         r.at("device_type").get<std::string>() + "): " + r.at("runtime_support").get<std::string>() + " — " +
         std::to_string(c.at("supported").size()) + " supported, " + std::to_string(c.at("partial").size()) +
         " partial, " + std::to_string(c.at("unsupported").size()) + " unsupported, " +
         std::to_string(c.at("unknown").size()) + " unknown operator types\n";
    std::vector<std::string> unknown;
    for (const auto& u : c.at("unknown")) unknown.push_back(u.get<std::string>().substr(3));  // drop "OP/"
    for (const auto& i : r.at("information")) {
      if (i.at("level") == "info") continue;
      if (i.at("level") == "warning" &&
          std::find(c.at("unknown").begin(), c.at("unknown").end(), i.at("operator")) != c.at("unknown").end())
        continue;  // listed once below
      s += "  " + i.at("level").get<std::string>() + " " +
           (i.at("operator").get<std::string>().empty() ? std::string("model") : i.at("operator").get<std::string>()) +
           (i.at("nodes").get<std::int64_t>() > 0 ? " (" + std::to_string(i.at("nodes").get<std::int64_t>()) + " nodes)"
                                                  : std::string()) +
           ": " + i.at("message").get<std::string>() + "\n";
    }
    if (!unknown.empty()) {
      s += "  not in rules/ep/" + r.at("ep").get<std::string>() + ".toml:";
      for (const auto& u : unknown) s += " " + u;
      s += "\n";
    }
  }
  return s;
}

}  // namespace winml::analyze
