#include "support/model_builder.h"

#include <cstring>
#include <random>

namespace winml::test {

namespace {
void set_type(onnx::ValueInfoProto* v, const std::string& name, const std::vector<Dim>& shape, int32_t type) {
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(type);
  auto* s = t->mutable_shape();
  for (const auto& d : shape) {
    auto* dim = s->add_dim();
    if (!d.param.empty()) dim->set_dim_param(d.param);
    else if (d.value >= 0) dim->set_dim_value(d.value);  // Dim(""): an unnamed dimension, neither set
  }
}
}  // namespace

GraphBuilder::GraphBuilder(std::string name) { graph_.set_name(std::move(name)); }

GraphBuilder& GraphBuilder::input(const std::string& name, std::vector<Dim> shape, int32_t type) {
  set_type(graph_.add_input(), name, shape, type);
  return *this;
}

GraphBuilder& GraphBuilder::output(const std::string& name, std::vector<Dim> shape, int32_t type) {
  set_type(graph_.add_output(), name, shape, type);
  return *this;
}

GraphBuilder& GraphBuilder::initializer(const std::string& name, std::vector<std::int64_t> dims,
                                        const std::vector<float>& values) {
  auto* t = graph_.add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (auto d : dims) t->add_dims(d);
  t->set_raw_data(values.data(), values.size() * sizeof(float));
  return *this;
}

GraphBuilder& GraphBuilder::initializer_i64(const std::string& name, std::vector<std::int64_t> dims,
                                            const std::vector<std::int64_t>& values) {
  auto* t = graph_.add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  for (auto d : dims) t->add_dims(d);
  t->set_raw_data(values.data(), values.size() * sizeof(std::int64_t));
  return *this;
}

onnx::NodeProto& GraphBuilder::node(const std::string& op, std::vector<std::string> inputs,
                                    std::vector<std::string> outputs, const std::string& name,
                                    const std::string& domain) {
  auto* n = graph_.add_node();
  n->set_op_type(op);
  n->set_name(name.empty() ? op + "_" + std::to_string(graph_.node_size()) : name);
  if (!domain.empty()) n->set_domain(domain);
  for (auto& i : inputs) n->add_input(i);
  for (auto& o : outputs) n->add_output(o);
  return *n;
}

void set_attr(onnx::NodeProto& n, const std::string& name, std::int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

void set_attr(onnx::NodeProto& n, const std::string& name, float v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}

void set_attr(onnx::NodeProto& n, const std::string& name, const std::string& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

void set_attr(onnx::NodeProto& n, const std::string& name, const std::vector<std::int64_t>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (auto x : v) a->add_ints(x);
}

void set_attr(onnx::NodeProto& n, const std::string& name, const onnx::GraphProto& g) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::GRAPH);
  *a->mutable_g() = g;
}

onnx::ModelProto make_model(const onnx::GraphProto& g, std::int64_t opset, std::int64_t ir_version) {
  onnx::ModelProto m;
  m.set_ir_version(ir_version);
  m.set_producer_name("winml-make-tests");
  auto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  *m.mutable_graph() = g;
  return m;
}

std::vector<float> random_floats(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

onnx::ModelProto linear_model(std::int64_t in, std::int64_t out, std::uint32_t seed, std::int64_t opset) {
  GraphBuilder b("linear");
  b.input("x", {"batch", in});
  b.initializer("W", {in, out}, random_floats(static_cast<std::size_t>(in * out), seed));
  b.initializer("b", {out}, random_floats(static_cast<std::size_t>(out), seed + 1));
  b.node("MatMul", {"x", "W"}, {"xw"}, "matmul");
  b.node("Add", {"xw", "b"}, {"xwb"}, "add");
  b.node("Relu", {"xwb"}, {"y"}, "relu");
  b.output("y", {"batch", out});
  return make_model(b.graph(), opset);
}

onnx::ModelProto epcontext_model(const std::string& source, std::int64_t embed_mode, const std::string& blob) {
  GraphBuilder b("compiled");
  b.input("x", {1, 4});
  auto& n = b.node("EPContext", {"x"}, {"y"}, "ctx_0", "com.microsoft");
  set_attr(n, "main_context", std::int64_t{1});
  set_attr(n, "embed_mode", embed_mode);
  set_attr(n, "ep_cache_context", blob);
  set_attr(n, "source", source);
  set_attr(n, "partition_name", std::string("partition_0"));
  b.output("y", {1, 4});
  onnx::ModelProto m = make_model(b.graph(), 17);
  auto* o = m.add_opset_import();
  o->set_domain("com.microsoft");
  o->set_version(1);
  return m;
}

}  // namespace winml::test
