#include "runtime/ref_blob/plan_loader.h"

#include <google/protobuf/arena.h>

#include <cstring>
#include <exception>
#include <map>
#include <tuple>

#include "base/error.h"
#include "base/memory_pages.h"
#include "model/model_io.h"
#include "runtime/errors.h"
#include "runtime/executor.h"
#include "runtime/gemm.h"
#include "runtime/kernel_registry.h"

namespace winml::runtime::ref_blob {

namespace {

std::shared_ptr<Plan> plan_tables(Meta& m, const std::string& what) {
  auto plan = std::make_shared<Plan>();
  plan->source = what;
  plan->opsets = std::move(m.opsets);
  plan->values = std::move(m.values);
  plan->inputs = std::move(m.inputs);
  plan->outputs = std::move(m.outputs);
  plan->buffers = std::move(m.buffers);
  plan->arena_bytes = m.arena_bytes;
  plan->reindex();
  return plan;
}

// Weights are used where they lie; only a misaligned one (possible inside
// an embedded blob) is copied, since kernels read through typed pointers.
// Returns each value's constant (nullptr for a value that is none).
std::vector<const Tensor*> place_constants(Plan& plan, std::vector<MetaConstant>& constants, const char* data,
                                           const std::shared_ptr<const void>& keepalive) {
  plan.constants.reserve(constants.size());
  for (auto& c : constants) {
    const char* at = data + c.offset;
    Tensor t;
    if (reinterpret_cast<std::uintptr_t>(at) % std::max<std::size_t>(dtype_size(c.dtype), 1) != 0) {
      t = Tensor::allocate(c.dtype, c.shape);
      if (c.bytes) std::memcpy(t.mutable_raw(), at, c.bytes);
    } else {
      t = Tensor::view(c.dtype, std::move(c.shape), at, keepalive);
    }
    plan.constants.emplace_back(c.value, std::move(t));
  }
  std::vector<const Tensor*> constant_of(plan.values.size(), nullptr);
  for (const auto& [id, t] : plan.constants) constant_of[static_cast<std::size_t>(id)] = &t;
  return constant_of;
}

// Packed weights in the panel layout are handed to the kernels as they ask
// for them (views of the blob, like the constants); others are repacked.
PackTrace stored_packs(const std::vector<MetaPacked>& packed, const char* data,
                       const std::shared_ptr<const void>& keepalive) {
  PackTrace replay;
  replay.mode = PackTrace::Mode::kReplay;
  for (const auto& mp : packed) {
    auto p = std::make_shared<PackedWeights>();
    p->side = mp.left ? PackedWeights::Side::kLeft : PackedWeights::Side::kRight;
    p->k = mp.k;
    p->extent = mp.extent;
    p->kc = mp.kc;
    p->isa = mp.isa == kPanelLayout ? kPanelLayout : "";  // another layout never matches
    const char* at = data + mp.offset;
    if (reinterpret_cast<std::uintptr_t>(at) % 64 == 0) {
      p->data = std::shared_ptr<float>(keepalive, reinterpret_cast<float*>(const_cast<char*>(at)));
    } else {
      // Inside an embedded blob: the kernels expect 64-byte aligned panels.
      float* copy = static_cast<float*>(aligned_allocate((mp.bytes + 63) / 64 * 64 + 64, 64));
      if (!copy) throw std::bad_alloc();
      std::memcpy(copy, at, mp.bytes);
      p->data = std::shared_ptr<float>(copy, [](float* q) { aligned_free(q); });
    }
    replay.packed.push_back(std::move(p));
  }
  return replay;
}

// Makes the steps, one per stored node, each with its kernel.
class StepMaker {
 public:
  StepMaker(Plan& plan, std::vector<const Tensor*> constant_of, const std::map<std::string, std::int64_t>& dims,
            const std::string& what)
      : plan_(plan), constant_of_(std::move(constant_of)), what_(what), sub_options_{dims, /*memory_plan=*/false} {}

  // An arena makes the nodes' thousands of small allocations (and frees)
  // one. Top-level nodes are only read while kernels are created, but the
  // plans of If/Loop/Scan bodies hold views of their initializers and
  // Constant values: with a subgraph, the arena lives as long as the plan.
  void make_all(const std::string& serialized_nodes, std::vector<MetaStep>& steps) {
    auto arena = std::make_shared<google::protobuf::Arena>();
    auto& nodes = *google::protobuf::Arena::CreateMessage<onnx::GraphProto>(arena.get());
    if (!nodes.ParseFromString(serialized_nodes) || nodes.node_size() != static_cast<int>(steps.size()))
      throw InputError(what_ + ": ref blob nodes do not match its steps");
    subgraphs_ = [this, arena](const onnx::GraphProto& g) {
      plan_.keepalive = arena;
      return build_graph_plan(g, plan_.opsets, nullptr, what_, sub_options_);
    };
    plan_.steps.reserve(steps.size());
    for (std::size_t i = 0; i < steps.size(); ++i)
      plan_.steps.push_back(make(nodes.node(static_cast<int>(i)), static_cast<int>(i), steps[i]));
  }

