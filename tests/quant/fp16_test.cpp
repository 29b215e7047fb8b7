// float16 conversion: the CPU table is checked against ONNX Runtime itself
// (a node ORT cannot run in float16 would make it insert Casts at load), and
// converted models run in ORT close to the float model.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>

#include "base/half.h"
#include "model/model_io.h"
#include "model/validate.h"
#include "quant/fp16_convert.h"
#include "quant/fp16_support.h"
#include "support/quant_models.h"
#include "support/model_builder.h"
#include "support/ort_oracle.h"
#include "support/temp_dir.h"

namespace winml::test {
namespace {

using onnx::TensorProto;

void untyped_output(GraphBuilder& b, const std::string& name, int32_t type) {
  auto* o = b.graph().add_output();
  o->set_name(name);
  o->mutable_type()->mutable_tensor_type()->set_elem_type(type);
}

void int64_init(GraphBuilder& b, const std::string& name, std::vector<std::int64_t> dims, std::vector<std::int64_t> v) {
  b.initializer_i64(name, std::move(dims), v);
}

// A one-node float32 model per fp16-capable operator.
std::map<std::string, std::function<onnx::ModelProto()>> single_op_models() {
  std::map<std::string, std::function<onnx::ModelProto()>> m;
  auto unary = [](const std::string& op, int32_t out_type = TensorProto::FLOAT) {
    return [op, out_type] {
      GraphBuilder b;
      b.input("x", {1, 4, 8, 8});
      b.node(op, {"x"}, {"y"}, "n");
      untyped_output(b, "y", out_type);
      return make_model(b.graph(), 17);
    };
  };
  for (const char* op : {"Identity", "Round", "Sign"}) m[op] = unary(op);
  m["IsNaN"] = unary("IsNaN", TensorProto::BOOL);
  m["Shape"] = unary("Shape", TensorProto::INT64);
  m["Flatten"] = unary("Flatten");
  m["Transpose"] = [] {
    GraphBuilder b;
    b.input("x", {1, 4, 8, 8});
    set_attr(b.node("Transpose", {"x"}, {"y"}, "n"), "perm", std::vector<std::int64_t>{0, 2, 3, 1});
    untyped_output(b, "y", TensorProto::FLOAT);
    return make_model(b.graph(), 17);
  };
  auto binary = [](const std::string& op) {
    return [op] {
      GraphBuilder b;
      b.input("x", {1, 4, 8, 8});
      b.input("z", {1, 4, 8, 8});
      b.node(op, {"x", "z"}, {"y"}, "n");
      untyped_output(b, "y", TensorProto::FLOAT);
      return make_model(b.graph(), 17);
    };
  };
  m["Min"] = binary("Min");
  m["Max"] = binary("Max");
  m["Concat"] = [] {
    GraphBuilder b;
    b.input("x", {1, 4, 8, 8});
    b.input("z", {1, 4, 8, 8});
    set_attr(b.node("Concat", {"x", "z"}, {"y"}, "n"), "axis", std::int64_t{1});
    untyped_output(b, "y", TensorProto::FLOAT);
    return make_model(b.graph(), 17);
  };
  auto with_ints = [](const std::string& op, std::vector<std::pair<std::string, std::vector<std::int64_t>>> ints,
                      std::vector<std::int64_t> x_shape = {1, 4, 8, 8}) {
    return [=] {
      GraphBuilder b;
      std::vector<Dim> xs(x_shape.begin(), x_shape.end());
      b.input("x", xs);
      std::vector<std::string> inputs = {"x"};
      for (const auto& [name, values] : ints) {
        std::vector<std::int64_t> dims = {static_cast<std::int64_t>(values.size())};
        int64_init(b, name, dims, values);
        inputs.push_back(name);
      }
      b.node(op, inputs, {"y"}, "n");
      untyped_output(b, "y", TensorProto::FLOAT);
      return make_model(b.graph(), 17);
    };
  };
  m["Reshape"] = with_ints("Reshape", {{"s", {1, -1}}});
  m["Expand"] = with_ints("Expand", {{"s", {1, 4, 8, 8}}}, {1, 4, 1, 1});
  m["Squeeze"] = with_ints("Squeeze", {{"a", {0}}});
  m["Unsqueeze"] = with_ints("Unsqueeze", {{"a", {0}}});
  m["Slice"] = with_ints("Slice", {{"st", {0}}, {"en", {2}}, {"ax", {1}}});
  m["Gather"] = with_ints("Gather", {{"i", {0, 0}}});
  m["Split"] = [] {
    GraphBuilder b;
    b.input("x", {1, 4, 8, 8});
    b.initializer_i64("s", {2}, {1, 3});
    set_attr(b.node("Split", {"x", "s"}, {"y", "y2"}, "n"), "axis", std::int64_t{1});
    untyped_output(b, "y", TensorProto::FLOAT);
    untyped_output(b, "y2", TensorProto::FLOAT);
    return make_model(b.graph(), 17);
  };
  m["Clip"] = [] {
    GraphBuilder b;
    b.input("x", {1, 4, 8, 8});
    b.initializer("lo", {}, {-0.5f});
    b.initializer("hi", {}, {0.5f});
    b.node("Clip", {"x", "lo", "hi"}, {"y"}, "n");
    untyped_output(b, "y", TensorProto::FLOAT);
    return make_model(b.graph(), 17);
  };
  m["LayerNormalization"] = [] {
    GraphBuilder b;
    b.input("x", {1, 4, 8, 8});
    b.initializer("scale", {8}, random_floats(8, 1));
    b.initializer("bias", {8}, random_floats(8, 2));
    b.node("LayerNormalization", {"x", "scale", "bias"}, {"y"}, "n");
    untyped_output(b, "y", TensorProto::FLOAT);
    return make_model(b.graph(), 17);
  };
  m["GatherElements"] = [] {
    GraphBuilder b;
    b.input("x", {2, 3});
    b.initializer_i64("i", {2, 2}, {0, 1, 2, 0});
    set_attr(b.node("GatherElements", {"x", "i"}, {"y"}, "n"), "axis", std::int64_t{1});
    untyped_output(b, "y", TensorProto::FLOAT);
    return make_model(b.graph(), 17);
  };
  m["GatherND"] = [] {
    GraphBuilder b;
    b.input("x", {2, 3});
    b.initializer_i64("i", {2, 1}, {1, 0});
    b.node("GatherND", {"x", "i"}, {"y"}, "n");
    untyped_output(b, "y", TensorProto::FLOAT);
    return make_model(b.graph(), 17);
  };
  m["ScatterElements"] = [] {
    GraphBuilder b;
    b.input("x", {2, 3});
    b.initializer_i64("i", {1, 2}, {0, 2});
    b.initializer("u", {1, 2}, {5.0f, 6.0f});
    set_attr(b.node("ScatterElements", {"x", "i", "u"}, {"y"}, "n"), "axis", std::int64_t{1});
    untyped_output(b, "y", TensorProto::FLOAT);
    return make_model(b.graph(), 17);
  };
  m["ScatterND"] = [] {
    GraphBuilder b;
    b.input("x", {2, 3});
    b.initializer_i64("i", {1, 1}, {1});
    b.initializer("u", {1, 3}, {5.0f, 6.0f, 7.0f});
    b.node("ScatterND", {"x", "i", "u"}, {"y"}, "n");
    untyped_output(b, "y", TensorProto::FLOAT);
    return make_model(b.graph(), 17);
  };
  m["Compress"] = [] {
    GraphBuilder b;
    b.input("x", {2, 3});
    auto* c = b.graph().add_initializer();
    c->set_name("c");
    c->set_data_type(TensorProto::BOOL);
    c->add_dims(3);
    const char bits[3] = {1, 0, 1};
    c->set_raw_data(bits, 3);
    set_attr(b.node("Compress", {"x", "c"}, {"y"}, "n"), "axis", std::int64_t{1});
    untyped_output(b, "y", TensorProto::FLOAT);
    return make_model(b.graph(), 17);
  };
  m["Cast"] = [] {
    GraphBuilder b;
    b.input("x", {2, 3}, TensorProto::INT32);
    set_attr(b.node("Cast", {"x"}, {"y"}, "n"), "to", std::int64_t{TensorProto::FLOAT});
    untyped_output(b, "y", TensorProto::FLOAT);
    return make_model(b.graph(), 17);
  };
  return m;
}

std::map<std::string, model::TensorFile> inputs_for(const onnx::ModelProto& p) {
  std::map<std::string, model::TensorFile> feeds;
  for (const auto& in : p.graph().input()) {
    std::vector<std::int64_t> shape;
    for (const auto& d : in.type().tensor_type().shape().dim()) shape.push_back(d.dim_value());
    model::TensorFile t = random_tensor(shape, 3);
    if (in.type().tensor_type().elem_type() == TensorProto::FLOAT16) {
      std::vector<std::byte> half(t.data.size() / 2);
      for (std::size_t i = 0; i < half.size() / 2; ++i) {
        float f;
        std::memcpy(&f, t.data.data() + 4 * i, 4);
        std::uint16_t h = winml::float_to_half(f);
        std::memcpy(half.data() + 2 * i, &h, 2);
      }
      t.dtype = TensorProto::FLOAT16;
      t.data = std::move(half);
    } else if (in.type().tensor_type().elem_type() == TensorProto::INT32) {
      t.dtype = TensorProto::INT32;
      for (std::size_t i = 0; i < t.data.size() / 4; ++i) {
        std::int32_t v = static_cast<std::int32_t>(i % 7);
        std::memcpy(t.data.data() + 4 * i, &v, 4);
      }
    }
    feeds[in.name()] = t;
  }
  return feeds;
}

// Casts ORT added at load, on top of those in the model.
int ort_added_casts(const model::Model& m) {
  TempDir d;
  model::Model copy = m;
  model::save_model(copy, d / "m.onnx");
  OrtResult r =
      run_in_ort(d / "m.onnx", inputs_for(m.proto), {.opt_level = "disabled", .optimized_model = d / "o.onnx"});
  EXPECT_TRUE(r.ok) << r.error;
  if (!r.ok) return -1;
  model::Model o = model::load_model(d / "o.onnx", {.validate = false});
  return static_cast<int>(count_ops(o.proto.graph(), "Cast")) - static_cast<int>(count_ops(m.proto.graph(), "Cast"));
}

TEST(Fp16Table, EveryListedOperatorRunsInFp16OnOrtCpu) {
  auto models = single_op_models();
  for (const auto& [op, since] : quant::ort_cpu_fp16_ops()) {
    ASSERT_TRUE(models.count(op)) << "no test model for " << op;
    model::Model m = in_memory(models[op]());
    quant::Fp16Options o;
    o.keep_io_types = false;
    quant::Fp16Result r = quant::convert_to_fp16(m, o);
    EXPECT_EQ(r.casts, 0u) << op;
    EXPECT_EQ(r.fp16_nodes, 1u) << op;
    EXPECT_EQ(ort_added_casts(m), 0) << op << " is listed as float16-capable but ORT casts around it";
  }
}

TEST(Fp16Table, UnlistedComputeOpsWouldBeCastByOrt) {
  // The converse for a few compute ops the table leaves out: ORT really has no float16 CPU kernel.
  for (const std::string op : {"Relu", "Sigmoid", "Softmax"}) {
    GraphBuilder b;
    b.input("x", {1, 4, 8, 8}, TensorProto::FLOAT16);
    b.node(op, {"x"}, {"y"}, "n");
    untyped_output(b, "y", TensorProto::FLOAT16);
    EXPECT_GT(ort_added_casts(in_memory(make_model(b.graph(), 17))), 0) << op;
    EXPECT_FALSE(quant::runs_in_fp16("cpu", op, 17));
  }
}

double max_rel(const model::Model& a, const model::Model& b, const std::map<std::string, model::TensorFile>& feeds) {
  TempDir d;
  model::Model x = a, y = b;
  model::save_model(x, d / "a.onnx");
  model::save_model(y, d / "b.onnx");
  OrtResult ra = run_in_ort(d / "a.onnx", feeds), rb = run_in_ort(d / "b.onnx", feeds);
  EXPECT_TRUE(ra.ok && rb.ok) << ra.error << rb.error;
  double worst = 0;
  for (const auto& [name, t] : ra.outputs) worst = std::max(worst, max_relative_diff(rb.outputs.at(name), t));
  return worst;
}

TEST(Fp16Convert, AttentionKeepsIoTypesAndOrtAddsNoCasts) {
  model::Model f = in_memory(small_attention());
  model::Model m = f;
  quant::Fp16Result r = quant::convert_to_fp16(m, {});
  model::validate_structure(m.proto, "fp16.onnx");
  EXPECT_EQ(r.fp16_nodes, 1u);  // the Transpose
  EXPECT_EQ(r.float_nodes, 5u);
  EXPECT_EQ(r.float_op_types.at("MatMul"), 3u);
  EXPECT_EQ(m.proto.graph().input(0).type().tensor_type().elem_type(), TensorProto::FLOAT);
  EXPECT_EQ(m.proto.graph().output(0).type().tensor_type().elem_type(), TensorProto::FLOAT);
  EXPECT_EQ(ort_added_casts(m), 0);
  EXPECT_LT(max_rel(f, m, {{"x", random_tensor({1, 4, 8}, 2)}}), 0.05);
  // The bias constant feeds only a float32 Add: it stays float32.
  EXPECT_EQ(initializer(m.proto.graph(), "bias")->data_type(), TensorProto::FLOAT);
}

TEST(Fp16Convert, FloatIoAndBlockList) {
  model::Model m = in_memory(small_attention());
  quant::Fp16Options o;
  o.keep_io_types = false;
  o.op_block_list = {"Transpose"};
  quant::Fp16Result r = quant::convert_to_fp16(m, o);
  EXPECT_EQ(r.fp16_nodes, 0u);
  EXPECT_EQ(r.float_op_types.at("Transpose"), 1u);
  EXPECT_EQ(m.proto.graph().input(0).type().tensor_type().elem_type(), TensorProto::FLOAT16);
  EXPECT_EQ(m.proto.graph().output(0).type().tensor_type().elem_type(), TensorProto::FLOAT16);
  EXPECT_EQ(ort_added_casts(m), 0);
}

TEST(Fp16Convert, ConstantsReadByFp16NodesAreConvertedAndClipped) {
  GraphBuilder b;
  b.input("x", {2, 3});
  b.initializer("big", {2, 3}, {1e6f, -1e6f, 1e-9f, -1e-9f, 0.0f, 0.5f});
  b.node("Max", {"x", "big"}, {"y"}, "max");
  b.output("y", {2, 3});
  model::Model m = in_memory(make_model(b.graph(), 17));
  quant::Fp16Result r = quant::convert_to_fp16(m, {});
  EXPECT_EQ(r.converted_constants, 1u);
  const onnx::TensorProto* t = initializer(m.proto.graph(), "big");
  ASSERT_EQ(t->data_type(), TensorProto::FLOAT16);
  std::vector<std::uint16_t> h(6);
  std::memcpy(h.data(), t->raw_data().data(), 12);
  EXPECT_EQ(winml::half_to_float(h[0]), winml::half_to_float(winml::float_to_half(1e4f)));
  EXPECT_EQ(winml::half_to_float(h[1]), -winml::half_to_float(winml::float_to_half(1e4f)));
  EXPECT_GT(winml::half_to_float(h[2]), 0.0f);  // tiny values keep their sign instead of flushing to 0
  EXPECT_LT(winml::half_to_float(h[3]), 0.0f);
  EXPECT_EQ(winml::half_to_float(h[4]), 0.0f);
  EXPECT_EQ(ort_added_casts(m), 0);
}

}  // namespace
}  // namespace winml::test
