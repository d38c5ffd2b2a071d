#pragma once
// The config bisect's candidates: a chain of configs from the good one to the bad one, each
// applying more of the symbols they differ in, for kdrift's linear bisect (bisect/search.h) to
// search like a list of kernels.
//
// Kconfig's `depends on`, `select` and choices mean that a config with only some of the changes
// applied is not always what kconfig builds: `make olddefconfig` may undo a change (its
// dependency is not applied yet; one member of a choice switched on while the old member is
// still on) or drag a later one along (a select). A candidate must be exactly what it claims, so
// the plan is made of what kconfig made of each candidate:
//
//  1. Normalize both ends (ConfigNormalizer); the changes are the symbols that still differ,
//     in bad's file order, then those only good has (diff_configs).
//  2. Candidate 0 is the normalized good config. Each next step takes the first change not yet
//     applied, writes the good config with bad's value for every change applied so far plus
//     this one (a change to "absent" drops the line), and normalizes it. A change is applied in
//     the result when its symbol has bad's value there. The step is kept when every change it
//     asked for is applied and every other change is at bad's or good's value; changes it pulled
//     in (at bad's value without being asked) join it, with a note.
//  3. Otherwise normalizing undid the change (or one before it), or left a symbol at neither
//     end's value: the step is offered the following changes too, in order, 1, 2, 4, ... of
//     them until it holds, then by bisection the fewest that make it hold; if the last of those
//     alone makes it hold, only that one moves forward (the missing dependency, the other
//     member of the choice) and the changes between keep their turn. Otherwise the offered
//     changes kconfig keeps join the step and those it undoes keep their turn. All changes
//     together are the bad config, which holds.
//
// So candidate sets are a chain, each strictly larger than the one before, the first empty and
// the last all changes; the last candidate is the normalized bad config.
//
// Cost: normalize() runs once per end and once per step tried, plus the re-splits' probes; the
// whole plan makes at most config_plan_normalize_bound(changes) calls (changes + 2 + a re-split
// allowance of 8 * (ceil(log2(changes + 1)) + 1), room for a few re-splits across the whole
// list and many between neighbours). Should the re-splits use that up, the changes still left
// become one last step, with a note: the chain stays exact, only coarser.

#include <cstddef>
#include <string>
#include <vector>

#include "kbuild/config_normalizer.h"
#include "kbuild/kconfig.h"
#include "util/result.h"

namespace kdrift {

struct ConfigCandidate {
  std::string name;  // "cfg-03": its index, zero-padded to the widest index of the plan
  Kconfig config;    // normalized: what the kernel build will use
  // The differing symbols (ConfigPlan::changes) at bad's value in config, in changes' order;
  // every other differing symbol is at good's value.
  std::vector<std::string> applied;
};

struct ConfigPlan {
  std::vector<ConfigCandidate> candidates;  // [0] = good, last = bad, both normalized
  std::vector<KconfigChange> changes;       // the symbols that differ once both are normalized
  // Changes that had to move together, changes pulled in, symbols outside the changes a
  // candidate differs from both ends in, a re-split budget used up.
  std::vector<std::string> notes;
};

// The plan above. Refused: configs that are identical, configs that normalize to the same
// config (every difference is one kconfig rewrites away), more than max_changes differing
// symbols once normalized, and a normalizer error (naming which config it was normalizing).
Result<ConfigPlan> plan_config_bisect(const Kconfig& good, const Kconfig& bad,
                                      ConfigNormalizer& normalizer, std::size_t max_changes = 5000);

// The most normalize() calls plan_config_bisect makes for this many changes.
std::size_t config_plan_normalize_bound(std::size_t changes);

// What the bisect's final pair of candidates differ in (every symbol, the changes and any
// symbol kconfig resolved differently), for the report; empty unless last_good < first_bad <
// the number of candidates.
std::vector<KconfigChange> step_difference(const ConfigPlan& plan, std::size_t last_good,
                                           std::size_t first_bad);

}  // namespace kdrift
