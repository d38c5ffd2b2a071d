#include "bisect/session.h"

#include <optional>
#include <unordered_map>

#include "snapshot/json_access.h"

namespace kdrift {
namespace {

Json candidate_json(const Candidate& candidate) {
  Json out = {{"name", candidate.name}};
  for (const auto& [key, value] :
       {std::pair{"kernel", &candidate.kernel}, std::pair{"initrd", &candidate.initrd},
        std::pair{"append", &candidate.append}, std::pair{"release", &candidate.release},
        std::pair{"commit", &candidate.commit}, std::pair{"config", &candidate.config}}) {
    if (!value->empty()) out[key] = *value;
  }
  return out;
}

Json config_json(const SearchConfig& config) {
  return {{"alpha", config.alpha},
          {"reference_samples", config.reference_samples},
          {"reference_boots", config.reference_boots},
          {"max_boots", config.max_boots},
          {"first_samples", config.first_samples},
          {"more_samples", config.more_samples},
          {"max_samples", config.max_samples},
          {"max_attempts", config.max_attempts},
          {"declared", config.declared},
          {"verify_endpoints", config.verify_endpoints},
          {"whole_boots", config.whole_boots}};
}

// Reads the settings back; a missing key keeps the default (journals of older kdrift versions),
// except reference_boots, which journals from before it existed meant as one boot a side.
std::optional<SearchConfig> config_from(const Json& node) {
  SearchConfig config;
  if (!node.is_object()) return std::nullopt;
  config.reference_boots = 1;
  config.alpha = number_member(node, "alpha").value_or(config.alpha);
  for (const auto& [key, field] : {std::pair{"reference_samples", &config.reference_samples},
                                   std::pair{"reference_boots", &config.reference_boots},
                                   std::pair{"max_boots", &config.max_boots},
                                   std::pair{"first_samples", &config.first_samples},
                                   std::pair{"more_samples", &config.more_samples},
                                   std::pair{"max_samples", &config.max_samples},
                                   std::pair{"max_attempts", &config.max_attempts}}) {
    const double value = number_member(node, key).value_or(*field);
    if (value < 1 || value > 100000 || value != static_cast<int>(value)) return std::nullopt;
    *field = static_cast<int>(value);
  }
  if (!(config.alpha > 0 && config.alpha < 1)) return std::nullopt;
  for (const auto& [key, field] : {std::pair{"declared", &config.declared},
                                   std::pair{"verify_endpoints", &config.verify_endpoints},
                                   std::pair{"whole_boots", &config.whole_boots}}) {
    if (const Json* flag = member(node, key); flag && flag->is_boolean())
      *field = flag->get<bool>();
  }
  return config;
}

// A kernel bisect's candidates name what the steps build: a commit git must not read as an
// option, a config kept in the state directory under a plain name.
Status check_built_candidates(const BisectStart& start, const std::string& where) {
  if (!start.kernel_source) return ok_status();
  const bool configs = start.kernel_source->kind == KernelSource::Kind::kConfigs;
  for (const Candidate& candidate : start.candidates) {
    if (!is_plain_file_name(candidate.name) || (!configs && !is_commit_id(candidate.commit)) ||
        (configs && !is_plain_file_name(candidate.config))) {
      return content_error(where + ": candidate \"" + candidate.name +
                           "\" needs a plain name and a full commit id (or a config name)");
    }
  }
  return ok_status();
}

// A reboot bisect's loader: a directory the journal names is one step will write below, so it
// must be a plain absolute path (no "..", nothing a terminal or a loader's file would read as
// more than a name).
Result<LoaderPlace> loader_from(const Json& event, const std::string& where) {
  const Json* loader = object_member(event, "loader");
  LoaderPlace place;
  if (loader != nullptr) place = {text_member(*loader, "name"), text_member(*loader, "directory")};
  const bool known =
      place.loader == "grub" || place.loader == "systemd-boot" || place.loader == "uefi";
  if (!known || !is_plain_absolute_path(place.directory)) {
    return content_error(where +
                         ": a reboot bisect's start needs loader {name: grub, systemd-boot or "
                         "uefi; directory: a plain absolute path}");
  }
  return place;
}

Result<BisectStart> start_from(const Json& event, const std::string& where) {
  BisectStart start;
  start.id = text_member(event, "id");
  start.mode = text_member(event, "mode");
  if (start.mode == "reboot") {
    auto loader = loader_from(event, where);
    if (!loader) return loader.error();
    start.loader = std::move(*loader);
  }
  start.profile = text_member(event, "profile");
  start.target = text_member(event, "target");
  if (const Json* cmdline = object_member(event, "cmdline")) {
    start.cmdline_good = text_member(*cmdline, "good");
    const Json* changes = array_member(*cmdline, "changes");
    for (const Json& change : changes != nullptr ? *changes : Json::array()) {
      CmdlineChange parsed{text_member(change, "key"), {}, text_member(change, "label")};
      const Json* words = array_member(change, "words");
      for (const Json& word : words != nullptr ? *words : Json::array()) {
        if (!word.is_string()) return content_error(where + ": a command-line word is not text");
        parsed.words.push_back(word.get<std::string>());
      }
      if (parsed.key.empty() || parsed.label.empty()) {
        return content_error(where + ": a command-line change needs key and label");
      }
      start.cmdline_changes.push_back(std::move(parsed));
    }
  }
  const Json* candidates = array_member(event, "candidates");
  const std::string metric = text_member(event, "metric");
  if (start.id.empty() || metric.empty() || start.mode.empty() || candidates == nullptr) {
    return content_error(where + ": the start event needs id, metric, mode and candidates");
  }
  auto parsed_metric = parse_bisect_metric(metric);
  if (!parsed_metric) return content_error(where + ": " + parsed_metric.error().describe());
  start.metric = std::move(*parsed_metric);
  for (const Json& entry : *candidates) {
    Candidate candidate{text_member(entry, "name"),    text_member(entry, "kernel"),
                        text_member(entry, "initrd"),  text_member(entry, "append"),
                        text_member(entry, "release"), text_member(entry, "commit"),
                        text_member(entry, "config")};
    if (candidate.name.empty()) return content_error(where + ": a candidate has no name");
    start.candidates.push_back(std::move(candidate));
  }
  const Json* config = object_member(event, "config");
  const auto parsed = config_from(config != nullptr ? *config : Json::object());
  if (!parsed) return content_error(where + ": the start event's config is out of range");
  start.config = *parsed;
  auto good = candidate_index(start, text_member(event, "good"));
  if (!good) return content_error(where + ": good: " + good.error().describe());
  auto bad = candidate_index(start, text_member(event, "bad"));
  if (!bad) return content_error(where + ": bad: " + bad.error().describe());
  if (*good >= *bad) {
    return content_error(where +
                         ": the good candidate must come before the bad one (oldest "
                         "first)");
  }
  start.good = *good;
  start.bad = *bad;
  auto source = kernel_source_from(event, where);
  if (!source) return source.error();
  start.kernel_source = std::move(*source);
  if (auto built = check_built_candidates(start, where); !built) return built.error();
  return start;
}

// A samples, crash or verdict event about the candidate at index, into the search.
Status add_outcome(Session& session, std::size_t index, const std::string& kind, const Json& event,
                   const std::string& where) {
  if (kind == "samples") {
    const Json* values = array_member(event, "values");
    if (values == nullptr || values->empty()) {
      return content_error(where + ": samples without values");
    }
    std::vector<double> numbers;
    for (const Json& value : *values) {
      if (!value.is_number()) return content_error(where + ": a sample is not a number");
      numbers.push_back(value.get<double>());
    }
    session.search.add_samples(index, numbers);
  } else if (kind == "crash") {
    session.search.add_crash(index);
    const std::string reason = text_member(event, "reason");
    session.crash_reasons[index].push_back(reason.empty() ? "crashed" : reason);
  } else if (kind == "build") {
    CandidateBuild build{text_member(event, "outcome"), text_member(event, "release"),
                         number_member(event, "seconds").value_or(0), false,
                         text_member(event, "why")};
    if (const Json* ccache = member(event, "ccache"); ccache && ccache->is_boolean())
      build.ccache = ccache->get<bool>();
    if (build.outcome != "built" && build.outcome != "failed" && build.outcome != "timed-out") {
      return content_error(where + ": a build's outcome must be built, failed or timed-out");
    }
    if (build.outcome != "built") session.search.declare(index, CandidateVerdict::kInconclusive);
    session.builds[index] = std::move(build);
  } else if (kind == "verdict") {
    const std::string verdict = text_member(event, "verdict");
    if (verdict == "good") {
      session.search.declare(index, CandidateVerdict::kGood);
    } else if (verdict == "bad") {
      session.search.declare(index, CandidateVerdict::kBad);
    } else if (verdict == "skip") {
      session.search.declare(index, CandidateVerdict::kInconclusive);
    } else {
      return content_error(where + ": verdict must be good, bad or skip, not \"" + verdict + "\"");
    }
  } else {
    return content_error(where + ": unknown event \"" + kind + "\"");
  }
  return ok_status();
}

// The candidates by name, as candidate_index finds them (the first of a name), in constant time
// per event: a replay must not walk every candidate for each of its events.
using CandidateNames = std::unordered_map<std::string, std::size_t>;

CandidateNames candidate_names(const BisectStart& start) {
  CandidateNames names;
  for (std::size_t i = 0; i < start.candidates.size(); ++i)
    names.emplace(start.candidates[i].name, i);
  return names;
}

// One event after the start, into the session; errors name where it is.
Status replay_event(Session& session, CandidateNames& names, const Json& event,
                    const std::string& where) {
  const std::string kind = text_member(event, "event");
  if (kind == "candidate") {
    const std::string name = text_member(event, "name");
    if (name.empty() || !names.emplace(name, session.start.candidates.size()).second) {
      return content_error(where + ": a new candidate needs a name not taken");
    }
    session.start.candidates.push_back({name, text_member(event, "kernel"),
                                        text_member(event, "initrd"), text_member(event, "append"),
                                        text_member(event, "release"), "", ""});
    session.search.add_candidate();
    session.details.emplace_back();
    session.builds.emplace_back();
    session.crash_reasons.emplace_back();
    return ok_status();
  }
  const auto found = names.find(text_member(event, "candidate"));
  if (found == names.end()) {
    const auto unknown = candidate_index(session.start, text_member(event, "candidate"));
    return content_error(where + ": " + unknown.error().describe());
  }
  const std::size_t index = found->second;
  if (kind == "attempt") {
    const auto number = number_member(event, "attempt");
    const int expected = static_cast<int>(session.attempts.size()) + 1;
    if (!number || *number != expected) {
      return content_error(where + ": attempt must be numbered " + std::to_string(expected));
    }
    session.attempts.push_back({expected, index, text_member(event, "boot_id"), ""});
    session.pending = session.attempts.back();
    return ok_status();
  }
  if (kind == "booted") {
    // Not an outcome: the attempt stays pending until its measurement or its crash.
    const auto number = number_member(event, "attempt");
    if (!session.pending || session.pending->candidate != index || !number ||
        *number != session.pending->number) {
      return content_error(where + ": a booted event must name the pending attempt");
    }
    session.pending->arrived_boot = text_member(event, "boot_id");
    session.attempts.back().arrived_boot = session.pending->arrived_boot;
    return ok_status();
  }
  if (session.pending && session.pending->candidate == index) session.pending.reset();
  if (const std::string boot = text_member(event, "boot_id"); !boot.empty() && kind != "crash") {
    session.measured_boots.push_back(boot);
  }
  if (const Json* details = member(event, "details"); details != nullptr) {
    session.details[index] = *details;
  }
  return add_outcome(session, index, kind, event, where);
}

}  // namespace

Json start_event(const BisectStart& start) {
  Json candidates = Json::array();
  for (const Candidate& candidate : start.candidates) {
    candidates.push_back(candidate_json(candidate));
  }
  Json event = {{"event", "start"},
                {"id", start.id},
                {"candidates", std::move(candidates)},
                {"good", start.candidates.at(start.good).name},
                {"bad", start.candidates.at(start.bad).name},
                {"metric", to_string(start.metric)},
                {"mode", start.mode},
                {"config", config_json(start.config)}};
  if (!start.profile.empty()) event["profile"] = start.profile;
  if (!start.cmdline_changes.empty()) {
    Json changes = Json::array();
    for (const CmdlineChange& change : start.cmdline_changes) {
      changes.push_back({{"key", change.key}, {"words", change.words}, {"label", change.label}});
    }
    event["cmdline"] = {{"good", start.cmdline_good}, {"changes", std::move(changes)}};
  }
  if (!start.target.empty()) event["target"] = start.target;
  if (start.mode == "reboot") {
    event["loader"] = {{"name", start.loader.loader}, {"directory", start.loader.directory}};
  }
  if (start.kernel_source) event["kernel_source"] = kernel_source_json(*start.kernel_source);
  return event;
}

Json build_event(const std::string& candidate, const CandidateBuild& build) {
  Json event = {{"event", "build"},
                {"candidate", candidate},
                {"outcome", build.outcome},
                {"seconds", build.seconds},
                {"ccache", build.ccache}};
  if (!build.release.empty()) event["release"] = build.release;
  if (!build.why.empty()) event["why"] = build.why;
  return event;
}

Json samples_event(const std::string& candidate, const std::vector<double>& values) {
  return {{"event", "samples"}, {"candidate", candidate}, {"values", values}};
}

Json crash_event(const std::string& candidate) {
  return {{"event", "crash"}, {"candidate", candidate}};
}

Json booted_event(const std::string& candidate, int attempt, const std::string& boot_id) {
  return {
      {"event", "booted"}, {"candidate", candidate}, {"attempt", attempt}, {"boot_id", boot_id}};
}

bool boots_candidates(const std::string& mode) {
  return mode == "kexec" || mode == "reboot";
}

Json verdict_event(const std::string& candidate, const std::string& verdict,
                   const std::string& by) {
  return {{"event", "verdict"}, {"candidate", candidate}, {"verdict", verdict}, {"by", by}};
}

Json candidate_event(const Candidate& candidate) {
  Json event = candidate_json(candidate);
  event["event"] = "candidate";
  return event;
}

Json attempt_event(const std::string& candidate, int attempt, const std::string& boot_id) {
  return {
      {"event", "attempt"}, {"candidate", candidate}, {"attempt", attempt}, {"boot_id", boot_id}};
}

Result<std::size_t> candidate_index(const BisectStart& start, const std::string& name) {
  std::string known;
  for (std::size_t i = 0; i < start.candidates.size(); ++i) {
    if (start.candidates[i].name == name) return i;
    known += (known.empty() ? "" : ", ") + start.candidates[i].name;
  }
  return content_error("no candidate named \"" + name + "\" (known: " + known + ")");
}

Result<Session> replay(const std::vector<Json>& events, const std::string& source) {
  if (events.empty()) return content_error(source + ": no events: the bisect was never started");
  const std::string first = source + ": event 1";
  if (text_member(events[0], "event") != "start") {
    return content_error(first + ": the first event must be the start");
  }
  auto start = start_from(events[0], first);
  if (!start) return start.error();
  Session session{*start,
                  Search(start->candidates.size(), start->good, start->bad, start->config),
                  {},
                  std::nullopt,
                  {},
                  std::vector<Json>(start->candidates.size()),
                  std::vector<std::optional<CandidateBuild>>(start->candidates.size()),
                  std::vector<std::vector<std::string>>(start->candidates.size())};
  CandidateNames names = candidate_names(session.start);
  for (std::size_t i = 1; i < events.size(); ++i) {
    const std::string where = source + ": event " + std::to_string(i + 1);
    if (auto replayed = replay_event(session, names, events[i], where); !replayed) {
      return replayed.error();
    }
  }
  return session;
}

}  // namespace kdrift
