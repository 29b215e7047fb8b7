#include "support/compile_util.h"

#include <algorithm>
#include <cstring>
#include <fstream>

#include "compile/compile.h"
#include "model/model_io.h"
#include "runtime/kernel_registry.h"
#include "runtime/session.h"
#include "support/model_builder.h"
#include "support/ort_oracle.h"

namespace winml::test {

std::map<std::string, runtime::Tensor> run_model(const std::filesystem::path& path,
                                                 const std::map<std::string, runtime::Tensor>& feeds) {
  model::Model m = model::load_model(path);
  runtime::Session s(m);
  auto out = s.run(feeds);
  for (auto& [name, t] : out) t = t.clone();  // independent of the model's lifetime
  return out;
}

RuntimeAndOrt run_in_runtime_and_ort(const std::filesystem::path& path,
                                     const std::map<std::string, model::TensorFile>& inputs, const std::string& output) {
  RuntimeAndOrt r;
  auto ort = run_in_ort(path, inputs);
  if (!ort.ok) {
    r.ort_error = ort.error.empty() ? "ONNX Runtime failed" : ort.error;
    return r;
  }
  r.ort = ort.outputs.at(output);
  const model::Model m = model::load_model(path);
  runtime::Session session(m, runtime::SessionOptions{.threads = 1, .dims = {}});
  std::map<std::string, runtime::Tensor> feeds;
  for (const auto& [name, t] : inputs) feeds.emplace(name, runtime::from_tensor_file(t));
  r.ours = runtime::to_tensor_file(session.run(feeds).at(output));
  return r;
}

std::vector<std::size_t> differing_floats(const model::TensorFile& a, const model::TensorFile& b) {
  const std::size_t n = std::max(a.data.size(), b.data.size()) / sizeof(float);
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < n; ++i)
    if (a.shape != b.shape || a.data.size() != b.data.size() ||
        std::memcmp(a.data.data() + i * sizeof(float), b.data.data() + i * sizeof(float), sizeof(float)) != 0)
      out.push_back(i);
  return out;
}

runtime::Tensor random_input(const runtime::Shape& shape, std::uint32_t seed) {
  auto values = random_floats(static_cast<std::size_t>(runtime::shape_size(shape)), seed);
  return runtime::Tensor::from_vector(onnx::TensorProto::FLOAT, shape, values);
}

void write_model(const onnx::ModelProto& m, const std::filesystem::path& path) {
  std::ofstream(path, std::ios::binary) << model::serialize_deterministic(m);
}

onnx::ModelProto small_model() {
  GraphBuilder b("small");
  b.input("x", {"batch", 8});
  b.initializer("W", {8, 4}, random_floats(32, 3));
  b.initializer("bias", {4}, random_floats(4, 4));
  b.initializer("scale", {1}, {0.5f});
  b.node("MatMul", {"x", "W"}, {"xw"}, "matmul");
  b.node("Add", {"xw", "bias"}, {"xwb"}, "add");
  b.node("Relu", {"xwb"}, {"r"}, "relu");
  b.node("Mul", {"r", "scale"}, {"rs"}, "mul");
  auto& sm = b.node("Softmax", {"rs"}, {"y"}, "softmax");
  set_attr(sm, "axis", std::int64_t{-1});
  b.node("Sigmoid", {"xw"}, {"z"}, "sigmoid");
  b.output("y", {"batch", 4});
  b.output("z", {"batch", 4});
  return make_model(b.graph(), 17);
}

onnx::ModelProto two_partitions() {
  GraphBuilder b("two");
  b.input("x", {1, 64});
  b.initializer("W1", {64, 300}, random_floats(64 * 300, 1));
  b.initializer("W2", {300, 300}, random_floats(300 * 300, 2));
  b.node("MatMul", {"x", "W1"}, {"a"}, "first");
  b.node("Opaque", {"a"}, {"b"}, "custom", "com.example");
  b.node("MatMul", {"b", "W2"}, {"y"}, "second");
  b.output("y", {1, 300});
  onnx::ModelProto m = make_model(b.graph(), 17);
  auto* o = m.add_opset_import();
  o->set_domain("com.example");
  o->set_version(1);
  return m;
}

std::filesystem::path compile_embedded(const std::filesystem::path& dir, const onnx::ModelProto& m) {
  write_model(m, dir / "model.onnx");
  compile::CompileOptions o;
  o.ep = "ref";
  o.embed = true;
  o.validate = false;
  compile::compile_model(dir / "model.onnx", dir / "compiled.onnx", o);
  return dir / "compiled.onnx";
}

onnx::ModelProto model_with_custom_op(const std::string& op) {
  GraphBuilder b("custom");
  b.input("x", {1, 6});
  b.initializer("W", {6, 3}, random_floats(18, 5));
  b.node("Relu", {"x"}, {"a"}, "relu");
  b.node(op, {"a"}, {"n"}, "custom", "com.example");
  b.node("Sigmoid", {"n"}, {"s"}, "sigmoid");
  b.node("Add", {"s", "a"}, {"t"}, "add");  // reads both sides of the custom op
  b.node("MatMul", {"t", "W"}, {"y"}, "matmul");
  b.output("y", {1, 3});
  onnx::ModelProto m = make_model(b.graph(), 17);
  auto* o = m.add_opset_import();
  o->set_domain("com.example");
  o->set_version(1);
  return m;
}

namespace {

class Negate : public runtime::Kernel {
 public:
  void run(runtime::KernelContext& ctx) const override {
    const runtime::Tensor& x = ctx.input(0);
    runtime::Tensor& y = ctx.allocate_output(0, x.dtype(), x.shape());
    for (std::int64_t i = 0; i < x.size(); ++i) y.mutable_data<float>()[i] = -x.data<float>()[i];
  }
};

}  // namespace

void register_negate_kernel() {
  runtime::KernelEntry e;
  e.domain = "com.example";
  e.op = "Negate";
  e.since = 1;
  e.until = 1;
  e.factory = [](const runtime::NodeContext&) -> std::unique_ptr<runtime::Kernel> {
    return std::make_unique<Negate>();
  };
  runtime::KernelRegistry::global().add(std::move(e));
}

void flip_byte(const std::filesystem::path& path, std::uint64_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 0x5a);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(&c, 1);
}

}  // namespace winml::test
