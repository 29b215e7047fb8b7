#include "graph/key.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <unordered_map>

namespace winml::graph {

namespace {

bool ingredient_name_less(const Ingredient& a, const Ingredient& b) { return a.name < b.name; }

// Hashes the list in name order. The builder's lists come sorted: only an
// unsorted one is copied (a copy per node was most of a no-op's key cost).
void feed(store::Hasher& h, const std::vector<Ingredient>& list) {
  if (!std::is_sorted(list.begin(), list.end(), ingredient_name_less)) {
    std::vector<Ingredient> sorted = list;
    sort_ingredients(sorted);
    feed(h, sorted);
    return;
  }
  h.update_field(std::to_string(list.size()));
  for (const auto& i : list) {
    h.update_field(i.name);
    h.update_digest(i.digest);
  }
}

}  // namespace

void sort_ingredients(std::vector<Ingredient>& list) { std::sort(list.begin(), list.end(), ingredient_name_less); }

Digest static_digest_of(const std::vector<Ingredient>& statics) {
  store::Hasher h;
  h.update_field("winml-make static ingredients v1");
  feed(h, statics);
  return h.finish();
}

Digest key_of(const Digest& static_digest, const std::vector<Ingredient>& dynamic) {
  store::Hasher h;
  h.update_field("winml-make node key v1");
  h.update_digest(static_digest);
  feed(h, dynamic);
  return h.finish();
}

Ingredient text_ingredient(std::string name, std::string text) {
  Digest d = store::digest_of(text);
  return Ingredient{std::move(name), d, std::move(text)};
}

Ingredient digest_ingredient(std::string name, const Digest& d, std::string text) {
  return Ingredient{std::move(name), d, std::move(text)};
}

std::size_t Graph::find(const std::string& model, const std::string& name) const {
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].model == model && nodes[i].name == name) return i;
  return npos;
}

std::vector<std::vector<std::size_t>> Graph::nodes_by_model() const {
  std::unordered_map<std::string_view, std::size_t> index;
  index.reserve(models.size());
  for (std::size_t t = 0; t < models.size(); ++t) index.emplace(models[t], t);
  std::vector<std::vector<std::size_t>> out(models.size());
  // A model's nodes are usually adjacent: look the name up once per run of them.
  std::size_t current = npos;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (i == 0 || nodes[i].model != nodes[i - 1].model) {
      auto it = index.find(nodes[i].model);
      current = it == index.end() ? npos : it->second;
    }
    if (current != npos) out[current].push_back(i);
  }
  return out;
}

}  // namespace winml::graph
