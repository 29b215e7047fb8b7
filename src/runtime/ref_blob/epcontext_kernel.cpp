#include "runtime/ref_blob/epcontext_kernel.h"

#include <cstdlib>
#include <mutex>

#include "base/error.h"
#include "base/memory_pages.h"
#include "model/epcontext.h"
#include "model/model.h"
#include "runtime/executor.h"
#include "runtime/ref_blob/context_node.h"

namespace winml::runtime::ref_blob {

namespace {

class RefEpContext : public Kernel {
 public:
  explicit RefEpContext(const NodeContext& n) {
    ContextNode c;
    c.node_name = n.node().name();
    c.source = n.attr_string("source", "");
    c.main_context = n.attr_int("main_context", 1);
    c.embed_mode = n.attr_int("embed_mode", 1);
    const model::Model* m = n.model();
    // The bytes belong to the model, which outlives the session: in its
    // proto, or where they lie in its mapped file (LoadOptions::map_blobs).
    if (const onnx::AttributeProto* context = n.attr("ep_cache_context"))
      c.cache_context = m ? m->string_bytes(*context) : std::string_view(context->s());
    c.partition_name = n.attr_string("partition_name", "");
    c.inputs = n.input_count();
    c.outputs = n.output_count();
    plan_ = load_context(c, m ? m->path : std::filesystem::path()).plan;
  }

  void run(KernelContext& ctx) const override {
    std::vector<Tensor> inputs;
    inputs.reserve(plan_->inputs.size());
    for (std::size_t i = 0; i < plan_->inputs.size(); ++i) {
      const Tensor& t = ctx.input(static_cast<int>(i));
      const ValueInfo& v = plan_->values[static_cast<std::size_t>(plan_->inputs[i])];
      if (v.dtype && t.dtype() != v.dtype)
        throw InputError("input '" + v.name + "' must be " + dtype_name(v.dtype) + ", got " + dtype_name(t.dtype()));
      inputs.push_back(t);
    }
    auto arena = take_arena();
    std::vector<Tensor> outputs =
        execute(*plan_, std::move(inputs), {}, ctx.pool(), nullptr, static_cast<std::byte*>(arena.get()));
    return_arena(std::move(arena));
    for (std::size_t i = 0; i < outputs.size(); ++i) ctx.set_output(static_cast<int>(i), std::move(outputs[i]));
  }

 private:
  // One arena per concurrent run, reused across runs (as Session does).
  std::shared_ptr<void> take_arena() const {
    if (plan_->arena_bytes == 0) return nullptr;
    {
      std::lock_guard lock(mutex_);
      if (!arenas_.empty()) {
        auto a = std::move(arenas_.back());
        arenas_.pop_back();
        return a;
      }
    }
    void* p = aligned_allocate(static_cast<std::size_t>((plan_->arena_bytes + 63) / 64 * 64), 64);
    if (!p) throw std::bad_alloc();
    return std::shared_ptr<void>(p, [](void* q) { aligned_free(q); });
  }

  void return_arena(std::shared_ptr<void> arena) const {
    if (!arena) return;
    std::lock_guard lock(mutex_);
    arenas_.push_back(std::move(arena));
  }

  std::shared_ptr<const Plan> plan_;
  mutable std::mutex mutex_;
  mutable std::vector<std::shared_ptr<void>> arenas_;
};

}  // namespace

void register_epcontext_kernel(KernelRegistry& r) {
  KernelEntry e;
  e.domain = model::kMicrosoftDomain;
  e.op = model::kEpContextOp;
  e.since = 1;
  e.until = 1;
  e.factory = [](const NodeContext& n) -> std::unique_ptr<Kernel> { return std::make_unique<RefEpContext>(n); };
  r.add(std::move(e));
}

}  // namespace winml::runtime::ref_blob
