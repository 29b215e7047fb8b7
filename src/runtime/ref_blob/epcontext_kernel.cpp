#include "runtime/ref_blob/epcontext_kernel.h"

#include <cstdlib>
#include <mutex>

#include "base/error.h"
#include "base/mapped_file.h"
#include "model/epcontext.h"
#include "model/model.h"
#include "model/path_safety.h"
#include "runtime/errors.h"
#include "runtime/executor.h"
#include "runtime/ref_blob/ref_blob.h"

namespace winml::runtime::ref_blob {

namespace {

class RefEpContext : public Kernel {
 public:
  explicit RefEpContext(const NodeContext& n) {
    std::string source = n.attr_string("source", "");
    if (source != kSource)
      n.unsupported("the EPContext blob was compiled for " +
                    (source.empty() ? std::string("an unnamed source") : source) +
                    "; this runtime executes only its own `ref` blobs (source " + kSource + ")");
    if (n.attr_int("main_context", 1) != 1)
      n.unsupported("main_context = 0 (a node sharing another node's context) is not used by `ref` blobs");
    // ONNX Runtime reads a missing embed_mode as 1.
    std::int64_t embed_mode = n.attr_int("embed_mode", 1);
    const onnx::AttributeProto* context = n.attr("ep_cache_context");
    if (!context || context->s().empty()) n.fail("EPContext node has no ep_cache_context");
    std::string_view blob;
    std::shared_ptr<const void> keepalive;
    std::string what;
    const model::Model* m = n.model();
    std::string model_path = m && !m->path.empty() ? m->path.string() : std::string("<model>");
    if (embed_mode == 1) {
      // The bytes belong to the model, which outlives the session.
      blob = context->s();
      what = model_path + ": EPContext node '" + n.node().name() + "'";
    } else if (embed_mode == 0) {
      if (!m || m->path.empty()) n.fail("an external EPContext blob needs the model's file location");
      auto path = model::resolve_inside(m->dir(), context->s(), "EPContext ep_cache_context", m->path);
      auto file = MappedFile::open(path);
      blob = file->view();
      keepalive = file;
      what = path.string();
    } else {
      n.fail("embed_mode must be 0 or 1, got " + std::to_string(embed_mode));
    }
    BlobSummary summary;
    plan_ = load_plan(blob, std::move(keepalive), what, &summary);
    // A node paired with another partition's blob (a swapped sidecar) would
    // compute nonsense: refuse it.
    std::string partition = n.attr_string("partition_name", "");
    if (!partition.empty() && summary.partition_name != partition)
      throw InputError(what + ": holds partition '" + summary.partition_name + "', but node '" + n.node().name() +
                       "' expects partition '" + partition + "'");
    if (n.input_count() != static_cast<int>(plan_->inputs.size()) ||
        n.output_count() != static_cast<int>(plan_->outputs.size()))
      throw InputError(what + ": the blob's plan takes " + std::to_string(plan_->inputs.size()) + " inputs and gives " +
                       std::to_string(plan_->outputs.size()) + " outputs, but node '" + n.node().name() + "' has " +
                       std::to_string(n.input_count()) + " and " + std::to_string(n.output_count()));
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
    void* p = std::aligned_alloc(64, static_cast<std::size_t>((plan_->arena_bytes + 63) / 64 * 64));
    if (!p) throw std::bad_alloc();
    return std::shared_ptr<void>(p, [](void* q) { std::free(q); });
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
