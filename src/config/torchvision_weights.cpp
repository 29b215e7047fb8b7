#include "config/torchvision_weights.h"

#include <algorithm>

#include "base/error.h"
#include "base/rules.h"
#include "base/text.h"
#include "base/toml_parse.h"

namespace winml::config {

namespace {

toml::value weights_data() {
  const auto& rules = rules::active();
  const std::string origin = rules.origin(kTorchvisionWeightsRules);
  auto text = rules.read(kTorchvisionWeightsRules);
  if (!text) throw InputError(file_error(origin, "missing rules file"));
  try {
    toml::value data = parse_toml(*text, origin);
    if (!data.is_table()) throw std::runtime_error("not a table");
    return data;
  } catch (const std::exception& e) {
    throw InputError(file_error(origin, std::string("invalid rules file: ") + e.what()));
  }
}

std::string string_at(const toml::value& table, const std::string& key, const std::string& where) {
  if (!table.is_table() || !table.contains(key) || !table.at(key).is_string())
    throw InputError(file_error(rules::active().origin(kTorchvisionWeightsRules),
                                "invalid rules file: " + where + " needs a string '" + key + "'"));
  return table.at(key).as_string().str;
}

}  // namespace

bool names_pretrained_weights(const std::string& weights) {
  if (weights.empty() || weights.front() < 'A' || weights.front() > 'Z') return false;
  return std::all_of(weights.begin(), weights.end(),
                     [](char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; });
}

std::optional<PretrainedWeights> find_pretrained_weights(const std::string& model, const std::string& weights,
                                                         std::string* problem) {
  const toml::value data = weights_data();
  auto fail = [&](std::string why) -> std::optional<PretrainedWeights> {
    if (problem) *problem = std::move(why);
    return std::nullopt;
  };
  if (!data.contains(model) || !data.at(model).is_table()) {
    std::vector<std::string> models;
    for (const auto& [name, v] : data.as_table())
      if (v.is_table()) models.push_back(name);
    std::sort(models.begin(), models.end());
    return fail("rules/" + std::string(kTorchvisionWeightsRules) +
                " knows no pretrained weights for torchvision model '" + model + "'" + did_you_mean(model, models) +
                " (models with them: " + join(models, ", ") + ")");
  }
  const toml::value& table = data.at(model);
  std::vector<std::string> names;
  for (const auto& [name, v] : table.as_table())
    if (v.is_table()) names.push_back(name);
  std::sort(names.begin(), names.end());
  const std::string name = weights == "DEFAULT" ? string_at(table, "default", "[" + model + "]") : weights;
  if (!table.contains(name) || !table.at(name).is_table()) {
    std::vector<std::string> valid = {"DEFAULT"};
    valid.insert(valid.end(), names.begin(), names.end());
    if (weights == "DEFAULT")
      return fail("rules/" + std::string(kTorchvisionWeightsRules) + " says [" + model + "] default is '" + name +
                  "', which it does not list");
    return fail("torchvision's " + model + " has no such pretrained weights (rules/" +
                std::string(kTorchvisionWeightsRules) + "); expected one of: " + join(valid, ", ") +
                ", or a state_dict file's path" + did_you_mean(weights, valid));
  }
  const std::string where = "[" + model + "] " + name;
  return PretrainedWeights{model, name, string_at(table.at(name), "file", where),
                           string_at(table.at(name), "url", where)};
}

}  // namespace winml::config
