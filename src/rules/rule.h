#pragma once
// A rule, as checks/*.toml states it: which finding id it raises, how serious it is, what it
// matches in one snapshot (check) or between two (diff), why it matters and what to do.
// The grammar is documented in checks/README.md.

#include <optional>
#include <string>
#include <vector>

#include "diff/config_diff.h"
#include "diff/json_path.h"
#include "snapshot/snapshot.h"

namespace kdrift {

enum class Severity { kInfo, kWarning, kCritical };
std::string_view severity_name(Severity severity);
std::optional<Severity> parse_severity(std::string_view name);

// Where in the probe's matrix a setting shows: ranking weighs a finding up when the probe moved
// there, and down when the probe ran there and did not move.
enum class Relevance { kAny, kHighIodepth, kLowIodepth, kSequential, kPolled, kWrites };
std::optional<Relevance> parse_relevance(std::string_view name);

// One test on a value. State tests hold or not on one snapshot; change tests (changed,
// increased, decreased) compare A's value with B's.
struct Condition {
  enum class Op {
    kEquals,
    kDiffers,
    kIn,
    kNotIn,
    kAbove,
    kBelow,
    kAtLeast,
    kAtMost,
    kExists,
    kStartsWith,
    kNotEmpty,
    kChanged,
    kIncreased,
    kDecreased,
  };
  Op op = Op::kEquals;
  Json operand;  // a value, a list for in / not_in / starts_with, a number for comparisons

  bool compares_sides() const {
    return op == Op::kChanged || op == Op::kIncreased || op == Op::kDecreased;
  }
  // State tests; value is nullptr when the path is absent.
  bool holds(const Json* value) const;
  // Change tests.
  bool holds(const Json* a, const Json* b) const;
};

// A filter on the element a match is looking at: a path relative to the element, or, starting
// with "/", from the snapshot's root with {key} replaced by the element's subject.
struct WhereClause {
  std::string path;
  Condition condition;
};

enum class Applies { kCheck, kDiff, kBoth };

struct Match {
  std::optional<PathPattern> each;  // the elements looked at; none: the snapshot root
  PathPattern value;                // relative to each element
  std::vector<WhereClause> where;
  std::vector<Condition> conditions;  // all must hold
  std::optional<Severity> severity;   // overrides the rule's for hits of this match
  Applies applies = Applies::kBoth;
  // Change tests: an element or value present on one side only compares as absent (a command
  // line parameter added), instead of being skipped (a device only one host has).
  bool compare_missing = false;
  int line = 0;  // in the rule file, for messages

  bool compares_sides() const;
};

enum class Builtin { kNone, kProbeRegression, kKernelConfig };

struct Rule {
  std::string id;
  Severity severity = Severity::kWarning;
  std::string title;
  std::string explanation;
  std::string remedy;
  double magnitude = 0.1;  // share of IOPS or latency the setting is known to move
  Relevance relevance = Relevance::kAny;
  // Rules whose finding, when raised too, is this one's cause: this one ranks right after it
  // (queue/io_poll reads 0 because the driver lost its poll queues).
  std::vector<std::string> follows;
  std::vector<Match> matches;
  std::vector<PathPattern> context;  // related values shown as evidence
  // Facts of kdrift fleet (docs/fleet.md's names) that move what this rule judges, whether or
  // not it flags them: the fleet folds hosts by them. A name, or a prefix ending in "*".
  std::vector<std::string> fingerprint;
  std::vector<Match> proof;  // trace facts that tie the setting to the I/O path
  Builtin builtin = Builtin::kNone;
  std::vector<ConfigGroup> config_groups;  // kernel.config
  std::string source;                      // file the rule came from
};

}  // namespace kdrift
