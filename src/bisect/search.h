#pragma once
// The performance bisect's search, free of I/O, so that the real loop (`kdrift bisect step`
// after each kexec) and the simulator (scripts/bench/bisect-sim) run the same decisions.
// Candidates are indices, oldest first; the good and bad endpoints are given. next() says what
// to measure; add_samples() and add_crash() report what happened. The plan is recomputed from
// what was recorded each time, so a replayed journal leads to the same next step.
//
// The boot is the unit of replication (boot_levels.h). Order of work: reference boots on the
// bad endpoint and the good one, alternating, at least reference_boots a side and then until the
// drift from boot to boot is known well enough to say whether max_boots resolves the change
// (judge.h: calibrate), which refuses it, with the numbers, when it cannot; binary search between
// the newest good and the oldest bad candidate after it, each candidate measured round after
// round while its verdict is unknown (more runs in the same boot while they buy as much per run
// as a boot would, else a fresh boot of it, or of the endpoint it is measured against when that
// helps more), every verdict on the drift pooled over all boots so far; a candidate still
// unknown after its share of the budget, or crashed max_attempts times, is skipped as git bisect
// skips; then the endpoints shown apart, and the two verdicts the answer rests on settled (the
// last good candidate's and the culprit's, the culprit's through a retest on a fresh boot).
// Running out of max_boots before that is a refusal with the numbers.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "bisect/judge.h"

namespace kdrift {

struct SearchConfig {
  // The whole bisect's chance of a wrong culprit from noise, shared (judge.h: look_alpha) among
  // the judgements the answer may rest on: each of the ~log2 N candidates a binary search
  // visits, each look at a growing sample of it.
  double alpha = 0.01;
  // Runs on each endpoint over its first reference_boots boots; every later reference boot
  // takes as many runs as those did.
  int reference_samples = 30;
  // Boots each endpoint gets at least, endpoints alternating; more follow while the calibration
  // cannot decide, up to kMaxReferenceBoots a side, and during the search whenever an endpoint's
  // level limits a verdict more than the candidate's own boots do.
  int reference_boots = 2;
  // The whole bisect's boots, reference boots, crashes and the retest included: the search
  // refuses up front when its calibration needs more, and stops when they run out.
  int max_boots = 100;
  int first_samples = 10;  // runs in each boot of a candidate
  int more_samples = 5;    // runs added to the same boot, while they help as much as a boot
  int max_samples = 30;    // runs in one boot of a candidate, at most
  int max_attempts = 2;    // boots that did not come back before it is skipped as crashed
  // Verdicts come from the user (`good`, `bad`, `skip`) or a command's exit status (`run`), or a
  // finding present or absent (a functional bisect): exact, so no references, no calibration,
  // no retest. Each candidate is asked once.
  bool declared = false;
  // With declared: each endpoint is asked first, bad then good (a predicate is evaluated on it),
  // and a bisect whose endpoints do not hold is refused rather than searched.
  bool verify_endpoints = false;
  // Every measurement is a boot of its own: the boot method cannot add runs to a boot that has
  // ended (a boot command, a reboot through the boot loader), so the search never plans more
  // runs in the same boot, which would pass two boots off as one.
  bool whole_boots = false;
};

struct Action {
  enum class Kind { kMeasure, kDone, kRefused };
  enum class Purpose { kReference, kBisect, kRetest };
  Kind kind = Kind::kDone;
  Purpose purpose = Purpose::kBisect;
  std::size_t candidate = 0;  // kMeasure: boot this one (or stay on it) and take `samples`
  int samples = 0;
  bool fresh_boot = true;  // kMeasure: a new boot is wanted even on the same candidate
  std::string why;         // "reference: good endpoint", "bisect: 3 candidates left", ...
};

struct CandidateState {
  std::vector<double> samples;
  std::vector<std::size_t> boot_sizes;  // how many of samples each boot took, in order
  BootLevels levels;  // boot_levels(samples, boot_sizes), kept up to date as boots come in
  int rounds = 0;     // measurements recorded: each is a look at its verdict
  std::vector<double> retest_samples;
  bool retested = false;
  bool retest_confirmed = false;  // the fresh boot judged it bad on its own samples
  int crashes = 0;
  std::optional<Judgement> judgement;        // of its boots, once there are first_samples runs
  std::optional<CandidateVerdict> declared;  // said by the user or a command; overrides judgement
  bool declared_skip = false;                // the user or the command said it cannot be tested
};

class Search {
 public:
  // Reference boots a side at most while the calibration decides; later ones are asked for by
  // the verdicts they help.
  static constexpr int kMaxReferenceBoots = 6;

  Search(std::size_t count, std::size_t good, std::size_t bad, SearchConfig config = {});

  Action next() const;

