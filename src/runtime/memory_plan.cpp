#include "runtime/memory_plan.h"

#include <algorithm>
#include <numeric>

#include "runtime/convert.h"

namespace winml::runtime {

namespace {

constexpr std::int64_t kAlign = 64;

struct Interval {
  int first = -1;  // producing step
  int last = -1;   // last reading step
  bool overlaps(const Interval& o) const { return first <= o.last && o.first <= last; }
};

int find_root(std::vector<int>& parent, int x) {
  while (parent[static_cast<std::size_t>(x)] != x)
    x = parent[static_cast<std::size_t>(x)] = parent[parent[static_cast<std::size_t>(x)]];
  return x;
}

// Steps whose kernels may write output 0 over input 0 do so when nothing
// reads input 0 afterwards and both have the same static shape and type:
// the output joins the input's group (one buffer, whose life then spans
// both). Not over graph inputs, constants or other values kept out of the
// arena, nor into groups of aliases (a Reshape's output reads the same
// bytes later), nor for outputs kept out. Returns the outputs placed so.
std::vector<bool> write_over_dead_inputs(Plan& plan, std::vector<int>& parent, const std::vector<bool>& excluded,
                                         const std::vector<bool>& aliased) {
  const std::size_t n = plan.values.size();
  std::vector<int> last_read(n, -1);
  std::vector<bool> alias_group(n, false);
  for (std::size_t si = 0; si < plan.steps.size(); ++si)
    for (int id : plan.steps[si].inputs)
      if (id >= 0) last_read[static_cast<std::size_t>(id)] = static_cast<int>(si);
  for (std::size_t id = 0; id < n; ++id)
    if (aliased[id]) alias_group[static_cast<std::size_t>(find_root(parent, static_cast<int>(id)))] = true;
  std::vector<bool> in_place(n, false);
  for (std::size_t si = 0; si < plan.steps.size(); ++si) {
    Step& s = plan.steps[si];
    if (!s.may_write_over_input0 || s.inputs.empty() || s.outputs.empty()) continue;
    const int in = s.inputs[0], out = s.outputs[0];
    if (in < 0 || out < 0 || last_read[static_cast<std::size_t>(in)] != static_cast<int>(si)) continue;
    const ValueInfo &vi = plan.values[static_cast<std::size_t>(in)], &vo = plan.values[static_cast<std::size_t>(out)];
    if (!vi.shape || !vo.shape || *vi.shape != *vo.shape || vi.dtype != vo.dtype || dtype_size(vi.dtype) == 0 ||
        is_half(vi.dtype))
      continue;
    const int root = find_root(parent, in), out_root = find_root(parent, out);
    if (excluded[static_cast<std::size_t>(root)] || excluded[static_cast<std::size_t>(out_root)] ||
        alias_group[static_cast<std::size_t>(root)] || alias_group[static_cast<std::size_t>(out_root)])
      continue;
    parent[static_cast<std::size_t>(out_root)] = root;
    in_place[static_cast<std::size_t>(out)] = true;
    s.writes_over_input0 = true;
  }
  return in_place;
}

// Groups of values that share storage: an output that aliases its input
// (a Reshape's) joins the input's group. Marks those outputs.
std::vector<int> alias_groups(const Plan& plan, std::vector<bool>& aliased_output) {
  std::vector<int> parent(plan.values.size());
  std::iota(parent.begin(), parent.end(), 0);
  for (const Step& s : plan.steps) {
    if (!s.output_aliases_input || s.inputs.empty() || s.outputs.empty()) continue;
    if (s.inputs[0] < 0 || s.outputs[0] < 0) continue;
    parent[static_cast<std::size_t>(find_root(parent, s.outputs[0]))] = find_root(parent, s.inputs[0]);
    aliased_output[static_cast<std::size_t>(s.outputs[0])] = true;
  }
  return parent;
}

// Groups whose storage must outlive a run or is not ours to reuse.
std::vector<bool> excluded_groups(const Plan& plan, std::vector<int>& parent) {
  std::vector<bool> excluded(plan.values.size(), false);
  auto exclude = [&](int id) {
    if (id >= 0) excluded[static_cast<std::size_t>(find_root(parent, id))] = true;
  };
  for (int id : plan.inputs) exclude(id);
  for (int id : plan.outputs) exclude(id);
  for (int id : plan.capture_values) exclude(id);
  for (const auto& [id, t] : plan.constants) exclude(id);
  for (const Step& s : plan.steps)
    if (!s.implicit_names.empty() || s.op_type == "If" || s.op_type == "Loop" || s.op_type == "Scan")
      for (int id : s.inputs) exclude(id);
  return excluded;
}

// Each group's life, from its first producing step to its last reading one;
// and the step producing each value (-1: none).
std::vector<Interval> group_lives(const Plan& plan, std::vector<int>& parent, std::vector<int>& produced_by) {
  std::vector<Interval> group(plan.values.size());
  for (std::size_t si = 0; si < plan.steps.size(); ++si) {
    const int step = static_cast<int>(si);
    for (int id : plan.steps[si].outputs) {
      if (id < 0) continue;
      produced_by[static_cast<std::size_t>(id)] = step;
      Interval& g = group[static_cast<std::size_t>(find_root(parent, id))];
      if (g.first < 0 || step < g.first) g.first = step;
      g.last = std::max(g.last, step);
    }
    for (int id : plan.steps[si].inputs) {
      if (id < 0) continue;
      Interval& g = group[static_cast<std::size_t>(find_root(parent, id))];
      g.last = std::max(g.last, step);
    }
  }
  return group;
}

struct Candidate {
  int id;
  std::int64_t bytes;
  Interval life;
};

// Places each candidate, largest first, at the best offset among the live
// ones (the classic greedy); returns each with its offset.
std::vector<std::pair<Candidate, std::int64_t>> place(Plan& plan, std::vector<Candidate> candidates) {
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.bytes > b.bytes; });
  std::vector<std::pair<Candidate, std::int64_t>> placed;
  for (const Candidate& c : candidates) {
    std::vector<std::pair<std::int64_t, std::int64_t>> busy;  // [offset, end) of live buffers
    for (const auto& [p, offset] : placed)
      if (p.life.overlaps(c.life)) busy.emplace_back(offset, offset + p.bytes);
    std::sort(busy.begin(), busy.end());
    std::int64_t offset = 0;
    std::int64_t best = -1, best_gap = 0;
    for (const auto& [start, end] : busy) {
      std::int64_t gap = start - offset;
      if (gap >= c.bytes && (best < 0 || gap < best_gap)) {
        best = offset;
        best_gap = gap;
      }
      offset = std::max(offset, end);
    }
    if (best < 0) best = offset;
    placed.emplace_back(c, best);
    plan.values[static_cast<std::size_t>(c.id)].buffer = static_cast<int>(plan.buffers.size());
    plan.buffers.push_back({best, c.bytes});
    plan.arena_bytes = std::max(plan.arena_bytes, best + c.bytes);
  }
  return placed;
}

}  // namespace

