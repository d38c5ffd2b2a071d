#include "rules/rule_loader.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "util/embedded.h"
#include "util/toml_reader.h"

namespace kdrift {

std::span<const EmbeddedText> embedded_rule_texts();

namespace {

constexpr std::pair<std::string_view, Condition::Op> kOperators[] = {
    {"equals", Condition::Op::kEquals},
    {"differs", Condition::Op::kDiffers},
    {"in", Condition::Op::kIn},
    {"not_in", Condition::Op::kNotIn},
    {"above", Condition::Op::kAbove},
    {"below", Condition::Op::kBelow},
    {"at_least", Condition::Op::kAtLeast},
    {"at_most", Condition::Op::kAtMost},
    {"exists", Condition::Op::kExists},
    {"starts_with", Condition::Op::kStartsWith},
    {"not_empty", Condition::Op::kNotEmpty},
    {"changed", Condition::Op::kChanged},
    {"increased", Condition::Op::kIncreased},
    {"decreased", Condition::Op::kDecreased},
};

std::optional<Condition::Op> operator_named(std::string_view name) {
  for (const auto& [text, op] : kOperators) {
    if (text == name) return op;
  }
  return std::nullopt;
}

std::optional<Json> scalar_json(const toml::node& node) {
  if (const auto* text = node.as_string()) return Json(text->get());
  if (const auto* number = node.as_integer()) return Json(number->get());
  if (const auto* number = node.as_floating_point()) return Json(number->get());
  if (const auto* flag = node.as_boolean()) return Json(flag->get());
  return std::nullopt;
}

bool valid_id(std::string_view id) {
  const auto dot = id.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == id.size()) return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
  });
}

class RuleParser {
 public:
  explicit RuleParser(const std::string& source) : reader_(source) {}

  Result<Rule> parse(std::string_view text) {
    auto parsed = reader_.parse(text);
    if (!parsed) return parsed.error();
    const toml::table& document = *parsed;
    if (auto status = reader_.check_keys(
            document,
            {"id", "severity", "title", "explanation", "remedy", "magnitude", "relevance",
             "follows", "context", "fingerprint", "builtin", "match", "proof", "group"},
            "");
        !status) {
      return status.error();
    }
    Rule rule;
    rule.source = reader_.source();
    for (const auto& step :
         {&RuleParser::parse_texts, &RuleParser::parse_weights, &RuleParser::parse_context,
          &RuleParser::parse_fingerprint, &RuleParser::parse_builtin, &RuleParser::parse_matches}) {
      if (auto status = (this->*step)(document, rule); !status) return status.error();
    }
    if (rule.builtin == Builtin::kNone && rule.matches.empty()) {
      return reader_.error("rule " + rule.id + " has no [[match]]");
    }
    return rule;
  }

 private:
  // id, title, explanation, remedy and severity: what every rule states.
  Status parse_texts(const toml::table& document, Rule& rule) const {
    for (const auto& [key, field] :
         {std::pair{"id", &rule.id}, std::pair{"title", &rule.title},
          std::pair{"explanation", &rule.explanation}, std::pair{"remedy", &rule.remedy}}) {
      auto value = required_text(document, key);
      if (!value) return value.error();
      *field = std::move(*value);
    }
    if (!valid_id(rule.id)) {
      return reader_.error_at(*document.get("id"),
                              "id \"" + rule.id + "\" is not area.name in lower case");
    }
    auto severity = severity_of(document, "severity");
    if (!severity) return severity.error();
    if (!*severity) return reader_.error("missing \"severity\"");
    rule.severity = **severity;
    return ok_status();
  }

  // magnitude and relevance: how ranking weighs the rule's findings.
  Status parse_weights(const toml::table& document, Rule& rule) const {
    if (const auto* node = document.get("magnitude")) {
      const auto value = node->value<double>();
      if (!value || *value <= 0 || *value > 1) {
        return reader_.error_at(*node, "magnitude: a share of IOPS above 0 and at most 1");
      }
      rule.magnitude = *value;
    }
    if (const auto* node = document.get("relevance")) {
      const auto name = node->value<std::string>();
      const auto relevance = name ? parse_relevance(*name) : std::nullopt;
      if (!relevance) {
        return reader_.error_at(*node,
                                "relevance: any, high-iodepth, low-iodepth, sequential, polled "
                                "or writes");
      }
      rule.relevance = *relevance;
    }
    if (const auto* node = document.get("follows")) {
      auto ids = reader_.list<std::string>(
          *node, "follows", [](const toml::node& item) { return item.value<std::string>(); });
      if (!ids) return ids.error();
      if (ids->size() > kMaxFollows) {
        return reader_.error_at(*node,
                                "follows: more than " + std::to_string(kMaxFollows) + " rule ids");
      }
      for (auto& id : *ids) {
        if (!valid_id(id) || id == rule.id) {
          return reader_.error_at(
              *node, "follows: \"" + id + "\" is not the id of another rule (area.name)");
        }
        rule.follows.push_back(std::move(id));
      }
    }
    return ok_status();
  }

