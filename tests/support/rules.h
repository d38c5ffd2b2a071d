#pragma once
// The built-in rules (checks/*.toml compiled in), loaded once per test process.

#include <vector>

#include "rules/rule.h"

namespace kdrift::testing {

const std::vector<Rule>& builtin_rule_set();

}  // namespace kdrift::testing
