#include "diff/config_diff.h"

#include <algorithm>
#include <map>

#include "snapshot/json_access.h"

namespace kdrift {
namespace {

std::optional<std::string> symbol_value(const Json& symbols, const std::string& name) {
  const auto found = symbols.find(name);
  if (found == symbols.end()) return std::nullopt;
  return found->is_string() ? found->get<std::string>() : found->dump();
}

bool symbol_character(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

std::string config_pattern_error(std::string_view pattern) {
  std::string_view name = pattern;
  const bool family = name.ends_with("_*");
  if (family) name.remove_suffix(2);
  if (!name.starts_with("CONFIG_") || name.size() == 7 ||
      !std::all_of(name.begin(), name.end(), symbol_character)) {
    return "a symbol (CONFIG_X) or a family (CONFIG_X_*: CONFIG_X and CONFIG_X_<name>), not \"" +
           std::string(pattern) + "\"";
  }
  return {};
}

bool config_group_matches(const ConfigGroup& group, std::string_view symbol) {
  return std::any_of(group.patterns.begin(), group.patterns.end(), [&](const std::string& entry) {
    if (!entry.ends_with("_*")) return symbol == entry;
    const std::string_view stem = std::string_view(entry).substr(0, entry.size() - 2);
    return symbol == stem || (symbol.starts_with(stem) && symbol.size() > stem.size() + 1 &&
                              symbol[stem.size()] == '_');
  });
}

std::string config_prefix(const std::string& symbol) {
  std::string_view name = symbol;
  if (name.starts_with("CONFIG_")) name.remove_prefix(7);
  return std::string(name.substr(0, name.find('_')));
}

ConfigDiff diff_kernel_config(const Json& a, const Json& b,
                              const std::vector<ConfigGroup>& groups) {
  ConfigDiff diff;
  const Json* symbols_a = object_member(a, "symbols");
  const Json* symbols_b = object_member(b, "symbols");
  if (symbols_a == nullptr || symbols_b == nullptr) return diff;
  diff.comparable = true;
  std::vector<ConfigSymbolChange> changed;
  auto note = [&](const std::string& name) {
    auto value_a = symbol_value(*symbols_a, name);
    auto value_b = symbol_value(*symbols_b, name);
    if (value_a != value_b) changed.push_back({name, std::move(value_a), std::move(value_b)});
  };
  for (const auto& [name, value] : symbols_a->items())
    note(name);
  for (const auto& [name, value] : symbols_b->items()) {
    if (!symbols_a->contains(name)) note(name);
  }
  std::sort(changed.begin(), changed.end(),
            [](const auto& x, const auto& y) { return x.symbol < y.symbol; });
  std::vector<ConfigDiff::Group> grouped(groups.size());
  for (auto& change : changed) {
    // The first group that names the symbol takes it.
    const auto group =
        std::find_if(groups.begin(), groups.end(), [&](const ConfigGroup& candidate) {
          return config_group_matches(candidate, change.symbol);
        });
    if (group != groups.end()) {
      grouped[static_cast<std::size_t>(group - groups.begin())].changed.push_back(
          std::move(change));
    } else {
      diff.other.push_back(std::move(change));
    }
  }
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (grouped[i].changed.empty()) continue;
    grouped[i].name = groups[i].name;
    diff.groups.push_back(std::move(grouped[i]));
  }
  return diff;
}

Json config_diff_json(const ConfigDiff& diff, const Json& a, const Json& b) {
  auto change_json = [](const ConfigSymbolChange& change) {
    Json entry = {{"symbol", change.symbol}};
    if (change.a) entry["a"] = *change.a;
    if (change.b) entry["b"] = *change.b;
    return entry;
  };
  Json groups = Json::array();
  bool missing_side = false;
  for (const auto& group : diff.groups) {
    Json changed = Json::array();
    for (const auto& change : group.changed) {
      missing_side = missing_side || !change.a || !change.b;
      changed.push_back(change_json(change));
    }
    groups.push_back({{"name", group.name}, {"changed", std::move(changed)}});
  }
  std::map<std::string, int> by_prefix;
  for (const auto& change : diff.other)
    ++by_prefix[config_prefix(change.symbol)];
  Json json = {{"source", {{"a", text_member(a, "source")}, {"b", text_member(b, "source")}}},
               {"groups", std::move(groups)},
               {"other", {{"count", diff.other.size()}, {"by_prefix", by_prefix}}}};
  if (missing_side) json["absent"] = kAbsentSymbolMeaning;
  return json;
}

}  // namespace kdrift
