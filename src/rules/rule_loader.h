#pragma once
// Rules from TOML: the set compiled in from checks/*.toml, and a user's directory on top (a
// rule with the same id replaces the built-in one). Every problem is an error naming the file
// and line; nothing is half-loaded.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "rules/rule.h"
#include "util/result.h"

namespace kdrift {

// A rule is caused by a few others at most, and a rules directory holds tens of files; the
// bounds keep a hostile directory from making loading or ranking cost what it likes.
inline constexpr std::size_t kMaxFollows = 16;
inline constexpr std::size_t kMaxRuleFiles = 1024;
// The fleet facts one rule names (rule.h's fingerprint): a rule names a few settings.
inline constexpr std::size_t kMaxFingerprintFacts = 64;

Result<Rule> parse_rule(std::string_view text, const std::string& source);

Result<std::vector<Rule>> builtin_rules();

// builtin_rules() plus every *.toml in directory (sorted by name). Each must be a regular file
// (a FIFO or device with that name is an error, never a wait) within util/toml_reader.h's limits.
Result<std::vector<Rule>> load_rules(const std::string& directory);

}  // namespace kdrift