 private:
  Step make(const onnx::NodeProto& n, int index, MetaStep& ms) {
    Step s;
    s.op_type = n.op_type();
    s.domain = canonical_domain(n.domain());
    s.node_name = n.name();
    s.node = index;
    if (ms.explicit_inputs != n.input_size() || static_cast<int>(ms.outputs.size()) != n.output_size())
      throw InputError(what_ + ": ref blob step " + s.describe() + " does not match its node");
    const KernelEntry& entry = entry_for(s, ms.opset);
    std::vector<const Tensor*> constants;
    for (int k = 0; k < ms.explicit_inputs; ++k) {
      const int id = ms.inputs[static_cast<std::size_t>(k)];
      constants.push_back(id >= 0 ? constant_of_[static_cast<std::size_t>(id)] : nullptr);
    }
    try {
      NodeContext ctx(n, ms.opset, plan_.opsets, constants, subgraphs_);
      s.kernel = entry.factory(ctx);
    } catch (...) {
      // The message prefix is built only on failure (this loop is hot).
      auto error = std::current_exception();
      with_error_prefix(what_ + ": " + s.describe() + ": ", [&] { std::rethrow_exception(error); });
    }
    s.widen_half = entry.traits.widen_half;
    s.output_aliases_input = entry.traits.alias_input0;
    s.may_write_over_input0 = entry.traits.may_write_over_input0;
    s.explicit_inputs = ms.explicit_inputs;
    s.inputs = std::move(ms.inputs);
    s.outputs = std::move(ms.outputs);
    // The stored memory plan placed output 0 over input 0 where they share a buffer.
    s.writes_over_input0 = s.may_write_over_input0 && !s.inputs.empty() && !s.outputs.empty() && s.inputs[0] >= 0 &&
                           s.outputs[0] >= 0 && buffer_of(s.inputs[0]) >= 0 &&
                           buffer_of(s.inputs[0]) == buffer_of(s.outputs[0]);
    s.release = std::move(ms.release);
    s.implicit_names = std::move(ms.implicit_names);
    return s;
  }

  // Few distinct ops, many nodes: each is looked up once.
  const KernelEntry& entry_for(const Step& s, std::int64_t opset) {
    auto& entry = entries_[std::make_tuple(s.domain, s.op_type, opset)];
    if (!entry) entry = KernelRegistry::global().find(s.domain, s.op_type, opset);
    if (!entry)
      throw UnsupportedError(what_ + ": " + s.describe() + ": op " + (s.domain.empty() ? "" : s.domain + ":") +
                             s.op_type + " at opset " + std::to_string(opset) +
                             " is not supported by this runtime; recompile the model with this winml-make");
    return *entry;
  }

  int buffer_of(int value) const { return plan_.values[static_cast<std::size_t>(value)].buffer; }

  Plan& plan_;
  const std::vector<const Tensor*> constant_of_;
  const std::string& what_;
  const PlanOptions sub_options_;
  NodeContext::SubgraphBuilder subgraphs_;
  std::map<std::tuple<std::string, std::string, std::int64_t>, std::shared_ptr<const KernelEntry>> entries_;
};

}  // namespace

std::shared_ptr<const Plan> plan_from_meta(Meta& m, const char* data, const std::shared_ptr<const void>& keepalive,
                                           const std::string& what) {
  std::shared_ptr<Plan> plan = plan_tables(m, what);
  std::vector<const Tensor*> constant_of = place_constants(*plan, m.constants, data, keepalive);
  PackTrace replay = stored_packs(m.packed, data, keepalive);
  {
    ScopedPackTrace replaying(&replay);
    StepMaker(*plan, std::move(constant_of), m.dims, what).make_all(m.nodes, m.steps);
  }
  // What the kernels now hold, when every stored entry was used as stored.
  if (replay.mode == PackTrace::Mode::kReplay && replay.next == replay.packed.size())
    plan->packed = std::move(replay.packed);
  return plan;
}

}  // namespace winml::runtime::ref_blob
