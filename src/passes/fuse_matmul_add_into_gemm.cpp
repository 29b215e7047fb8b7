// fuse_matmul_add_into_gemm: MatMul of two 2-D operands followed by Add of a
// constant that broadcasts to the product ([N], [1,N], [M,N], [M,1], scalar)
// becomes Gemm(A, B, C). Higher-rank MatMuls are left alone: turning them into
// Gemm would need Reshapes around it.
#include "model/node_util.h"
#include "passes/patterns.h"
#include "passes/registry.h"

namespace winml::passes {

namespace {
class FuseMatMulAddIntoGemm : public NodePass {
 public:
  bool rewrite(GraphView& v, int i, PassContext& ctx) override {
    if (ctx.opsets.onnx < 7) return false;  // Gemm broadcasts C from opset 7
    auto m = match_matmul_add(v, i);
    if (!m) return false;
    int mm = m->nodes[0] == i ? m->nodes[1] : m->nodes[0];
    const auto& add = v.node(i);
    const auto& matmul = v.node(mm);
    const std::string& c = add.input(0) == matmul.output(0) ? add.input(1) : add.input(0);
    auto gemm = model::make_node("Gemm", {matmul.input(0), matmul.input(1), c}, {add.output(0)},
                                 v.unique_name(matmul.name().empty() ? "Gemm" : matmul.name() + "_gemm"));
    v.remove_node(mm);
    v.remove_node(i);
    v.add_node(std::move(gemm), i);
    return true;
  }
};
}  // namespace

WINML_PASS(fuse_matmul_add_into_gemm, 440, FuseMatMulAddIntoGemm);

}  // namespace winml::passes
