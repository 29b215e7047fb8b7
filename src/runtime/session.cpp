#include "runtime/session.h"

#include <cstdlib>
#include <set>

#include "base/error.h"
#include "base/huge_heap.h"
#include "model/model.h"
#include "runtime/errors.h"
#include "runtime/thread_pool.h"

namespace winml::runtime {

namespace {

PlanOptions plan_options(const SessionOptions& o) {
  PlanOptions p;
  p.dims = o.dims;
  p.memory_plan = o.memory_plan;
  p.observed = o.observed;
  p.fold_constant_dequantize = o.fold_constant_dequantize;
  p.stream_weights_above = o.stream_weights_above;
  return p;
}

IoInfo io_info(const Plan& plan, int id) {
  const ValueInfo& v = plan.values[static_cast<std::size_t>(id)];
  return {v.name, v.dtype, v.shape ? *v.shape : Shape{}, false};
}

// Fixed dimensions must match; symbolic ones may take any value.
void check_dims(const IoInfo& info, const ValueInfo& v, const Tensor& t, const std::string& source) {
  if (!v.shape) return;
  bool ok = t.rank() == static_cast<int>(v.shape->size());
  for (std::size_t d = 0; ok && d < v.shape->size(); ++d) {
    bool symbolic = d < v.dim_params.size() && !v.dim_params[d].empty();
    if (!symbolic && t.shape()[d] != (*v.shape)[d]) ok = false;
  }
  if (ok) return;
  std::string want = "[";
  for (std::size_t d = 0; d < v.shape->size(); ++d) {
    bool symbolic = d < v.dim_params.size() && !v.dim_params[d].empty();
    want += (d ? "," : "") + (symbolic ? v.dim_params[d] : std::to_string((*v.shape)[d]));
  }
  throw InputError(
      file_error(source, "input '" + info.name + "' must have shape " + want + "], got " + shape_string(t.shape())));
}

}  // namespace

Session::Session(const model::Model& model, SessionOptions options)
    : Session(build_plan(model, plan_options(options)), options) {}

Session::Session(std::shared_ptr<const Plan> plan, SessionOptions options)
    : plan_(std::move(plan)), options_(std::move(options)), pool_(std::make_unique<ThreadPool>(options_.threads)) {
  std::set<int> defaults;
  for (const auto& [id, t] : plan_->constants) defaults.insert(id);
  for (int id : plan_->inputs) {
    inputs_.push_back(io_info(*plan_, id));
    inputs_.back().has_default = defaults.count(id) > 0;
  }
  for (int id : plan_->outputs) outputs_.push_back(io_info(*plan_, id));
}

Session::~Session() = default;

int Session::threads() const { return pool_->threads(); }

std::shared_ptr<void> Session::take_arena() const {
  if (plan_->arena_bytes == 0) return nullptr;
  {
    std::lock_guard lock(arena_mutex_);
    if (!arenas_.empty()) {
      auto a = std::move(arenas_.back());
      arenas_.pop_back();
      return a;
    }
  }
  void* p = allocate_on_huge_pages(static_cast<std::size_t>(plan_->arena_bytes));
  return std::shared_ptr<void>(p, [](void* q) { free_on_huge_pages(q); });
}

void Session::return_arena(std::shared_ptr<void> arena) const {
  if (!arena) return;
  std::lock_guard lock(arena_mutex_);
  arenas_.push_back(std::move(arena));
}

std::map<std::string, Tensor> Session::run(const std::map<std::string, Tensor>& feeds, const Observer& observer,
                                           RunProfile* profile) const {
  const std::string& source = plan_->source;
  std::vector<Tensor> inputs(inputs_.size());
  std::set<std::string> used;
  for (std::size_t i = 0; i < inputs_.size(); ++i) {
    const IoInfo& info = inputs_[i];
    auto it = feeds.find(info.name);
    if (it == feeds.end()) {
      if (!info.has_default) throw InputError(file_error(source, "input '" + info.name + "' was not given"));
      continue;
    }
    used.insert(info.name);
    const Tensor& t = it->second;
    if (info.dtype && t.dtype() != info.dtype)
      throw InputError(file_error(
          source, "input '" + info.name + "' must be " + dtype_name(info.dtype) + ", got " + dtype_name(t.dtype())));
    check_dims(info, plan_->values[static_cast<std::size_t>(plan_->inputs[i])], t, source);
    inputs[i] = t;
  }
  for (const auto& [name, t] : feeds)
    if (!used.count(name)) throw InputError(file_error(source, "the model has no input '" + name + "'"));

  auto arena = take_arena();
  std::vector<Tensor> outputs;
  with_error_prefix(source + ": ", [&] {
    outputs = execute(*plan_, std::move(inputs), {}, *pool_, observer ? &observer : nullptr,
                      static_cast<std::byte*>(arena.get()), profile);
  });
  return_arena(std::move(arena));

  std::map<std::string, Tensor> result;
  for (std::size_t i = 0; i < outputs_.size(); ++i) result[outputs_[i].name] = std::move(outputs[i]);
  return result;
}

}  // namespace winml::runtime
