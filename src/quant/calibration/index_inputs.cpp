#include "quant/calibration/index_inputs.h"

#include <algorithm>
#include <deque>
#include <set>
#include <string_view>
#include <vector>

namespace winml::quant {

namespace {

bool is_integer(std::int32_t dtype) {
  using T = onnx::TensorProto;
  return dtype == T::INT8 || dtype == T::UINT8 || dtype == T::INT16 || dtype == T::UINT16 || dtype == T::INT32 ||
         dtype == T::INT64;
}

// Ops whose output 0 holds input 0's values, rearranged or retyped.
bool passes_values_through(const onnx::NodeProto& n) {
  static constexpr std::string_view kOps[] = {"Cast", "Reshape", "Unsqueeze", "Squeeze", "Flatten", "Identity"};
  return n.domain().empty() && std::find(std::begin(kOps), std::end(kOps), n.op_type()) != std::end(kOps);
}

// The rows along a Gather's axis of its data, when that is an initializer.
std::int64_t gathered_rows(const onnx::NodeProto& gather,
                           const std::map<std::string, const onnx::TensorProto*>& inits) {
  const auto it = inits.find(gather.input(0));
  if (it == inits.end()) return 0;
  const auto& dims = it->second->dims();
  std::int64_t axis = 0;
  for (const auto& a : gather.attribute())
    if (a.name() == "axis") axis = a.i();
  if (axis < 0) axis += dims.size();
  if (axis < 0 || axis >= dims.size()) return 0;
  return dims[static_cast<int>(axis)];
}

}  // namespace

std::map<std::string, std::int64_t> index_input_rows(const onnx::GraphProto& g) {
  std::map<std::string, const onnx::TensorProto*> inits;
  for (const auto& t : g.initializer()) inits[t.name()] = &t;
  std::multimap<std::string, const onnx::NodeProto*> readers;
  for (const auto& n : g.node())
    for (const auto& in : n.input()) readers.emplace(in, &n);

  std::map<std::string, std::int64_t> rows;
  for (const auto& input : g.input()) {
    if (inits.count(input.name()) || !is_integer(input.type().tensor_type().elem_type())) continue;
    std::int64_t fewest = 0;
    std::deque<std::string> values = {input.name()};
    std::set<std::string> seen = {input.name()};
    while (!values.empty()) {
      const std::string value = values.front();
      values.pop_front();
      for (auto [it, end] = readers.equal_range(value); it != end; ++it) {
        const onnx::NodeProto& n = *it->second;
        if (n.domain().empty() && n.op_type() == "Gather" && n.input_size() > 1 && n.input(1) == value) {
          if (const std::int64_t r = gathered_rows(n, inits); r > 0) fewest = fewest ? std::min(fewest, r) : r;
        } else if (passes_values_through(n) && n.input(0) == value && n.output_size() > 0 &&
                   seen.insert(n.output(0)).second) {
          values.push_back(n.output(0));
        }
      }
    }
    if (fewest > 0) rows[input.name()] = fewest;
  }
  return rows;
}

}  // namespace winml::quant
