#include "bisect/isolation.h"

#include <algorithm>

#include "bisect/cmdline_candidates.h"

namespace kdrift {
namespace {

std::vector<std::size_t> with_culprit(std::vector<std::size_t> set, std::size_t culprit) {
  set.push_back(culprit);
  std::sort(set.begin(), set.end());
  return set;
}

std::vector<std::vector<std::size_t>> split_into(const std::vector<std::size_t>& set,
                                                 std::size_t parts) {
  std::vector<std::vector<std::size_t>> out(parts);
  for (std::size_t i = 0; i < set.size(); ++i)
    out[i * parts / set.size()].push_back(set[i]);
  return out;
}

std::vector<std::size_t> without(const std::vector<std::size_t>& set,
                                 const std::vector<std::size_t>& part) {
  std::vector<std::size_t> rest;
  std::set_difference(set.begin(), set.end(), part.begin(), part.end(), std::back_inserter(rest));
  return rest;
}

// Whether the candidate's recorded outcome is known: bad, good (or skipped), or not yet.
std::optional<bool> recorded_outcome(const Session& session, std::size_t index) {
  const CandidateState& state = session.search.state(index);
  if (state.declared) return *state.declared == CandidateVerdict::kBad;
  if (state.declared_skip || session.search.skipped(index)) return false;
  if (state.judgement && state.judgement->verdict != CandidateVerdict::kInconclusive) {
    return state.judgement->verdict == CandidateVerdict::kBad;
  }
  return std::nullopt;
}

Action measure_isolation(const Session& session, std::size_t index, std::size_t tested) {
  const std::string why =
      "isolate: does the culprit need earlier changes? test " + std::to_string(tested + 1);
  if (index < session.search.size()) return session.search.plan_round(index, why);
  // A candidate still to be added: its first boot.
  const SearchConfig& config = session.start.config;
  Action action;
  action.kind = Action::Kind::kMeasure;
  action.purpose = Action::Purpose::kBisect;
  action.candidate = index;
  action.samples = config.declared ? 0 : config.first_samples;
  action.why = why;
  return action;
}

}  // namespace

Isolation isolate(
    std::size_t culprit,
    const std::function<std::optional<bool>(const std::vector<std::size_t>&)>& outcome) {
  std::optional<Isolation> pending;
  auto bad = [&](const std::vector<std::size_t>& set) {
    const auto full = with_culprit(set, culprit);
    const auto known = outcome(full);
    if (!known && !pending) pending = Isolation{Isolation::State::kTest, full};
    return known.value_or(false);
  };
  std::vector<std::size_t> changes;
  for (std::size_t i = 0; i < culprit; ++i)
    changes.push_back(i);
  if (changes.empty() || bad({})) return {Isolation::State::kDone, {culprit}};
  if (pending) return *pending;
  std::size_t parts = 2;
  while (changes.size() > 1) {
    const auto split = split_into(changes, std::min(parts, changes.size()));
    bool reduced = false;
    for (const auto& part : split) {
      if (bad(part)) {
        changes = part;
        parts = 2;
        reduced = true;
        break;
      }
      if (pending) return *pending;
    }
    // With two parts each complement is the other part, already tested.
    for (std::size_t i = 0; !reduced && split.size() > 2 && i < split.size(); ++i) {
      const auto rest = without(changes, split[i]);
      if (bad(rest)) {
        changes = rest;
        parts = std::max<std::size_t>(parts - 1, 2);
        reduced = true;
      }
      if (pending) return *pending;
    }
    if (reduced) continue;
    if (parts >= changes.size()) break;
    parts = std::min(parts * 2, changes.size());
  }
  return {Isolation::State::kDone, with_culprit(changes, culprit)};
}

SessionNext session_next(const Session& session) {
  SessionNext next{session.search.next(), std::nullopt, {}};
  const auto& changes = session.start.cmdline_changes;
  const auto first_bad = session.search.first_bad();
  if (next.action.kind != Action::Kind::kDone || changes.empty() || !first_bad || *first_bad == 0 ||
      *first_bad > changes.size()) {
    return next;
  }
  const std::size_t culprit = *first_bad - 1;  // candidate k carries changes 0..k-1
  const auto& candidates = session.start.candidates;
  std::size_t tested = 0;
  std::optional<std::size_t> missing_index;
  const Isolation isolation = isolate(culprit, [&](const std::vector<std::size_t>& set) {
    std::vector<CmdlineChange> applied;
    applied.reserve(set.size());
    for (const std::size_t i : set)
      applied.push_back(changes[i]);
    const std::string append = apply_changes(session.start.cmdline_good, applied);
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      if (candidates[i].append != append) continue;
      const auto outcome = recorded_outcome(session, i);
      if (outcome) ++tested;
      if (!outcome) missing_index = i;
      return outcome;
    }
    if (!next.to_add) {
      Candidate candidate = candidates[*first_bad];
      candidate.name = "with";
      for (const CmdlineChange& change : applied)
        candidate.name += ":" + change.label;
      candidate.append = append;
      next.to_add = candidate;
    }
    return std::optional<bool>();
  });
  if (isolation.state == Isolation::State::kTest) {
    const std::size_t index = missing_index.value_or(candidates.size());
    if (missing_index) next.to_add.reset();
    const Action test = measure_isolation(session, index, tested);
    if (session.search.over_budget(test)) {
      next.to_add.reset();
      next.action.why += "; no boot left in --max-boots to isolate what else it needs";
      return next;
    }
    next.action = test;
    return next;
  }
  next.to_add.reset();
  for (const std::size_t i : isolation.changes)
    next.needs.push_back(changes[i].label);
  return next;
}

}  // namespace kdrift
