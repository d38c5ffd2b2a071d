#include "bisect/kernel_report.h"

#include <optional>
#include <variant>

namespace kdrift {
namespace {

// A candidate's mark as git bisect would have it, or none while undecided.
std::optional<std::string> git_mark(const Session& session, std::size_t index) {
  if (index == session.start.good) return "good";
  if (index == session.start.bad) return "bad";
  const CandidateState& state = session.search.state(index);
  if (state.declared_skip || session.search.skipped(index)) return "skip";
  const std::optional<CandidateVerdict> verdict =
      state.declared ? state.declared
                     : (state.judgement ? std::optional(state.judgement->verdict) : std::nullopt);
  if (verdict == CandidateVerdict::kGood) return "good";
  if (verdict == CandidateVerdict::kBad) return "bad";
  return std::nullopt;
}

std::string subject_of(KernelFacts& facts, const std::string& sha) {
  auto info = facts.commit(sha);
  return info ? info->subject : "";
}

Json commit_json(const CommitInfo& info) {
  return {{"sha", info.sha},    {"subject", info.subject}, {"author", info.author},
          {"date", info.date},  {"files", info.files},     {"more_files", info.more_files},
          {"merge", info.merge}};
}

// A merge brings a whole side branch at once: the range that finds the commit inside it.
Json inside_merge(const Session& session, const CommitInfo::Side& side) {
  return {{"good", side.base},
          {"bad", side.tip},
          {"commits", side.commits},
          {"start", "--git " + session.start.kernel_source->tree + " --good " + side.base +
                        " --bad " + side.tip}};
}

Json config_change(const Session& session, std::size_t first_bad, KernelFacts& facts) {
  const auto& candidates = session.start.candidates;
  std::size_t last_good = first_bad;
  while (last_good > 0 && git_mark(session, --last_good) != "good") {
  }
  Json change = {{"last_good", candidates[last_good].name},
                 {"first_bad", candidates[first_bad].name}};
  auto good = facts.config(candidates[last_good].config);
  auto bad = facts.config(candidates[first_bad].config);
  if (!good || !bad) {
    change["unavailable"] = (!good ? good.error() : bad.error()).describe();
    return change;
  }
  Json symbols = Json::array();
  for (const KconfigChange& differs : diff_configs(*good, *bad)) {
    Json symbol = {{"symbol", differs.symbol},
                   {"from", differs.from ? Json(*differs.from) : Json(nullptr)},
                   {"to", differs.to ? Json(*differs.to) : Json(nullptr)}};
    if (auto help = facts.help(differs.symbol); help) {
      symbol["help"] = {{"file", help->file}, {"line", help->line},
                        {"type", help->type}, {"choice", help->choice},
                        {"help", help->help}, {"depends_on", help->depends_on}};
    } else {
      symbol["help_unavailable"] = help.error().describe();
    }
    symbols.push_back(std::move(symbol));
  }
  change["symbols"] = std::move(symbols);
  return change;
}

Json reproducer(const Session& session) {
  const BisectStart& start = session.start;
  Json out = {{"metric", to_string(start.metric)}};
  // A declared bisect is judged by the boot command's exit status: there is no device to name.
  if (!start.target.empty()) out["target"] = start.target;
  if (const auto* probe = std::get_if<ProbeMetric>(&start.metric)) {
    out["profile"] = probe->profile;
    out["engine"] = probe->engine;
    out["iodepth"] = probe->iodepth;
    out["statistic"] = probe->statistic;
  }
  const KernelSource& source = *start.kernel_source;
  out["config"] = source.kind == KernelSource::Kind::kCommits
                      ? std::string(kBaseConfigFile)
                      : std::string(kConfigsDir) + "/" + start.candidates[start.bad].config;
  out["localmodconfig"] = source.localmodconfig;
  if (!start.candidates[start.bad].append.empty())
    out["append"] = start.candidates[start.bad].append;
  return out;
}

Json build_totals(const Session& session) {
  int built = 0, failed = 0, timed_out = 0;
  double seconds = 0;
  for (const auto& build : session.builds) {
    if (!build) continue;
    built += build->outcome == "built";
    failed += build->outcome == "failed";
    timed_out += build->outcome == "timed-out";
    seconds += build->seconds;
  }
  return {{"built", built}, {"failed", failed}, {"timed_out", timed_out}, {"seconds", seconds}};
}

}  // namespace

std::string git_bisect_log(const Session& session, KernelFacts& facts) {
  const auto& candidates = session.start.candidates;
  std::string log = "git bisect start --first-parent\n";
  const auto mark = [&](std::size_t index, const std::string& how) {
    const std::string& sha = candidates[index].commit;
    log += "# " + how + ": [" + sha + "] " + subject_of(facts, sha) + "\n";
    log += "git bisect " + how + " " + sha + "\n";
  };
  mark(session.start.bad, "bad");
  mark(session.start.good, "good");
  // git keeps one bad commit and moves it to each one marked bad, so the bad marks go newest
  // first, after every good and skip: replayed, the log ends where the bisect ended, whatever
  // order the steps were measured in.
  for (const char* how : {"good", "skip"}) {
    for (std::size_t i = 0; i < session.search.size(); ++i) {
      if (i != session.start.good && i != session.start.bad && git_mark(session, i) == how)
        mark(i, how);
    }
  }
  for (std::size_t i = session.search.size(); i-- > 0;) {
    if (i != session.start.bad && git_mark(session, i) == "bad") mark(i, "bad");
  }
  if (const auto first_bad = session.search.first_bad();
      first_bad && session.search.could_also_be().empty()) {
    const std::string& sha = candidates[*first_bad].commit;
    log += "# first bad commit: [" + sha + "] " + subject_of(facts, sha) + "\n";
  }
  return log;
}

Json kernel_answer(const Session& session, KernelFacts& facts) {
  const KernelSource& source = *session.start.kernel_source;
  const bool commits = source.kind == KernelSource::Kind::kCommits;
  Json answer = {{"kind", commits ? "commits" : "configs"},
                 {"tree", source.tree},
                 {"reproducer", reproducer(session)},
                 {"builds", build_totals(session)}};
  if (!commits) answer["commit"] = source.commit;
  if (commits) answer["git_bisect_log"] = git_bisect_log(session, facts);
  const auto first_bad = session.search.first_bad();
  if (!first_bad) return answer;
  if (!commits) {
    answer["config_change"] = config_change(session, *first_bad, facts);
    return answer;
  }
  if (auto info = facts.commit(session.start.candidates[*first_bad].commit); info) {
    answer["first_bad_commit"] = commit_json(*info);
    if (info->side) answer["first_bad_commit"]["inside"] = inside_merge(session, *info->side);
  } else {
    answer["first_bad_commit"] = {{"sha", session.start.candidates[*first_bad].commit},
                                  {"unavailable", info.error().describe()}};
  }
  Json also = Json::array();
  for (const std::size_t index : session.search.could_also_be()) {
    const std::string& sha = session.start.candidates[index].commit;
    also.push_back({{"sha", sha}, {"subject", subject_of(facts, sha)}});
  }
  answer["could_also_be"] = std::move(also);
  return answer;
}

}  // namespace kdrift
