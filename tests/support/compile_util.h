// Helpers shared by the compile tests: running models in the runtime and
// comparing results.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "model/onnx.h"
#include "model/tensor_file.h"
#include "runtime/tensor.h"

namespace winml::test {

// Loads `path` and runs it in the runtime.
std::map<std::string, runtime::Tensor> run_model(const std::filesystem::path& path,
                                                 const std::map<std::string, runtime::Tensor>& feeds);

// One output of the model at `path`, from the runtime (one thread) and from
// ONNX Runtime on the same inputs; `ort_error` says why ORT ran nothing.
struct RuntimeAndOrt {
  model::TensorFile ours, ort;
  std::string ort_error;
};
RuntimeAndOrt run_in_runtime_and_ort(const std::filesystem::path& path,
                                     const std::map<std::string, model::TensorFile>& inputs, const std::string& output);

// Indices of the float32 elements whose bits differ (-0 and 0 differ); all
// of them when the shapes do.
std::vector<std::size_t> differing_floats(const model::TensorFile& a, const model::TensorFile& b);

// A float32 tensor of seeded values in [-1, 1).
runtime::Tensor random_input(const runtime::Shape& shape, std::uint32_t seed);

// Writes `m` to `path` (protobuf, weights inline).
void write_model(const onnx::ModelProto& m, const std::filesystem::path& path);

// A small model touching several kernels, with weights: x[batch,8] ->
// MatMul -> Add -> Relu -> Softmax -> y[batch,4], plus a second output.
onnx::ModelProto small_model();

// x[1,6] -> Relu -> com.example:<op> (no kernel in the runtime) -> Sigmoid
// -> MatMul(W) -> y: the runtime supports all but one node. Only "Negate"
// ever gets a kernel (register_negate_kernel), so other names stay
// unsupported in every test of the process.
onnx::ModelProto model_with_custom_op(const std::string& op = "Opaque");

// x[1,64] -> MatMul(W1) -> com.example:Opaque (no kernel) -> MatMul(W2) -> y:
// two ref partitions, each with weights enough for a blob of its own.
onnx::ModelProto two_partitions();

// Writes `m` to dir/model.onnx and compiles it for the ref EP with its blobs
// embedded and no validation run; returns dir/compiled.onnx.
std::filesystem::path compile_embedded(const std::filesystem::path& dir, const onnx::ModelProto& m);

// Registers a kernel for com.example:Negate (y = -x) in the runtime.
void register_negate_kernel();

// Flips one byte of a file.
void flip_byte(const std::filesystem::path& path, std::uint64_t offset);

}  // namespace winml::test
