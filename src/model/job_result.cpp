#include "model/job_result.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "snapshot/json_access.h"

namespace kdrift {
namespace {

using json_take::as_count;
using json_take::as_list;
using json_take::as_measure;
using json_take::as_text;
using json_take::take;

template <typename Value, typename Convert>
std::optional<std::map<std::string, Value>> as_map(const Json& value, Convert convert) {
  if (!value.is_object()) return std::nullopt;
  std::map<std::string, Value> out;
  for (const auto& [key, item] : value.items()) {
    auto converted = convert(item);
    if (!converted) return std::nullopt;
    out.emplace(key, std::move(*converted));
  }
  return out;
}

std::optional<std::vector<uint64_t>> as_counts(const Json& value) {
  return as_list(value, as_count);
}

template <typename Parsed>
std::optional<Parsed> as_object(const Json& value) {
  if (!value.is_object()) return std::nullopt;
  return Parsed::from_json(value);
}

// Writes the member when the value is there.
template <typename Value>
void put(Json& out, const char* key, const std::optional<Value>& value) {
  if (!value) return;
  if constexpr (requires { value->to_json(); }) {
    out[key] = value->to_json();
  } else if constexpr (requires { value->front().to_json(); }) {
    out[key] = Json::array();
    for (const auto& item : *value)
      out[key].push_back(item.to_json());
  } else {
    out[key] = *value;
  }
}

std::optional<std::map<std::string, uint64_t>> as_count_map(const Json& value) {
  return as_map<uint64_t>(value, as_count);
}

std::optional<std::map<std::string, std::vector<uint64_t>>> as_series_map(const Json& value) {
  return as_map<std::vector<uint64_t>>(value, as_counts);
}

// A struct's typed members, each named once with its key and how it is read: to_json and
// from_json walk the same list, so the two cannot drift apart.
template <typename Summary, typename Visit>
void latency_fields(Summary& summary, Visit&& visit) {
  visit("min", summary.min, as_count);
  visit("max", summary.max, as_count);
  visit("mean", summary.mean, as_measure);
  visit("stddev", summary.stddev, as_measure);
  visit("percentile", summary.percentiles, as_count_map);
  visit("per_second", summary.per_second, as_series_map);
}

template <typename Direction, typename Visit>
void direction_fields(Direction& direction, Visit&& visit) {
  visit("ios", direction.ios, as_count);
  visit("bytes", direction.bytes, as_count);
  visit("iops", direction.iops, as_measure);
  visit("bw_bytes", direction.bw_bytes, as_measure);
  visit("iops_per_second", direction.iops_per_second, as_object<PerSecondIops>);
  visit("slat_ns", direction.slat, as_object<LatencySummary>);
  visit("clat_ns", direction.clat, as_object<LatencySummary>);
  visit("lat_ns", direction.lat, as_object<LatencySummary>);
}

template <typename Round, typename Visit>
void round_fields(Round& round, Visit&& visit) {
  visit("round", round.round, as_count);
  visit("elapsed_s", round.elapsed_s, as_measure);
  visit("read", round.read, as_object<DirectionResult>);
  visit("write", round.write, as_object<DirectionResult>);
}

std::optional<std::vector<RoundResult>> as_rounds(const Json& value) {
  return as_list(value, as_object<RoundResult>);
}

// The members after the identity.
template <typename Result, typename Visit>
void outcome_fields(Result& result, Visit&& visit) {
  visit("status", result.status, as_text);
  visit("reason", result.reason, as_text);
  visit("elapsed_s", result.elapsed_s, as_measure);
  visit("read", result.read, as_object<DirectionResult>);
  visit("write", result.write, as_object<DirectionResult>);
  visit("round", result.round, as_count);
  visit("rounds", result.rounds, as_rounds);
}

// The direction that carried the I/O: the one with more I/Os, read on a tie.
const DirectionResult* main_of(const std::optional<DirectionResult>& read,
                               const std::optional<DirectionResult>& write) {
  const uint64_t reads = read ? read->ios.value_or(0) : 0;
  const uint64_t writes = write ? write->ios.value_or(0) : 0;
  if (read && (!write || reads >= writes)) return &*read;
  return write ? &*write : nullptr;
}

// What a round keeps of a direction: I/Os, IOPS with its per-second counts, and the total
// latency's mean and tracked percentiles.
std::optional<DirectionResult> round_direction(const std::optional<DirectionResult>& full) {
  if (!full) return std::nullopt;
  DirectionResult out;
  out.ios = full->ios;
  out.iops = full->iops;
  out.iops_per_second = full->iops_per_second;
  if (full->lat) {
    LatencySummary lat;
    lat.mean = full->lat->mean;
    for (const auto& tracked : kTrackedPercentiles) {
      if (const auto value = full->lat->percentile(tracked.key)) {
        if (!lat.percentiles) lat.percentiles.emplace();
        (*lat.percentiles)[std::string(tracked.key)] = *value;
      }
    }
    out.lat = std::move(lat);
  }
  return out;
}

// The object with the fields the list names written over what was kept verbatim.
template <typename Struct, typename Fields>
Json write_fields(const Struct& value, Fields fields) {
  Json out = value.verbatim;
  fields(value, [&](const char* key, const auto& member, auto) { put(out, key, member); });
  return out;
}

// Each field the list names taken out of the struct's verbatim copy of the object.
template <typename Struct, typename Fields>
void read_fields(Struct& value, Fields fields) {
  fields(value, [&](const char* key, auto& member, auto convert) {
    member = take(value.verbatim, key, convert);
  });
}

// The members ProbeJob::to_json writes besides the name, and so the ones it gives back.
constexpr std::array<const char*, 11> kIdentityKeys = {
    "workload",        "engine", "rw",        "bs",        "iodepth", "batch",
    "completion_wait", "ramp_s", "runtime_s", "rwmixread", "like_fio"};

}  // namespace

std::optional<uint64_t> LatencySummary::percentile(std::string_view key) const {
  if (!percentiles) return std::nullopt;
  const auto it = percentiles->find(std::string(key));
  return it != percentiles->end() ? std::optional(it->second) : std::nullopt;
}

std::vector<uint64_t> LatencySummary::per_second_of(std::string_view key) const {
  if (!per_second) return {};
  const auto it = per_second->find(std::string(key));
  return it != per_second->end() ? it->second : std::vector<uint64_t>{};
}

Json LatencySummary::to_json() const {
  return write_fields(*this, [](auto& self, auto visit) { latency_fields(self, visit); });
}

LatencySummary LatencySummary::from_json(const Json& object) {
  LatencySummary out;
  out.verbatim = object;
  read_fields(out, [](auto& self, auto visit) { latency_fields(self, visit); });
  return out;
}

LatencySummary LatencySummary::of(const LatencyHistogram& histogram) {
  LatencySummary out;
  out.min = histogram.min();
  out.max = histogram.max();
  out.mean = histogram.mean();
  out.stddev = histogram.stddev();
  out.percentiles.emplace();
  for (const double p : kReportedPercentiles)
    (*out.percentiles)[percentile_key(p)] = histogram.percentile(p);
  return out;
}

PerSecondIops PerSecondIops::of_counts(const std::vector<uint64_t>& counts) {
  PerSecondIops out;
  out.samples.emplace(counts.begin(), counts.end());
  if (counts.empty()) return out;
  std::vector<uint64_t> sorted = counts;
  std::sort(sorted.begin(), sorted.end());
  const size_t middle = sorted.size() / 2;
  out.min = static_cast<double>(sorted.front());
  out.max = static_cast<double>(sorted.back());
  out.median = sorted.size() % 2 == 1
                   ? static_cast<double>(sorted[middle])
                   : static_cast<double>(sorted[middle - 1] + sorted[middle]) / 2.0;
  return out;
}

Json PerSecondIops::to_json() const {
  Json out = verbatim;
  const auto figure = [&](double value) {
    return whole_counts ? Json(static_cast<uint64_t>(value)) : Json(value);
  };
  if (min) out["min"] = figure(*min);
  if (max) out["max"] = figure(*max);
  put(out, "median", median);
  if (samples) {
    out["samples"] = Json::array();
    for (const double sample : *samples)
      out["samples"].push_back(figure(sample));
  }
  return out;
}

PerSecondIops PerSecondIops::from_json(const Json& object) {
  PerSecondIops out;
  out.verbatim = object;
  out.median = take(out.verbatim, "median", as_measure);
  // Whole counts when every figure present is one; then a float among them is not taken.
  const auto count = [](const Json& value) { return as_count(value).has_value(); };
  for (const char* key : {"min", "max"}) {
    if (object.contains(key) && !count(object[key])) out.whole_counts = false;
  }
  if (object.contains("samples") && object["samples"].is_array()) {
    const Json& list = object["samples"];
    if (!std::all_of(list.begin(), list.end(), count)) out.whole_counts = false;
  }
  const auto figure = [&](const Json& value) -> std::optional<double> {
    if (out.whole_counts) {
      const auto whole = as_count(value);
      return whole ? std::optional(static_cast<double>(*whole)) : std::nullopt;
    }
    return as_measure(value);
  };
  out.min = take(out.verbatim, "min", figure);
  out.max = take(out.verbatim, "max", figure);
  out.samples =
      take(out.verbatim, "samples", [&](const Json& value) { return as_list(value, figure); });
  return out;
}

Json DirectionResult::to_json() const {
  return write_fields(*this, [](auto& self, auto visit) { direction_fields(self, visit); });
}

DirectionResult DirectionResult::from_json(const Json& object) {
  DirectionResult out;
  out.verbatim = object;
  read_fields(out, [](auto& self, auto visit) { direction_fields(self, visit); });
  return out;
}

const DirectionResult* RoundResult::main_direction() const {
  return main_of(read, write);
}

Json RoundResult::to_json() const {
  return write_fields(*this, [](auto& self, auto visit) { round_fields(self, visit); });
}

RoundResult RoundResult::from_json(const Json& object) {
  RoundResult out;
  out.verbatim = object;
  read_fields(out, [](auto& self, auto visit) { round_fields(self, visit); });
  return out;
}

const DirectionResult* JobResult::main_direction() const {
  return main_of(read, write);
}

RoundResult JobResult::round_summary(uint64_t index) const {
  RoundResult out;
  out.round = index;
  out.elapsed_s = elapsed_s;
  out.read = round_direction(read);
  out.write = round_direction(write);
  if (status_or_ok() != "ok") out.verbatim["status"] = status_or_ok();
  return out;
}

Json JobResult::header_json() const {
  const Json identity = job ? job->to_json() : verbatim;
  Json out = {{"name", name}};
  for (const char* key : {"engine", "rw", "bs", "iodepth"}) {
    if (identity.contains(key)) out[key] = identity[key];
  }
  return out;
}

JobFacts JobResult::facts() const {
  JobFacts out;
  if (job) {
    out.polled = job->engine.polled();
    out.writes = job->rw == Pattern::kWrite || job->rw == Pattern::kRandWrite;
    out.sequential = !pattern_random(job->rw);
    out.mixed = job->rw == Pattern::kRandRw;
    out.iodepth = job->effective_iodepth();
    out.variant = job->variant();
    return out;
  }
  const std::string engine = text_member(verbatim, "engine");
  const std::string rw = text_member(verbatim, "rw");
  out.polled =
      engine.find("iopoll") != std::string::npos || engine.find("hipri") != std::string::npos;
  out.writes = rw.find("write") != std::string::npos;
  out.sequential = rw == "read" || rw == "write";
  out.mixed = rw.find("rw") != std::string::npos;
  out.iodepth = number_member(verbatim, "iodepth");
  return out;
}

Json JobResult::to_json() const {
  Json out = write_fields(*this, [](auto& self, auto visit) { outcome_fields(self, visit); });
  if (job) out.update(job->to_json());
  if (!name.empty() || job) out["name"] = name;
  return out;
}

Result<JobResult> JobResult::from_json(const Json& entry) {
  if (!entry.is_object()) return content_error("probe job: not an object");
  JobResult out;
  out.verbatim = entry;
  out.name = take(out.verbatim, "name", as_text).value_or("");
  if (auto job = ProbeJob::from_json(entry)) {
    out.job = *job;
    for (const char* key : kIdentityKeys) {
      if (std::string_view(key) != "rwmixread" || job->rw == Pattern::kRandRw) {
        out.verbatim.erase(key);
      }
    }
  }
  read_fields(out, [](auto& self, auto visit) { outcome_fields(self, visit); });
  return out;
}

}  // namespace kdrift