  Status parse_context(const toml::table& document, Rule& rule) const {
    const auto* node = document.get("context");
    if (node == nullptr) return ok_status();
    auto patterns = reader_.list<std::string>(
        *node, "context", [](const toml::node& item) { return item.value<std::string>(); });
    if (!patterns) return patterns.error();
    for (const auto& text_pattern : *patterns) {
      auto pattern = PathPattern::parse(text_pattern);
      if (!pattern) return reader_.error_at(*node, "context: " + pattern.error().context);
      rule.context.push_back(std::move(*pattern));
    }
    return ok_status();
  }

  Status parse_fingerprint(const toml::table& document, Rule& rule) const {
    const auto* node = document.get("fingerprint");
    if (node == nullptr) return ok_status();
    auto facts = reader_.list<std::string>(
        *node, "fingerprint", [](const toml::node& item) { return item.value<std::string>(); });
    if (!facts) return facts.error();
    if (facts->size() > kMaxFingerprintFacts) {
      return reader_.error_at(
          *node, "fingerprint: more than " + std::to_string(kMaxFingerprintFacts) + " facts");
    }
    for (auto& fact : *facts) {
      const auto star = fact.find('*');
      if (fact.empty() || fact == "*" || (star != std::string::npos && star + 1 != fact.size())) {
        return reader_.error_at(
            *node, "fingerprint: \"" + fact + "\" is not a fact name or a prefix ending in *");
      }
      rule.fingerprint.push_back(std::move(fact));
    }
    return ok_status();
  }

  // The [[match]] and [[proof]] tables.
  Status parse_matches(const toml::table& document, Rule& rule) const {
    for (const auto& [key, list] :
         {std::pair{"match", &rule.matches}, std::pair{"proof", &rule.proof}}) {
      const auto* node = document.get(key);
      if (node == nullptr) continue;
      const auto* tables = node->as_array();
      if (tables == nullptr || !tables->is_array_of_tables()) {
        return reader_.error_at(*node, std::string(key) + ": expected [[" + key + "]] tables");
      }
      for (const auto& item : *tables) {
        auto match = parse_match(*item.as_table(), std::string(key));
        if (!match) return match.error();
        list->push_back(std::move(*match));
      }
    }
    return ok_status();
  }

  Result<std::string> required_text(const toml::table& table, const std::string& key) const {
    const auto* node = table.get(key);
    if (node == nullptr) return reader_.error("missing \"" + key + "\"");
    const auto value = node->value<std::string>();
    if (!value || value->empty()) return reader_.error_at(*node, key + ": expected text");
    return *value;
  }

  Result<std::optional<Severity>> severity_of(const toml::table& table,
                                              const std::string& key) const {
    const auto* node = table.get(key);
    if (node == nullptr) return std::optional<Severity>();
    const auto name = node->value<std::string>();
    const auto severity = name ? parse_severity(*name) : std::nullopt;
    if (!severity) return reader_.error_at(*node, key + ": critical, warning or info");
    return std::optional<Severity>(*severity);
  }

  Status parse_builtin(const toml::table& document, Rule& rule) const {
    const auto* node = document.get("builtin");
    const auto* groups = document.get("group");
    if (node == nullptr) {
      if (groups != nullptr)
        return reader_.error_at(*groups, "[[group]] needs builtin = \"kernel-config\"");
      return ok_status();
    }
    const auto name = node->value<std::string>();
    if (name == "probe-regression") {
      rule.builtin = Builtin::kProbeRegression;
    } else if (name == "kernel-config") {
      rule.builtin = Builtin::kKernelConfig;
    } else {
      return reader_.error_at(*node, "builtin: probe-regression or kernel-config");
    }
    if (groups == nullptr) return ok_status();
    const auto* tables = groups->as_array();
    if (rule.builtin != Builtin::kKernelConfig || tables == nullptr ||
        !tables->is_array_of_tables()) {
      return reader_.error_at(*groups, "[[group]] tables belong to builtin = \"kernel-config\"");
    }
    for (const auto& item : *tables) {
      const auto& table = *item.as_table();
      if (auto status = reader_.check_keys(table, {"name", "symbols"}, "group: "); !status) {
        return status;
      }
      ConfigGroup group;
      auto name_text = required_text(table, "name");
      if (!name_text) return name_text.error();
      group.name = *name_text;
      const auto* symbols = table.get("symbols");
      if (symbols == nullptr) return reader_.error_at(table, "group: missing \"symbols\"");
      auto patterns = reader_.list<std::string>(
          *symbols, "group.symbols",
          [](const toml::node& symbol) { return symbol.value<std::string>(); });
      if (!patterns) return patterns.error();
      for (const auto& pattern : *patterns) {
        if (auto problem = config_pattern_error(pattern); !problem.empty()) {
          return reader_.error_at(*symbols, "group.symbols: " + problem);
        }
      }
      group.patterns = std::move(*patterns);
      rule.config_groups.push_back(std::move(group));
    }
    return ok_status();
  }