  // Samples taken on candidate (the retest's when next() asked for a retest of it). They extend
  // the candidate's last boot when next() asked for more runs in it and nothing else was
  // measured since; otherwise they are a boot of their own.
  void add_samples(std::size_t candidate, const std::vector<double>& values);
  // The candidate's boot did not come back (hang, panic, another kernel booted).
  void add_crash(std::size_t candidate);
  // One more candidate after the listed ones: measured and judged like them, outside the
  // binary search (an isolation test, isolation.h).
  void add_candidate() { states_.emplace_back(); }
  // A verdict said for the candidate: kGood or kBad, or kInconclusive for "skip" (cannot be
  // tested).
  void declare(std::size_t candidate, CandidateVerdict verdict);

  const CandidateState& state(std::size_t candidate) const { return states_.at(candidate); }
  std::size_t size() const { return states_.size(); }
  // Set once next() is kDone: the first bad candidate, and the skipped ones that could also be
  // it (those between the last good and it).
  std::optional<std::size_t> first_bad() const;
  std::vector<std::size_t> could_also_be() const;

  // From the minimum of reference boots on (none for a declared search): whether to search,
  // refuse or take another reference boot; fixed when the search starts on the candidates.
  std::optional<Calibration> calibration() const { return calibration_; }
  // The boot drift and runs' noise pooled over every boot so far.
  const DriftEstimate& drift() const { return drift_; }

  // Not to be tested again: said so, crashed max_attempts times, or still unknown after its
  // share of the budget.
  bool skipped(std::size_t candidate) const;
  // The significance level of a candidate's look-th judgement (judge.h: look_alpha): a fixed
  // 5 % per candidate for the verdicts that steer the search, the bisect's alpha shared over the
  // ~log2 N candidates it visits for the two the answer rests on.
  double judgement_alpha(int look) const;
  double answer_alpha(int look) const;
  // What the candidate's verdict needs next: more runs in its boot, a fresh boot of it, or a
  // boot of the endpoint it is measured against (purpose kReference). The budget is next()'s.
  Action plan_round(std::size_t candidate, std::string why) const;
  // Boots taken so far, crashes included, and whether action would take one beyond max_boots.
  int boots_used() const;
  bool over_budget(const Action& action) const;

 private:
  // The newest good and the oldest bad after it, from every judgement so far.
  std::pair<std::size_t, std::size_t> bounds() const;
  std::optional<std::size_t> middle(std::size_t low, std::size_t high) const;
  Action next_declared() const;
  Action next_measured() const;
  // The endpoints' boots until the calibration decides, and the rest of one cut short.
  std::optional<Action> reference_action() const;
  Action reference_boot(std::size_t endpoint, const std::string& why) const;
  // Once the search has closed in: what the two verdicts the answer rests on still need, the
  // last good candidate's and the culprit's. A wrong culprit takes a wrong verdict on one of
  // them, so each must hold at answer_alpha, on two boots at least and with any one of them
  // left out (the culprit's retest, when it says bad on its own, is its other boot): no single
  // boot's drift decides the answer.
  std::optional<Action> settle(std::size_t low, std::size_t high) const;
  bool settled(std::size_t candidate) const;
  Action finish_answer(std::size_t culprit) const;
  int visits() const;
  int reference_runs() const;
  // A candidate's runs cut into its boots (boot_levels.h).
  const BootLevels& levels(std::size_t candidate) const { return states_[candidate].levels; }
  // After the last of a candidate's boots got runs: its level, the others' as they were.
  static void level_last_boot(CandidateState& state);
  // Records samples as a boot of their own, or as more runs of the candidate's last boot.
  void add_runs(std::size_t candidate, const std::vector<double>& values, bool same_boot);
  // Boots a candidate may take before it is skipped as unknown: its share of what the budget
  // left when the search started.
  int candidate_boot_cap() const;
  // The boots the drift is pooled over, by level: each endpoint's with those of the candidates
  // judged like it, every other candidate's on their own. A right verdict puts a candidate's
  // boots beside boots of the same level, so the search's own boots give the drift degrees of
  // freedom (without them a candidate decided on one boot adds none). A wrong one makes the
  // drift look smaller, since the boot that misled it sits near the other level: in bisect-sim
  // that pulled the drift 10-15 % low at 3-5 % drift, and settling the two verdicts the answer
  // rests on is what keeps it from naming a wrong culprit.
  std::vector<BootLevels> drift_groups() const;
  // After anything is recorded: the pooled drift, the calibration until the search starts, and
  // every judgement (the drift and the references they rest on may have moved).
  void refresh();

  std::vector<CandidateState> states_;
  // The candidates anything was recorded about, in order: every other one has no verdict, no
  // boot and is not skipped, so the search looks at these and never walks the whole list.
  std::set<std::size_t> touched_;
  std::size_t good_;
  std::size_t bad_;
  SearchConfig config_;
  static constexpr std::size_t kNone = SIZE_MAX;
  std::size_t last_measured_ = kNone;  // the candidate whose boot the last samples came from
  bool searching_ = false;             // a candidate other than the endpoints was measured
  int boots_at_search_ = 0;
  DriftEstimate drift_;
  std::optional<Calibration> calibration_;
};

}  // namespace kdrift
