#include "model/job_result.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "model/json_fields.h"

namespace kdrift {
namespace {

using json_fields::as_count;
using json_fields::as_list;
using json_fields::as_measure;
using json_fields::as_text;
using json_fields::take;

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
  if (value) out[key] = *value;
}

template <typename Value>
void put_json(Json& out, const char* key, const std::optional<Value>& value) {
  if (value) out[key] = value->to_json();
}

// The members ProbeJob::to_json writes besides the name, and so the ones it gives back.
constexpr std::array<const char*, 10> kIdentityKeys = {
    "workload", "engine",          "rw",     "bs",        "iodepth",
    "batch",    "completion_wait", "ramp_s", "runtime_s", "rwmixread"};

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
  Json out = verbatim;
  put(out, "min", min);
  put(out, "max", max);
  put(out, "mean", mean);
  put(out, "stddev", stddev);
  put(out, "percentile", percentiles);
  put(out, "per_second", per_second);
  return out;
}

LatencySummary LatencySummary::from_json(const Json& object) {
  LatencySummary out;
  out.verbatim = object;
  out.min = take(out.verbatim, "min", as_count);
  out.max = take(out.verbatim, "max", as_count);
  out.mean = take(out.verbatim, "mean", as_measure);
  out.stddev = take(out.verbatim, "stddev", as_measure);
  out.percentiles = take(out.verbatim, "percentile",
                         [](const Json& value) { return as_map<uint64_t>(value, as_count); });
  out.per_second = take(out.verbatim, "per_second", [](const Json& value) {
    return as_map<std::vector<uint64_t>>(value, as_counts);
  });
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
  Json out = verbatim;
  put(out, "ios", ios);
  put(out, "bytes", bytes);
  put(out, "iops", iops);
  put(out, "bw_bytes", bw_bytes);
  put_json(out, "iops_per_second", iops_per_second);
  put_json(out, "slat_ns", slat);
  put_json(out, "clat_ns", clat);
  put_json(out, "lat_ns", lat);
  return out;
}

DirectionResult DirectionResult::from_json(const Json& object) {
  DirectionResult out;
  out.verbatim = object;
  out.ios = take(out.verbatim, "ios", as_count);
  out.bytes = take(out.verbatim, "bytes", as_count);
  out.iops = take(out.verbatim, "iops", as_measure);
  out.bw_bytes = take(out.verbatim, "bw_bytes", as_measure);
  out.iops_per_second = take(out.verbatim, "iops_per_second", as_object<PerSecondIops>);
  out.slat = take(out.verbatim, "slat_ns", as_object<LatencySummary>);
  out.clat = take(out.verbatim, "clat_ns", as_object<LatencySummary>);
  out.lat = take(out.verbatim, "lat_ns", as_object<LatencySummary>);
  return out;
}

const DirectionResult* JobResult::main_direction() const {
  const uint64_t reads = read ? read->ios.value_or(0) : 0;
  const uint64_t writes = write ? write->ios.value_or(0) : 0;
  if (read && (!write || reads >= writes)) return &*read;
  return write ? &*write : nullptr;
}

Json JobResult::header_json() const {
  const Json identity = job ? job->to_json() : verbatim;
  Json out = {{"name", name}};
  for (const char* key : {"engine", "rw", "bs", "iodepth"}) {
    if (identity.contains(key)) out[key] = identity[key];
  }
  return out;
}

Json JobResult::to_json() const {
  Json out = verbatim;
  if (job) out.update(job->to_json());
  if (!name.empty() || job) out["name"] = name;
  put(out, "status", status);
  put(out, "reason", reason);
  put(out, "elapsed_s", elapsed_s);
  put_json(out, "read", read);
  put_json(out, "write", write);
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
  out.status = take(out.verbatim, "status", as_text);
  out.reason = take(out.verbatim, "reason", as_text);
  out.elapsed_s = take(out.verbatim, "elapsed_s", as_measure);
  out.read = take(out.verbatim, "read", as_object<DirectionResult>);
  out.write = take(out.verbatim, "write", as_object<DirectionResult>);
  return out;
}

}  // namespace kdrift
