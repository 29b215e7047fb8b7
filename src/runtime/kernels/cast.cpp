// Cast and CastLike (see runtime/convert.h for the conversion rules).
#include "runtime/convert.h"
#include "runtime/kernels/common.h"
#include "runtime/kernels/register.h"

namespace winml::runtime::kernels {

namespace {

class Cast : public Kernel {
 public:
  explicit Cast(const NodeContext& n) : to_(static_cast<DataType>(n.required_int("to"))) {
    if (to_ == onnx::TensorProto::STRING) n.unsupported("Cast to string is not supported");
  }
  void run(KernelContext& ctx) const override { ctx.set_output(0, convert(ctx.input(0), to_)); }

 private:
  DataType to_;
};

class CastLike : public Kernel {
 public:
  explicit CastLike(const NodeContext&) {}
  void run(KernelContext& ctx) const override { ctx.set_output(0, convert(ctx.input(0), ctx.input(1).dtype())); }
};

}  // namespace

void register_cast(KernelRegistry& r) {
  add(r, "Cast", 6, kMaxOnnxOpset, make<Cast>());
  add(r, "CastLike", 15, kMaxOnnxOpset, make<CastLike>());
}

}  // namespace winml::runtime::kernels
