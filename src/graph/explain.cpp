#include "graph/explain.h"

#include <algorithm>
#include <map>

namespace winml::graph {

std::string describe_ingredient(const std::string& name) {
  auto colon = name.find(':');
  if (colon == std::string::npos) {
    if (name == "tool") return "winml-make version";
    if (name == "implementation") return "stage implementation";
    return name;
  }
  return name.substr(0, colon) + " " + name.substr(colon + 1);
}

namespace {

struct Change {
  std::string name;
  const Ingredient* before = nullptr;
  const Ingredient* after = nullptr;
};

// What a user changed comes first: a setting with a new value, then a file,
// then what a new setting brought in or an old one took away (switching
// `source` to `[export] command` adds a dozen export keys, but the change is
// model.source), then the tool's own code.
int rank(const Change& c) {
  const bool setting = c.name.starts_with("config:") || c.name.starts_with("env:") || c.name.starts_with("value:");
  const bool file = c.name.starts_with("input:") || c.name.starts_with("model:") || c.name.starts_with("file:") ||
                    c.name.starts_with("rules:");
  if (setting && c.before && c.after) return 0;
  if (file && c.before && c.after) return 1;
  if (setting || file) return 2;
  return 3;
}

// Within a rank, changes come in the order of the current ingredients (the
// stage's declarations put the settings a user writes before those the
// schema computes from them), then what is no longer used.
std::vector<Change> diff(const std::vector<Ingredient>& a, const std::vector<Ingredient>& b) {
  std::map<std::string, const Ingredient*> before;
  for (const auto& i : a) before[i.name] = &i;
  std::vector<Change> out;
  for (const auto& i : b) {
    const auto it = before.find(i.name);
    const Ingredient* old = it == before.end() ? nullptr : it->second;
    if (old) before.erase(it);
    if (old && old->digest == i.digest) continue;
    out.push_back(Change{i.name, old, &i});
  }
  for (const auto& i : a)
    if (before.count(i.name)) out.push_back(Change{i.name, &i, nullptr});
  std::stable_sort(out.begin(), out.end(), [](const Change& x, const Change& y) { return rank(x) < rank(y); });
  return out;
}

std::string value(const Ingredient& i) {
  // Config values and versions are shown as text; files by digest.
  if (!i.text.empty() && i.text.size() <= 200) return i.text + " (digest " + i.digest.hex() + ")";
  return i.digest.hex();
}

std::string line(const Change& c) {
  std::string what = describe_ingredient(c.name);
  if (c.before && c.after) {
    bool has_text = !c.before->text.empty() || !c.after->text.empty();
    if (has_text && c.before->text.size() <= 200 && c.after->text.size() <= 200)
      return what + ": " + c.before->text + " -> " + c.after->text + " (digest " + c.before->digest.hex() + " -> " +
             c.after->digest.hex() + ")";
    return what + ": " + c.before->digest.hex() + " -> " + c.after->digest.hex();
  }
  if (c.after) return what + ": new, " + value(*c.after);
  return what + ": no longer used (was " + value(*c.before) + ")";
}

// "config quantize.samples changed (+2 more)"; empty without changes.
std::string summary(const std::vector<Change>& changes) {
  if (changes.empty()) return "";
  std::string s = describe_ingredient(changes.front().name) + " changed";
  if (changes.size() > 1) s += " (+" + std::to_string(changes.size() - 1) + " more)";
  return s;
}

}  // namespace

std::vector<std::string> explain_change(const std::optional<std::vector<Ingredient>>& old_ingredients,
                                        const std::vector<Ingredient>& new_ingredients) {
  if (!old_ingredients) return {"the previous key's ingredients are not recorded; cannot say what changed"};
  std::vector<std::string> out;
  for (const auto& c : diff(*old_ingredients, new_ingredients)) out.push_back(line(c));
  if (out.empty()) out.push_back("same ingredients, different key (key format changed)");
  return out;
}

std::string summarize_change(const std::optional<std::vector<Ingredient>>& old_ingredients,
                             const std::vector<Ingredient>& new_ingredients) {
  if (!old_ingredients) return "key changed";
  const std::string s = summary(diff(*old_ingredients, new_ingredients));
  return s.empty() ? "key changed" : s;
}

namespace {

std::vector<Ingredient> besides_inputs(const std::vector<Ingredient>& all) {
  std::vector<Ingredient> out;
  for (const auto& i : all)
    if (!i.name.starts_with("input:")) out.push_back(i);
  return out;
}

}  // namespace

std::vector<std::string> explain_change_besides_inputs(const std::optional<std::vector<Ingredient>>& old_ingredients,
                                                       const std::vector<Ingredient>& new_ingredients) {
  if (!old_ingredients) return {};
  // Named: a Change points into these lists, which a range-for over diff()
  // of temporaries would destroy before its body.
  const std::vector<Ingredient> before = besides_inputs(*old_ingredients), after = besides_inputs(new_ingredients);
  std::vector<std::string> out;
  for (const auto& c : diff(before, after)) out.push_back(line(c));
  return out;
}

std::string summarize_change_besides_inputs(const std::optional<std::vector<Ingredient>>& old_ingredients,
                                            const std::vector<Ingredient>& new_ingredients) {
  return old_ingredients ? summary(diff(besides_inputs(*old_ingredients), besides_inputs(new_ingredients))) : "";
}

}  // namespace winml::graph