  Result<Condition> condition_of(const toml::node& node, Condition::Op op,
                                 const std::string& key) const {
    Condition condition{op, Json()};
    const std::string where = key + ": ";
    switch (op) {
      case Condition::Op::kIn:
      case Condition::Op::kNotIn:
      case Condition::Op::kStartsWith: {
        auto values = reader_.list<Json>(node, key, scalar_json);
        if (!values) return values.error();
        if (op == Condition::Op::kStartsWith &&
            std::any_of(values->begin(), values->end(),
                        [](const Json& value) { return !value.is_string(); })) {
          return reader_.error_at(node, where + "expected text");
        }
        condition.operand = Json(std::move(*values));
        return condition;
      }
      case Condition::Op::kAbove:
      case Condition::Op::kBelow:
      case Condition::Op::kAtLeast:
      case Condition::Op::kAtMost: {
        const auto number = node.value<double>();
        if (!number || node.is_boolean())
          return reader_.error_at(node, where + "expected a number");
        condition.operand = *number;
        return condition;
      }
      case Condition::Op::kExists:
      case Condition::Op::kNotEmpty:
      case Condition::Op::kChanged:
      case Condition::Op::kIncreased:
      case Condition::Op::kDecreased: {
        const auto* flag = node.as_boolean();
        if (flag == nullptr) return reader_.error_at(node, where + "expected true or false");
        if (condition.compares_sides() && !flag->get()) {
          return reader_.error_at(node, where + "only true is meaningful");
        }
        condition.operand = flag->get();
        return condition;
      }
      case Condition::Op::kEquals:
      case Condition::Op::kDiffers: {
        auto value = scalar_json(node);
        if (!value) return reader_.error_at(node, where + "expected text, a number or a boolean");
        condition.operand = std::move(*value);
        return condition;
      }
    }
    return reader_.error_at(node, where + "unknown test");
  }

  Result<PathPattern> pattern_of(const toml::node& node, const std::string& key) const {
    const auto text = node.value<std::string>();
    if (!text) return reader_.error_at(node, key + ": expected a path");
    auto pattern = PathPattern::parse(*text);
    if (!pattern) return reader_.error_at(node, key + ": " + pattern.error().context);
    return pattern;
  }

  Result<Match> parse_match(const toml::table& table, const std::string& kind) const {
    Match match;
    match.line = static_cast<int>(table.source().begin.line);
    const std::string where = kind + ": ";
    std::set<std::string_view> allowed = {"each",     "value",   "where",
                                          "severity", "applies", "compare_missing"};
    for (const auto& [text, op] : kOperators)
      allowed.insert(text);
    if (auto status = reader_.check_keys(table, allowed, where); !status) return status.error();
    for (const auto& step : {&RuleParser::parse_match_paths, &RuleParser::parse_conditions,
                             &RuleParser::parse_where, &RuleParser::parse_match_options}) {
      if (auto status = (this->*step)(table, where, match); !status) return status.error();
    }
    return match;
  }

  // each and value; a wildcard in value without each makes the values the elements.
  Status parse_match_paths(const toml::table& table, const std::string& where, Match& match) const {
    if (const auto* node = table.get("each")) {
      auto each = pattern_of(*node, "each");
      if (!each) return each.error();
      match.each = std::move(*each);
    }
    if (const auto* node = table.get("value")) {
      auto value = pattern_of(*node, "value");
      if (!value) return value.error();
      match.value = std::move(*value);
    } else if (!match.each) {
      return reader_.error_at(table, where + "needs \"value\" or \"each\"");
    }
    if (!match.each && match.value.has_wildcards()) {
      match.each = std::move(match.value);
      match.value = PathPattern::parse("").value();
    } else if (match.value.has_wildcards()) {
      return reader_.error_at(table, where + "value: put wildcards in \"each\"");
    }
    return ok_status();
  }

  Status parse_conditions(const toml::table& table, const std::string& where, Match& match) const {
    for (const auto& [key, node] : table) {
      const auto op = operator_named(key.str());
      if (!op) continue;
      auto condition = condition_of(node, *op, where + std::string(key.str()));
      if (!condition) return condition.error();
      match.conditions.push_back(std::move(*condition));
    }
    if (match.conditions.empty()) return reader_.error_at(table, where + "no test");
    return ok_status();
  }

