#pragma once
// The performance bisect's search, free of I/O, so that the real loop (`kdrift bisect step`
// after each kexec) and the simulator (scripts/bench/bisect-sim) run the same decisions.
// Candidates are indices, oldest first; the good and bad endpoints are given. next() says what
// to measure; add_samples() and add_crash() report what happened. The plan is recomputed from
// what was recorded each time, so a replayed journal leads to the same next step.
//
// Order of work: reference samples on the bad endpoint and the good one, a calibration that
// refuses a bisect the noise cannot resolve, binary search between the newest good and the
// oldest bad candidate after it (a candidate that stays unknown after max_samples, or crashed
// max_attempts times, is skipped as git bisect skips), and a retest of the culprit on a fresh
// boot before the answer is given.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "bisect/judge.h"

namespace kdrift {

struct SearchConfig {
  // The whole bisect's chance of a wrong verdict from noise, shared (Bonferroni) among the
  // judgements it may make: two tests, each look at a growing sample, each of the ~log2 N
  // candidates a binary search visits.
  double alpha = 0.01;
  int reference_samples = 30;  // on each endpoint
  // Boots the reference samples are spread over, endpoints alternating: with more than one,
  // the calibration sees how far one endpoint's boots drift apart (at two more boots a side).
  int reference_boots = 1;
  int first_samples = 5;  // a candidate's first boot
  int more_samples = 5;   // each further round while unknown
  int max_samples = 30;   // then it is skipped as unknown
  int max_attempts = 2;   // boots that did not come back before it is skipped as crashed
  // Verdicts come from the user (`good`, `bad`, `skip`) or a command's exit status (`run`), or a
  // finding present or absent (a functional bisect): exact, so no references, no calibration,
  // no retest. Each candidate is asked once.
  bool declared = false;
  // With declared: each endpoint is asked first, bad then good (a predicate is evaluated on it),
  // and a bisect whose endpoints do not hold is refused rather than searched.
  bool verify_endpoints = false;
};

struct Action {
  enum class Kind { kMeasure, kDone, kRefused };
  enum class Purpose { kReference, kBisect, kRetest };
  Kind kind = Kind::kDone;
  Purpose purpose = Purpose::kBisect;
  std::size_t candidate = 0;  // kMeasure: boot this one (or stay on it) and take `samples`
  int samples = 0;
  bool fresh_boot = true;  // kMeasure: the retest wants a new boot even on the same candidate
  std::string why;         // "reference: good endpoint", "bisect: 3 candidates left", ...
};

struct CandidateState {
  std::vector<double> samples;
  std::vector<std::size_t> batch_sizes;  // how many of samples each measurement added, in order
  std::vector<double> retest_samples;
  bool retested = false;
  bool retest_confirmed = false;  // the fresh boot judged it bad on its own samples
  int crashes = 0;
  std::optional<Judgement> judgement;  // of samples, once there are first_samples of them
  std::optional<Verdict> declared;     // said by the user or a command; overrides judgement
  bool declared_skip = false;          // the user or the command said it cannot be tested
};

class Search {
 public:
  Search(std::size_t count, std::size_t good, std::size_t bad, SearchConfig config = {});

  Action next() const;

  // Samples taken on candidate (the retest's when next() asked for a retest of it).
  void add_samples(std::size_t candidate, const std::vector<double>& values);
  // The candidate's boot did not come back (hang, panic, another kernel booted).
  void add_crash(std::size_t candidate);
  // One more candidate after the listed ones: measured and judged like them, outside the
  // binary search (an isolation test, isolation.h).
  void add_candidate() { states_.emplace_back(); }
  // A verdict said for the candidate: kGood or kBad, or kUnknown for "skip" (cannot be tested).
  void declare(std::size_t candidate, Verdict verdict);

  const CandidateState& state(std::size_t candidate) const { return states_.at(candidate); }
  std::size_t size() const { return states_.size(); }
  // Set once next() is kDone: the first bad candidate, and the skipped ones that could also be
  // it (those between the last good and it).
  std::optional<std::size_t> first_bad() const;
  std::vector<std::size_t> could_also_be() const;

  // Once both endpoints have their reference samples (none for a declared search).
  std::optional<Calibration> calibration() const;

  static bool skipped(const CandidateState& state, const SearchConfig& config);
  // The significance level of one judgement: alpha shared as SearchConfig says.
  double judgement_alpha() const;

 private:
  // The newest good and the oldest bad after it, from every judgement so far.
  std::pair<std::size_t, std::size_t> bounds() const;
  std::optional<std::size_t> middle(std::size_t low, std::size_t high) const;
  Action next_declared() const;
  const std::vector<double>& good_reference() const { return states_[good_].samples; }
  const std::vector<double>& bad_reference() const { return states_[bad_].samples; }
  // A candidate's samples cut into its measurements: an endpoint's reference boots, and a
  // candidate's boots once boot drift makes every round a fresh boot.
  std::vector<std::vector<double>> batches(std::size_t candidate) const;
  // The endpoints' reference boots; none when the references were meant for one boot a side,
  // however many measurements they took.
  ReferenceBoots reference_boots() const;
  // The references' boot drift (judge.h), 0 with one reference boot a side.
  double drift() const { return boot_drift(reference_boots()); }
  // In-boot samples against the references, and with boot drift the boots placed too: a verdict
  // needs both.
  Judgement judged(const std::vector<double>& samples,
                   const std::vector<std::vector<double>>& boots) const;
  void rejudge(std::size_t candidate);

  std::vector<CandidateState> states_;
  std::size_t good_;
  std::size_t bad_;
  SearchConfig config_;
};

}  // namespace kdrift
