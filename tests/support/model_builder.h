// Small real ONNX models built in C++ for unit tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/onnx.h"

namespace winml::test {

// A dimension: a fixed size, or a symbolic name.
struct Dim {
  Dim(std::int64_t v) : value(v) {}  // NOLINT: implicit on purpose
  Dim(const char* p) : param(p) {}   // NOLINT; "" for an unnamed dimension
  std::int64_t value = -1;
  std::string param;
};

class GraphBuilder {
 public:
  explicit GraphBuilder(std::string name = "main");

  GraphBuilder& input(const std::string& name, std::vector<Dim> shape, int32_t type = onnx::TensorProto::FLOAT);
  GraphBuilder& output(const std::string& name, std::vector<Dim> shape, int32_t type = onnx::TensorProto::FLOAT);
  GraphBuilder& initializer(const std::string& name, std::vector<std::int64_t> dims, const std::vector<float>& values);
  GraphBuilder& initializer_i64(const std::string& name, std::vector<std::int64_t> dims,
                                const std::vector<std::int64_t>& values);
  onnx::NodeProto& node(const std::string& op, std::vector<std::string> inputs, std::vector<std::string> outputs,
                        const std::string& name = "", const std::string& domain = "");

  onnx::GraphProto& graph() { return graph_; }

 private:
  onnx::GraphProto graph_;
};

void set_attr(onnx::NodeProto& n, const std::string& name, std::int64_t v);
void set_attr(onnx::NodeProto& n, const std::string& name, float v);
void set_attr(onnx::NodeProto& n, const std::string& name, const std::string& v);
void set_attr(onnx::NodeProto& n, const std::string& name, const std::vector<std::int64_t>& v);
void set_attr(onnx::NodeProto& n, const std::string& name, const onnx::GraphProto& g);

onnx::ModelProto make_model(const onnx::GraphProto& g, std::int64_t opset = 17, std::int64_t ir_version = 8);

// Deterministic pseudo-random floats in [-1, 1).
std::vector<float> random_floats(std::size_t n, std::uint32_t seed);

// y = Relu(x @ W + b), x: [batch, in], W: [in, out]. About 4*in*out bytes of weights.
onnx::ModelProto linear_model(std::int64_t in, std::int64_t out, std::uint32_t seed = 1, std::int64_t opset = 17);

// A model with an EPContext node (embed_mode 0 or 1) for `blob`.
onnx::ModelProto epcontext_model(const std::string& source, std::int64_t embed_mode, const std::string& blob);

}  // namespace winml::test
