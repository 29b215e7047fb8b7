// eliminate_duplicate_initializers: initializers of one graph with the same
// element type, dims and bytes are merged into the first; readers (also in
// subgraphs) are rewired. Graph inputs and outputs keep their own tensors.
//
// Only tensors that share type and dims are compared, first by a digest of
// their first and last 4 KiB (so large weights, often memory-mapped, are not
// read in full every round), then byte for byte before anything is merged.
#include <map>

#include "model/tensor_data.h"
#include "passes/registry.h"
#include "store/digest.h"

namespace winml::passes {

namespace {

class EliminateDuplicateInitializers : public Pass {
 public:
  int run_graph(GraphView& v, PassContext& ctx) override {
    std::map<std::pair<std::int32_t, std::vector<std::int64_t>>, std::vector<const onnx::TensorProto*>> by_shape;
    for (const auto& t : v.graph().initializer()) {
      if (v.is_graph_input(t.name()) || v.is_graph_output(t.name())) continue;
      by_shape[{t.data_type(), std::vector<std::int64_t>(t.dims().begin(), t.dims().end())}].push_back(&t);
    }
    std::vector<std::pair<std::string, std::string>> merges;  // duplicate -> kept
    for (const auto& [shape, tensors] : by_shape) {
      if (tensors.size() < 2) continue;
      std::map<store::Digest, std::vector<const onnx::TensorProto*>> by_digest;
      for (const auto* t : tensors) {
        auto bytes = ctx.model.tensor_bytes(*t);
        auto& group = by_digest[fingerprint(bytes)];
        const onnx::TensorProto* same = nullptr;
        for (const auto* other : group) {
          auto ob = ctx.model.tensor_bytes(*other);
          if (ob.bytes.size() == bytes.bytes.size() &&
              std::equal(ob.bytes.begin(), ob.bytes.end(), bytes.bytes.begin())) {
            same = other;
            break;
          }
        }
        if (same) merges.emplace_back(t->name(), same->name());
        else group.push_back(t);
      }
    }
    for (const auto& [dup, kept] : merges) {
      v.replace_uses(dup, kept);
      v.remove_initializer(dup);
    }
    return static_cast<int>(merges.size());
  }

 private:
  static store::Digest fingerprint(const model::TensorBytes& b) {
    constexpr std::size_t kEdge = 4096;
    const std::size_t n = b.bytes.size();
    store::Hasher h;
    h.update_field(std::to_string(n));
    h.update(b.bytes.data(), std::min(n, kEdge));
    if (n > kEdge) h.update(b.bytes.data() + n - std::min(n - kEdge, kEdge), std::min(n - kEdge, kEdge));
    return h.finish();
  }
};

}  // namespace

WINML_PASS(eliminate_duplicate_initializers, 530, EliminateDuplicateInitializers);

}  // namespace winml::passes
