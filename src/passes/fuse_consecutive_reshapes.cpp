// fuse_consecutive_reshapes: a Reshape/Squeeze/Unsqueeze/Flatten reading
// another one reads the first one's input instead, as one Reshape:
// - a Reshape whose target has no 0 (copy) entries depends only on the
//   element count, so it can skip any shape-only node before it;
// - any other member of the chain whose output shape is known (at most one
//   unknown dimension, written -1) becomes a Reshape to that shape.
// The skipped node goes away once nothing else reads it.
#include <set>

#include "model/node_util.h"
#include "model/tensor_values.h"
#include "passes/registry.h"

namespace winml::passes {

namespace {

bool shape_only(const onnx::NodeProto& n) {
  static const std::set<std::string> kOps = {"Reshape", "Squeeze", "Unsqueeze", "Flatten"};
  return model::is_default_domain(n.domain()) && kOps.count(n.op_type()) && n.input_size() >= 1 && n.output_size() == 1;
}

class FuseConsecutiveReshapes : public NodePass {
 public:
  bool rewrite(GraphView& v, int i, PassContext& ctx) override {
    const auto& b = v.node(i);
    if (!shape_only(b)) return false;
    int a = v.producer(b.input(0));
    if (a < 0 || !shape_only(v.node(a))) return false;
    const std::string x = v.node(a).input(0);

    if (model::is_op(b, "Reshape") && b.input_size() == 2) {
      if (const auto* t = v.constant(b.input(1))) {
        auto target = model::read_ints(ctx.model, *t);
        bool allow_zero = model::attr_int(b, "allowzero", 0) != 0;
        bool copies = false;
        for (auto d : target.value_or(std::vector<std::int64_t>{0})) copies = copies || (d == 0 && !allow_zero);
        if (target && !copies) {
          v.set_input(i, 0, x);
          return true;
        }
      }
    }
    // Otherwise the output shape must be known well enough to write it down.
    auto out = v.partial_shape(b.output(0));
    if (!out) return false;
    int unknown = 0;
    for (auto d : *out) {
      if (d == 0) return false;  // a literal 0 would read as "copy" in Reshape
      unknown += d < 0 ? 1 : 0;
    }
    if (unknown > 1) return false;
    std::string shape = v.add_initializer(
        model::make_int64s(v.unique_name(b.output(0) + "_shape"), {static_cast<std::int64_t>(out->size())}, *out));
    auto reshape = model::make_node("Reshape", {x, shape}, {b.output(0)},
                                    v.unique_name(b.name().empty() ? "Reshape" : b.name() + "_reshape"));
    v.remove_node(i);
    v.add_node(std::move(reshape), i);
    return true;
  }
};
}  // namespace

WINML_PASS(fuse_consecutive_reshapes, 410, FuseConsecutiveReshapes);

}  // namespace winml::passes
