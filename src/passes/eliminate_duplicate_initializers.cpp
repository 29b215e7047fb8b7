// eliminate_duplicate_initializers: initializers of one graph with the same
// element type, dims and bytes are merged into the first; readers (also in
// subgraphs) are rewired. Graph inputs and outputs keep their own tensors.
#include <map>

#include "passes/all_passes.h"
#include "store/digest.h"

namespace winml::passes {

namespace {
class EliminateDuplicateInitializers : public Pass {
 public:
  int run_graph(GraphView& v, PassContext& ctx) override {
    struct Seen {
      const onnx::TensorProto* tensor;
    };
    std::map<store::Digest, std::vector<const onnx::TensorProto*>> by_digest;
    std::vector<std::pair<std::string, std::string>> merges;  // duplicate -> kept
    for (const auto& t : v.graph().initializer()) {
      if (v.is_graph_input(t.name()) || v.is_graph_output(t.name())) continue;
      auto bytes = ctx.model.tensor_bytes(t);
      store::Hasher h;
      h.update_field(std::to_string(t.data_type()));
      for (auto d : t.dims()) h.update_field(std::to_string(d));
      h.update(bytes.bytes.data(), bytes.bytes.size());
      auto& group = by_digest[h.finish()];
      const onnx::TensorProto* same = nullptr;
      for (const auto* other : group) {
        auto ob = ctx.model.tensor_bytes(*other);
        bool equal_dims = other->data_type() == t.data_type() && other->dims_size() == t.dims_size() &&
                          std::equal(t.dims().begin(), t.dims().end(), other->dims().begin());
        if (equal_dims && ob.bytes.size() == bytes.bytes.size() &&
            std::equal(ob.bytes.begin(), ob.bytes.end(), bytes.bytes.begin())) {
          same = other;
          break;
        }
      }
      if (same) merges.emplace_back(t.name(), same->name());
      else group.push_back(&t);
    }
    for (const auto& [dup, kept] : merges) {
      v.replace_uses(dup, kept);
      v.remove_initializer(dup);
    }
    return static_cast<int>(merges.size());
  }
};
}  // namespace

std::unique_ptr<Pass> make_eliminate_duplicate_initializers() {
  return std::make_unique<EliminateDuplicateInitializers>();
}

}  // namespace winml::passes
