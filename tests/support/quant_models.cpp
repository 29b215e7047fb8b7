#include "support/quant_models.h"

#include <cstring>

#include "model/tensor_file.h"
#include "support/ort_runner.h"
#include "support/model_builder.h"

namespace winml::test {

onnx::ModelProto small_cnn(std::int64_t opset) {
  GraphBuilder b("cnn");
  b.input("x", {1, 3, 16, 16});
  b.initializer("w1", {8, 3, 3, 3}, random_floats(8 * 27, 11));
  b.initializer("b1", {8}, random_floats(8, 12));
  b.initializer("w2", {8, 8, 3, 3}, random_floats(8 * 72, 13));
  b.initializer("b2", {8}, random_floats(8, 14));
  b.initializer("w3", {10, 8}, random_floats(80, 15));
  b.initializer("b3", {10}, random_floats(10, 16));
  auto& c1 = b.node("Conv", {"x", "w1", "b1"}, {"c1"}, "conv1");
  set_attr(c1, "pads", std::vector<std::int64_t>{1, 1, 1, 1});
  b.node("Relu", {"c1"}, {"r1"}, "relu1");
  auto& p = b.node("MaxPool", {"r1"}, {"p1"}, "pool");
  set_attr(p, "kernel_shape", std::vector<std::int64_t>{2, 2});
  set_attr(p, "strides", std::vector<std::int64_t>{2, 2});
  auto& c2 = b.node("Conv", {"p1", "w2", "b2"}, {"c2"}, "conv2");
  set_attr(c2, "pads", std::vector<std::int64_t>{1, 1, 1, 1});
  b.node("Add", {"c2", "p1"}, {"a1"}, "add");
  b.node("Relu", {"a1"}, {"r2"}, "relu2");
  b.node("GlobalAveragePool", {"r2"}, {"g"}, "gap");
  b.node("Flatten", {"g"}, {"f"}, "flatten");
  auto& gemm = b.node("Gemm", {"f", "w3", "b3"}, {"y"}, "gemm");
  set_attr(gemm, "transB", std::int64_t{1});
  b.output("y", {1, 10});
  return make_model(b.graph(), opset);
}

onnx::ModelProto small_attention(std::int64_t opset) {
  GraphBuilder b("attention");
  b.input("x", {1, 4, 8});
  b.initializer("W", {8, 16}, random_floats(128, 21));
  b.initializer("bias", {16}, random_floats(16, 22));
  b.initializer_i64("perm_shape", {3}, {1, 16, 4});
  b.node("MatMul", {"x", "W"}, {"xw"}, "proj");
  b.node("Add", {"xw", "bias"}, {"q"}, "proj_bias");
  auto& t = b.node("Transpose", {"q"}, {"qt"}, "transpose");
  set_attr(t, "perm", std::vector<std::int64_t>{0, 2, 1});
  b.node("MatMul", {"q", "qt"}, {"scores"}, "scores");
  auto& s = b.node("Softmax", {"scores"}, {"probs"}, "softmax");
  set_attr(s, "axis", std::int64_t{-1});
  b.node("MatMul", {"probs", "q"}, {"y"}, "context");
  b.output("y", {1, 4, 16});
  return make_model(b.graph(), opset);
}

onnx::ModelProto small_deconv(std::int64_t opset) {
  GraphBuilder b("deconv");
  b.input("x", {1, 4, 6, 6});
  b.initializer("W", {4, 6, 3, 3}, random_floats(4 * 6 * 9, 31));
  b.initializer("B", {6}, random_floats(6, 32));
  b.node("ConvTranspose", {"x", "W", "B"}, {"y"}, "deconv");
  b.output("y", {1, 6, 8, 8});
  return make_model(b.graph(), opset);
}

model::Model in_memory(const onnx::ModelProto& p) {
  model::Model m;
  m.proto = p;
  m.path = "model.onnx";
  return m;
}

config::QuantizeConfig quant_config(const std::string& weight_type, const std::string& activation_type,
                                    bool per_channel) {
  config::QuantizeConfig c;
  c.weight_type = weight_type;
  c.activation_type = activation_type;
  c.per_channel = per_channel;
  c.weight_symmetric = weight_type == "int8" || weight_type == "int16";
  c.activation_symmetric = false;
  c.samples = 3;
  c.value_range = {-1.0, 1.0};
  c.num_bins = 2048;
  return c;
}

quant::QuantizeResult quantize_with_ort(const model::Model& m, const config::QuantizeConfig& c, bool accuracy) {
  quant::QuantizeContext ctx;
  ctx.accuracy_report = accuracy;
  ctx.runner = ort_runner_factory();
  ctx.model_path = m.path.string();
  return quant::quantize_model(m, c, ctx);
}

const onnx::NodeProto* producer(const onnx::GraphProto& g, const std::string& value) {
  for (const auto& n : g.node())
    for (const auto& o : n.output())
      if (o == value) return &n;
  return nullptr;
}

std::vector<const onnx::NodeProto*> consumers(const onnx::GraphProto& g, const std::string& value) {
  std::vector<const onnx::NodeProto*> r;
  for (const auto& n : g.node())
    for (const auto& i : n.input())
      if (i == value) {
        r.push_back(&n);
        break;
      }
  return r;
}

const onnx::NodeProto* node_named(const onnx::GraphProto& g, const std::string& name) {
  for (const auto& n : g.node())
    if (n.name() == name) return &n;
  return nullptr;
}

const onnx::TensorProto* initializer(const onnx::GraphProto& g, const std::string& name) {
  for (const auto& t : g.initializer())
    if (t.name() == name) return &t;
  return nullptr;
}

std::size_t count_ops(const onnx::GraphProto& g, const std::string& op) {
  std::size_t n = 0;
  for (const auto& node : g.node()) n += node.op_type() == op;
  return n;
}

std::vector<float> floats_of(const onnx::TensorProto& t) {
  model::TensorFile f = model::from_proto(t);
  std::vector<float> v(f.data.size() / 4);
  std::memcpy(v.data(), f.data.data(), f.data.size());
  return v;
}

std::vector<std::int64_t> ints_of(const onnx::TensorProto& t) {
  model::TensorFile f = model::from_proto(t);
  std::vector<std::int64_t> v;
  std::size_t n = static_cast<std::size_t>(f.element_count());
  for (std::size_t i = 0; i < n; ++i) {
    switch (t.data_type()) {
      case onnx::TensorProto::UINT8: v.push_back(static_cast<std::uint8_t>(f.data[i])); break;
      case onnx::TensorProto::INT8: v.push_back(static_cast<std::int8_t>(f.data[i])); break;
      case onnx::TensorProto::UINT16: {
        std::uint16_t x;
        std::memcpy(&x, &f.data[2 * i], 2);
        v.push_back(x);
        break;
      }
      case onnx::TensorProto::INT16: {
        std::int16_t x;
        std::memcpy(&x, &f.data[2 * i], 2);
        v.push_back(x);
        break;
      }
      case onnx::TensorProto::INT32: {
        std::int32_t x;
        std::memcpy(&x, &f.data[4 * i], 4);
        v.push_back(x);
        break;
      }
      default: break;
    }
  }
  return v;
}

}  // namespace winml::test