void assign_arena(Plan& plan) {
  const std::size_t n = plan.values.size();
  std::vector<bool> aliased_output(n, false);
  std::vector<int> parent = alias_groups(plan, aliased_output);
  const std::vector<bool> excluded = excluded_groups(plan, parent);
  const std::vector<bool> in_place = write_over_dead_inputs(plan, parent, excluded, aliased_output);
  std::vector<int> produced_by(n, -1);
  const std::vector<Interval> group = group_lives(plan, parent, produced_by);

  std::vector<Candidate> candidates;
  for (std::size_t id = 0; id < n; ++id) {
    const ValueInfo& v = plan.values[id];
    if (produced_by[id] < 0 || aliased_output[id] || in_place[id] || !v.shape || dtype_size(v.dtype) == 0) continue;
    int root = find_root(parent, static_cast<int>(id));
    if (excluded[static_cast<std::size_t>(root)]) continue;
    std::int64_t bytes = shape_size(*v.shape) * static_cast<std::int64_t>(dtype_size(v.dtype));
    if (bytes <= 0) continue;
    candidates.push_back(
        {static_cast<int>(id), (bytes + kAlign - 1) / kAlign * kAlign, group[static_cast<std::size_t>(root)]});
  }
  const auto placed = place(plan, std::move(candidates));
  // Outputs written over their input take the buffer of the value that
  // starts their chain (the group's one placed value).
  std::vector<int> group_buffer(n, -1);
  for (const auto& [c, offset] : placed)
    group_buffer[static_cast<std::size_t>(find_root(parent, c.id))] =
        plan.values[static_cast<std::size_t>(c.id)].buffer;
  for (std::size_t id = 0; id < n; ++id)
    if (in_place[id])
      plan.values[id].buffer = group_buffer[static_cast<std::size_t>(find_root(parent, static_cast<int>(id)))];
}

}  // namespace winml::runtime
