#include "model/input_dims.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace winml::model {

std::string dim_key(const std::string& input, std::size_t index) { return input + "." + std::to_string(index); }

std::optional<std::int64_t> input_dim(const onnx::ValueInfoProto& input, std::size_t index, const DimValues& dims) {
  const auto& shape = input.type().tensor_type().shape();
  if (index >= static_cast<std::size_t>(shape.dim_size())) return std::nullopt;
  const auto& d = shape.dim(static_cast<int>(index));
  if (d.has_dim_value() && d.dim_value() > 0) return d.dim_value();
  if (auto it = dims.find(dim_key(input.name(), index)); it != dims.end()) return it->second;
  if (d.has_dim_param() && !d.dim_param().empty())
    if (auto it = dims.find(d.dim_param()); it != dims.end()) return it->second;
  return std::nullopt;
}

std::vector<OpenDim> open_input_dims(const onnx::GraphProto& graph, const DimValues& dims) {
  std::set<std::string> initializers;
  for (const auto& t : graph.initializer()) initializers.insert(t.name());
  std::vector<OpenDim> out;
  for (const auto& in : graph.input()) {
    if (initializers.count(in.name()) || !in.type().tensor_type().has_shape()) continue;
    const auto& shape = in.type().tensor_type().shape();
    for (int i = 0; i < shape.dim_size(); ++i)
      if (!input_dim(in, static_cast<std::size_t>(i), dims))
        out.push_back({in.name(), static_cast<std::size_t>(i), shape.dim(i).dim_param()});
  }
  return out;
}

std::string describe(const OpenDim& d) {
  return "input " + d.input + " dimension " + std::to_string(d.index) + " (" + (d.name.empty() ? "unnamed" : d.name) +
         ")";
}

std::string defaulted_dims_warning(const std::vector<OpenDim>& open, std::int64_t value, const std::string& purpose) {
  std::string list;
  for (const auto& d : open) list += (list.empty() ? "" : ", ") + describe(d);
  const OpenDim& first = open.front();
  const std::string name = first.name.empty() ? dim_key(first.input, first.index) : first.name;
  // A TOML key outside A-Z a-z 0-9 _ - must be quoted ("x.2", "p2o.Dim.0").
  const bool bare = std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
  const std::string key = bare ? name : "\"" + name + "\"";
  return "no size given for " + list + ": " + purpose + " used " + std::to_string(value) +
         "; set sizes with [model] dims = { " + key + " = <size> } (--dim " + name + "=<size> for one command)";
}

}  // namespace winml::model
