#include "support/rules.h"

#include "rules/rule_loader.h"

namespace kdrift::testing {

const std::vector<Rule>& builtin_rule_set() {
  static const std::vector<Rule> loaded = builtin_rules().value();
  return loaded;
}

}  // namespace kdrift::testing
