// Small real models for quantizer tests, built with GraphBuilder, and helpers
// to look inside quantized graphs.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "config/config.h"
#include "model/model.h"
#include "quant/quantize.h"

namespace winml::test {

// x[1,3,16,16] -> conv1 -> relu1 -> pool -> conv2 -> add(pool) -> relu2 ->
// GlobalAveragePool -> flatten -> gemm(transB=1) -> y[1,10]
onnx::ModelProto small_cnn(std::int64_t opset = 17);

// x[1,4,8] -> MatMul(W[8,16]) -> Add(b) -> q; q x q^T -> Softmax -> MatMul(q) -> y[1,4,16]
onnx::ModelProto small_attention(std::int64_t opset = 17);

// x[1,4,6,6] -> ConvTranspose(W[4,6,3,3], b[6]) -> y
onnx::ModelProto small_deconv(std::int64_t opset = 17);

model::Model in_memory(const onnx::ModelProto& p);

// A QuantizeConfig with resolved defaults, few generated samples.
config::QuantizeConfig quant_config(const std::string& weight_type = "int8",
                                    const std::string& activation_type = "uint8", bool per_channel = true);

// Quantizes with onnxruntime-node as the runner.
quant::QuantizeResult quantize_with_ort(const model::Model& m, const config::QuantizeConfig& c, bool accuracy = true);

const onnx::NodeProto* producer(const onnx::GraphProto& g, const std::string& value);
std::vector<const onnx::NodeProto*> consumers(const onnx::GraphProto& g, const std::string& value);
const onnx::NodeProto* node_named(const onnx::GraphProto& g, const std::string& name);
const onnx::TensorProto* initializer(const onnx::GraphProto& g, const std::string& name);
std::size_t count_ops(const onnx::GraphProto& g, const std::string& op);
std::vector<float> floats_of(const onnx::TensorProto& t);
std::vector<std::int64_t> ints_of(const onnx::TensorProto& t);  // any integer element type

}  // namespace winml::test