  // where = { path = { test = value } }: state tests on the element (or, from "/", the root).
  Status parse_where(const toml::table& table, const std::string& where, Match& match) const {
    const auto* node = table.get("where");
    if (node == nullptr) return ok_status();
    const auto* clauses = node->as_table();
    if (clauses == nullptr) {
      return reader_.error_at(*node, where + "where: expected { path = { test = value } }");
    }
    for (const auto& [path, test] : *clauses) {
      const auto* test_table = test.as_table();
      if (test_table == nullptr || test_table->size() != 1) {
        return reader_.error_at(test, where + "where." + std::string(path.str()) +
                                          ": expected one test, e.g. { equals = 1 }");
      }
      const auto first = test_table->begin();
      const std::string op_name(first->first.str());
      const auto op = operator_named(op_name);
      if (!op || Condition{*op, Json()}.compares_sides()) {
        return reader_.error_at(test, where + "where: unknown state test \"" + op_name + "\"");
      }
      auto condition = condition_of(first->second, *op, where + "where");
      if (!condition) return condition.error();
      std::string_view path_text = path.str();
      const bool absolute = path_text.starts_with("/");
      if (auto parsed = PathPattern::parse(absolute ? path_text.substr(1) : path_text); !parsed) {
        return reader_.error_at(test, where + "where: " + parsed.error().context);
      }
      match.where.push_back(WhereClause{std::string(path_text), std::move(*condition)});
    }
    return ok_status();
  }

  // severity, applies and compare_missing.
  Status parse_match_options(const toml::table& table, const std::string& where,
                             Match& match) const {
    auto severity = severity_of(table, "severity");
    if (!severity) return severity.error();
    match.severity = *severity;
    if (const auto* node = table.get("applies")) {
      const auto name = node->value<std::string>();
      if (name == "check") {
        match.applies = Applies::kCheck;
      } else if (name == "diff") {
        match.applies = Applies::kDiff;
      } else if (name == "both") {
        match.applies = Applies::kBoth;
      } else {
        return reader_.error_at(*node, where + "applies: check, diff or both");
      }
    }
    if (match.compares_sides() && match.applies == Applies::kCheck) {
      return reader_.error_at(table, where + "a change test needs two snapshots (applies = diff)");
    }
    if (const auto* node = table.get("compare_missing")) {
      const auto* flag = node->as_boolean();
      if (flag == nullptr) return reader_.error_at(*node, where + "compare_missing: true or false");
      match.compare_missing = flag->get();
    }
    return ok_status();
  }

  TomlReader reader_;
};

void add_or_replace(std::vector<Rule>& rules, Rule rule) {
  const auto same = std::find_if(rules.begin(), rules.end(),
                                 [&](const Rule& other) { return other.id == rule.id; });
  if (same == rules.end()) {
    rules.push_back(std::move(rule));
  } else {
    *same = std::move(rule);
  }
}

}  // namespace

Result<Rule> parse_rule(std::string_view text, const std::string& source) {
  return RuleParser(source).parse(text);
}

Result<std::vector<Rule>> builtin_rules() {
  std::vector<Rule> rules;
  for (const auto& embedded : embedded_rule_texts()) {
    auto rule = parse_rule(embedded.text, "checks/" + std::string(embedded.name) + ".toml");
    if (!rule) return rule.error();
    rules.push_back(std::move(*rule));
  }
  return rules;
}

Result<std::vector<Rule>> load_rules(const std::string& directory) {
  auto rules = builtin_rules();
  if (!rules) return rules.error();
  std::error_code failure;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(directory, failure)) {
    if (entry.path().extension() != ".toml") continue;
    if (files.size() == kMaxRuleFiles) {
      return make_error(
          E2BIG, directory + ": more than " + std::to_string(kMaxRuleFiles) + " *.toml rule files");
    }
    files.push_back(entry.path());
  }
  if (failure) return make_error(failure.value(), directory);
  if (files.empty()) return make_error(ENOENT, directory + ": no *.toml rule files");
  std::sort(files.begin(), files.end());
  std::set<std::string> seen;
  for (const auto& file : files) {
    auto text = read_toml_file(file.string());
    if (!text) return text.error();
    auto rule = parse_rule(*text, file.string());
    if (!rule) return rule.error();
    if (!seen.insert(rule->id).second) {
      return make_error(EINVAL, file.string() + ": a second rule with id " + rule->id);
    }
    add_or_replace(*rules, std::move(*rule));
  }
  return rules;
}

}  // namespace kdrift
