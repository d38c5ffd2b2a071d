#include "iobench/fio_import.h"

#include <array>
#include <map>
#include <set>

#include "collect/facts.h"
#include "iobench/fio_json_locate.h"
#include "iobench/fio_options.h"
#include "iobench/fio_units.h"
#include "snapshot/json_access.h"
#include "util/bounded_json.h"
#include "util/input_file.h"
#include "util/text.h"
#include "util/units.h"

namespace kdrift {
namespace {

// fio's output nests 7 levels (jobs[].read.clat_ns.percentile.N) and each file in
// tests/fixtures/fio holds 250 values in 6.5 KB; --output-format=json+ adds up to ~1,900
// latency bins (~30 KB) per job and direction. A million values and 32 MiB admit json+ output
// of 250 jobs that both read and write, every bin filled; 32 levels is four times fio's depth.
// A hostile file (a percentile nested 500,000 deep, millions of empty arrays) is refused while
// parsing, before it can exhaust the stack or the memory of what reads it.
constexpr size_t kMaxFioOutputBytes = size_t{32} << 20;
constexpr JsonLimits kFioLimits{.max_depth = 32, .max_values = 1'000'000};

// fio's directions; "mixed" is what unified_rw_reporting writes instead of read and write.
constexpr std::array<const char*, 4> kDirections = {"read", "write", "trim", "mixed"};

// fio's engine flags that kdrift's engine label spells. io_uring_cmd (NVMe passthrough) takes
// io_uring's options.
struct EngineFlag {
  const char* engine;
  const char* option;
  const char* label;
};
constexpr std::array<EngineFlag, 9> kEngineFlags = {{{"io_uring", "hipri", "+iopoll"},
                                                     {"io_uring", "sqthread_poll", "+sqpoll"},
                                                     {"io_uring", "fixedbufs", "+fixedbufs"},
                                                     {"io_uring", "registerfiles", "+regfiles"},
                                                     {"io_uring_cmd", "hipri", "+iopoll"},
                                                     {"io_uring_cmd", "sqthread_poll", "+sqpoll"},
                                                     {"io_uring_cmd", "fixedbufs", "+fixedbufs"},
                                                     {"io_uring_cmd", "registerfiles", "+regfiles"},
                                                     {"pvsync2", "hipri", "+hipri"}}};

// fio's engine and its flags as kdrift's engine label. A flag the file leaves unknown is named
// beside the label: the label says only what the file shows.
void put_engine(Json& job, const FioOptions& options) {
  const auto ioengine = options.get({"ioengine"});
  if (!ioengine) return mark_unavailable(job, "engine", options.why_absent());
  std::string engine = *ioengine;
  std::string unknown;
  std::string why;
  for (const auto& [name, option, label] : kEngineFlags) {
    if (*ioengine != name) continue;
    const auto flag = options.flag(option);
    if (flag.state == FioFlag::kSet) engine += label;
    if (flag.state != FioFlag::kUnknown) continue;
    unknown += (unknown.empty() ? "" : ", ") + std::string(option);
    why = flag.why_unknown;
  }
  job["engine"] = engine;
  if (!unknown.empty()) {
    mark_unavailable(job, "engine_flags",
                     "whether " + unknown +
                         (unknown.find(',') == std::string::npos ? " was" : " were") +
                         " set: " + why);
  }
}

// An option that is a number (iodepth, numjobs, ...) into job[key], or why it is not known.
// Only what the options state is read: fio's defaults changed between versions.
void put_count_option(Json& job, const char* key, std::initializer_list<const char*> names,
                      const FioOptions& options, const char* is_not) {
  const auto text = options.get(names);
  const auto count = text ? parse_uint(*text) : std::nullopt;
  if (count && *count > 0) {
    job[key] = *count;
  } else if (text) {
    mark_unavailable(job, key, std::string(key) + "=" + quote_value(*text) + " is not " + is_not);
  } else {
    mark_unavailable(job, key, options.why_absent());
  }
}

// engine, rw, bs, iodepth as the options state them; what they do not state is named
// unavailable, never filled with a default.
void put_identity(Json& job, const FioOptions& options) {
  put_engine(job, options);
  if (const auto rw = options.get({"rw", "readwrite"})) {
    job["rw"] = *rw;
  } else {
    mark_unavailable(job, "rw", options.why_absent());
  }
  // rwmixread=0 (all writes) is a share, not a count.
  if (const auto mix = options.get({"rwmixread"}); mix && parse_uint(*mix)) {
    job["rwmixread"] = *parse_uint(*mix);
  } else if (mix) {
    mark_unavailable(job, "rwmixread", "rwmixread=" + quote_value(*mix) + " is not a share");
  }
  const auto bs = options.get({"bs", "blocksize"});
  if (bs && parse_size(*bs)) {
    job["bs"] = *parse_size(*bs);
  } else {
    mark_unavailable(job, "bs",
                     bs ? "bs=" + quote_value(*bs) + " is not one size" : options.why_absent());
  }
  put_count_option(job, "iodepth", {"iodepth"}, options, "a count");
}

// numjobs and group_reporting. Where the file does not say group_reporting (fio before 3.39
// leaves out --group_reporting given without a value), what fio did is still visible: numjobs
// clones reported as one entry were summed, as many entries as clones were reported one by one.
// Not where the global options are unknown: there several clients share one name (one server
// given twice), and the entries of a job name are no longer one job's clones. Only a job with
// clones (numjobs above 1) reported one by one names its clone.
void put_clones(Json& job, const FioOptions& options, size_t entries, size_t index) {
  put_count_option(job, "numjobs", {"numjobs"}, options, "a count fio takes");
  const uint64_t numjobs = job.value("numjobs", uint64_t{0});  // 0: not known
  const auto stated = options.get({"group_reporting"});
  const auto flag = options.flag("group_reporting");
  if (stated && flag.state != FioFlag::kUnknown) {
    job["group_reporting"] = flag.state == FioFlag::kSet;
  } else if (numjobs > 1 && entries == 1 && options.global_known()) {
    job["group_reporting"] = true;
  } else if (numjobs > 1 && entries == numjobs && options.global_known()) {
    job["group_reporting"] = false;
  } else if (flag.state != FioFlag::kUnknown) {
    job["group_reporting"] = false;  // fio 3.39 on writes it when given: not given
  } else {
    mark_unavailable(job, "group_reporting", stated ? flag.why_unknown : options.why_absent());
  }
  if (numjobs > 1 && job.value("group_reporting", true) == false) {
    job["clone"] = index + 1;
  }
}

std::optional<uint64_t> in_ns(const Json& section, const char* key, uint64_t ns_per_unit) {
  const auto value = count_member(section, key);
  if (!value || *value > UINT64_MAX / ns_per_unit) return std::nullopt;
  return *value * ns_per_unit;
}

// fio's percentiles in nanoseconds; 2.x pads its list with "0.00": 0 entries, which are none.
Json percentiles(const Json& fio_percentiles, uint64_t ns_per_unit) {
  Json out = Json::object();
  for (const auto& [key, value] : fio_percentiles.items()) {
    const auto p = parse_double(key);
    const auto figure = json_take::as_count(value);
    if (!p || *p <= 0 || *p > 100 || !figure || *figure > UINT64_MAX / ns_per_unit) continue;
    out[key] = *figure * ns_per_unit;
  }
  return out;
}

// Why a latency section fio wrote holds no measurement: fio writes zeros (3.x with N = 0) when it
// did not time that stage, rather than leaving the section out.
std::optional<std::string> not_measured(const Json& section, bool gtod_reduce) {
  const auto samples = count_member(section, "N");
  const bool zeros = count_member(section, "max").value_or(0) == 0 &&
                     number_member(section, "mean").value_or(0) == 0;
  if (samples ? *samples > 0 : !zeros) return std::nullopt;
  if (gtod_reduce) return "not measured: gtod_reduce=1 stops fio timing each I/O";
  return samples ? "not measured: fio counted 0 samples (this engine does not time it)"
                 : "not measured: fio reported 0 for max and mean";
}

// slat_ns, clat_ns or lat_ns of a direction in nanoseconds, or why there is none.
void put_latency(Json& out, const Json& fio_direction, const char* name, bool gtod_reduce) {
  const std::string key = std::string(name) + "_ns";
  const auto source = fio_latency(fio_direction, name);
  if (!source) return mark_unavailable(out, key, kFioNotInOutput);
  const Json& section = *source->section;
  if (const auto why = not_measured(section, gtod_reduce)) return mark_unavailable(out, key, *why);
  const uint64_t unit = source->ns_per_unit;
  Json latency = Json::object();
  if (const auto min = in_ns(section, "min", unit)) latency["min"] = *min;
  if (const auto max = in_ns(section, "max", unit)) latency["max"] = *max;
  if (const auto mean = number_member(section, "mean")) latency["mean"] = *mean * unit;
  if (const auto dev = number_member(section, "stddev")) latency["stddev"] = *dev * unit;
  if (const auto samples = count_member(section, "N")) latency["count"] = *samples;
  if (const Json* list = object_member(section, "percentile")) {
    latency["percentile"] = percentiles(*list, unit);
  }
  if (const Json* bins = member(section, "bins")) {
    auto histogram = fio_histogram(*bins, unit);
    if (histogram) {
      if (!latency.contains("count")) latency["count"] = (*histogram)["count"];
      latency["buckets"] = std::move((*histogram)["buckets"]);
    } else {
      mark_unavailable(latency, "buckets", "fio's bins unreadable: " + histogram.error().context);
    }
  }
  out[key] = std::move(latency);
}

// fio's IOPS samples (one per iops_avg_time, 500 ms unless set): their mean is a mean.
Json iops_samples(const Json& fio_direction) {
  Json out = Json::object();
  for (const auto& [key, fio_key] :
       std::array<std::pair<const char*, const char*>, 4>{{{"min", "iops_min"},
                                                           {"max", "iops_max"},
                                                           {"mean", "iops_mean"},
                                                           {"stddev", "iops_stddev"}}}) {
    if (const auto value = number_member(fio_direction, fio_key)) out[key] = *value;
  }
  if (const auto count = count_member(fio_direction, "iops_samples")) out["count"] = *count;
  return out;
}

bool did_io(const Json& fio_direction) {
  return count_member(fio_direction, "total_ios").value_or(0) > 0 ||
         count_member(fio_direction, "io_bytes").value_or(0) > 0;
}

Json direction(const Json& fio_direction, FioEra era, bool gtod_reduce) {
  Json out = Json::object();
  if (const auto ios = count_member(fio_direction, "total_ios")) {
    out["ios"] = *ios;
  } else {
    mark_unavailable(out, "ios", kFioNotInOutput);
  }
  if (const auto bytes = fio_io_bytes(fio_direction, era)) out["bytes"] = *bytes;
  if (const auto iops = number_member(fio_direction, "iops")) out["iops"] = *iops;
  if (const auto bw = fio_bw_bytes(fio_direction)) out["bw_bytes"] = *bw;
  if (const auto runtime_ms = number_member(fio_direction, "runtime")) {
    out["runtime_s"] = *runtime_ms / 1000;
  }
  for (const char* key : {"bytes", "iops", "bw_bytes", "runtime_s"}) {
    if (!out.contains(key)) mark_unavailable(out, key, kFioNotInOutput);
  }
  for (const char* name : {"slat", "clat", "lat"})
    put_latency(out, fio_direction, name, gtod_reduce);
  if (fio_direction.contains("iops_min")) {
    out["iops_samples"] = iops_samples(fio_direction);
  } else {
    mark_unavailable(out, "iops_samples", kFioNotInOutput);
  }
  return out;
}

// status, failure and cpu as fio reported them.
void put_outcome(Json& job, const Json& fio_job) {
  if (const auto error = integer_member(fio_job, "error")) {
    job["status"] = *error == 0 ? "ok" : "failed";
    if (*error != 0) job["failure"] = {{"errno", *error}, {"error", "reported by fio"}};
  } else {
    mark_unavailable(job, "status", kFioNotInOutput);
  }
  const auto usr = number_member(fio_job, "usr_cpu");
  const auto sys = number_member(fio_job, "sys_cpu");
  if (usr && sys) {
    job["cpu"] = {{"usr_pct", *usr}, {"sys_pct", *sys}};
  } else {
    mark_unavailable(job, "cpu", kFioNotInOutput);
  }
}

// elapsed_s: the longest runtime of the directions that did I/O, or why there is none.
void put_directions(Json& job, const Json& fio_job, FioEra era, bool gtod_reduce) {
  bool any = false;
  std::optional<double> elapsed_s;
  for (const char* key : kDirections) {
    const Json* stats = object_member(fio_job, key);
    if (stats == nullptr || !did_io(*stats)) continue;
    any = true;
    job[key] = direction(*stats, era, gtod_reduce);
    if (const auto runtime_s = number_member(job[key], "runtime_s")) {
      elapsed_s = std::max(elapsed_s.value_or(0), *runtime_s);
    }
  }
  if (elapsed_s) {
    job["elapsed_s"] = *elapsed_s;
  } else {
    mark_unavailable(job, "elapsed_s",
                     any ? "fio reported no runtime" : "fio reported no I/O in any direction");
  }
}

// What naming a job needs to know of the file's whole list of entries.
struct Roster {
  using Group = std::pair<std::string, FioClient>;  // a job name on a client
  std::map<Group, size_t> per_group;
  std::map<FioClient, size_t> per_client;
  // Hostnames of more than one client (servers on one host, on different ports): their jobs'
  // names carry the port.
  std::set<std::string> shared_hostnames;
};

bool is_all_clients_sum(const Json& fio_job, bool client_server) {
  return client_server && fio_job.is_object() &&
         text_member(fio_job, "jobname") == kFioAllClientsJob;
}

Roster roster_of(const Json& fio_jobs, bool client_server) {
  Roster out;
  std::map<std::string, FioClient> first_of_host;
  for (const auto& fio_job : fio_jobs) {
    if (!fio_job.is_object() || is_all_clients_sum(fio_job, client_server)) continue;
    const FioClient client = FioClient::of(fio_job);
    ++out.per_group[{text_member(fio_job, "jobname"), client}];
    ++out.per_client[client];
    const auto [it, added] = first_of_host.try_emplace(client.hostname, client);
    if (!added && it->second.port != client.port) out.shared_hostnames.insert(client.hostname);
  }
  return out;
}

// The name diff pairs jobs by: fio's job name, with the client for client/server output and the
// clone for numjobs reported one by one; a name still taken gets "#2", "#3", ...
void name_job(Json& job, const FioClient& client, const Roster& roster,
              std::map<std::string, int>& taken) {
  std::string name = job["workload"].get<std::string>();
  if (!client.hostname.empty()) {
    name += " @" + client.label(roster.shared_hostnames.count(client.hostname) > 0);
  }
  if (job.contains("clone")) {
    name += " (clone " + std::to_string(job["clone"].get<uint64_t>()) + " of " +
            std::to_string(job["numjobs"].get<uint64_t>()) + ")";
  }
  const int seen = ++taken[name];
  if (seen > 1) name += " #" + std::to_string(seen);
  job["name"] = name;
}

struct Entries {
  const Json* list = nullptr;
  bool client_server = false;
};

Entries entries_of(const Json& document) {
  if (const Json* jobs = array_member(document, "jobs")) return {jobs, false};
  return {array_member(document, "client_stats"), true};
}

// What import_job reads of the document beside the job.
struct DocumentContext {
  const FioGlobalOptions& global;
  FioEra era;
  const std::string& source;
  const Roster& roster;
};

// What the jobs imported so far took: clone indexes and names.
struct Taken {
  std::map<Roster::Group, size_t> clones;
  std::map<std::string, int> names;
};

Result<Json> import_job(const Json& fio_job, const DocumentContext& document, Taken& taken) {
  const std::string& source = document.source;
  if (!fio_job.is_object()) return content_error(source + ": a job is not an object");
  if (fio_job.contains("jobname") && !fio_job["jobname"].is_string()) {
    return content_error(source + ": a jobname is not a string");
  }
  const auto jobname = text_member(fio_job, "jobname");
  const Json options_table = fio_job.value("job options", Json::object());
  if (auto checked =
          check_fio_options(options_table, source + ": job options of " + quote_value(jobname));
      !checked) {
    return checked.error();
  }
  const FioOptions options = document.global.for_job(fio_job, options_table);
  Json job = {{"workload", jobname}};
  const FioClient client = FioClient::of(fio_job);
  if (!client.hostname.empty()) job["host"] = client.hostname;
  if (client.port) job["port"] = *client.port;
  put_identity(job, options);
  const Roster::Group group{jobname, client};
  put_clones(job, options, document.roster.per_group.at(group), taken.clones[group]++);
  put_outcome(job, fio_job);
  put_directions(job, fio_job, document.era, options.flag("gtod_reduce").state == FioFlag::kSet);
  name_job(job, client, document.roster, taken.names);
  return job;
}

// json+ is json with each latency section's histogram bins.
bool has_bins(const Json& fio_jobs) {
  for (const auto& fio_job : fio_jobs) {
    for (const char* direction : kDirections) {
      const Json* stats = fio_job.is_object() ? object_member(fio_job, direction) : nullptr;
      if (stats == nullptr) continue;
      for (const char* name : {"slat", "clat", "lat"}) {
        const auto source = fio_latency(*stats, name);
        if (source && source->section->contains("bins")) return true;
      }
    }
  }
  return false;
}

// What the file says about itself, and how it was read.
Json provenance(const Json& document, const LocatedFioJson& located, bool client_server) {
  Json out = {{"tool", "fio"},
              {"layout", client_server ? "client_stats" : "jobs"},
              {"surrounded_by_text", located.surrounded_by_text},
              {"format", has_bins(*entries_of(document).list) ? "json+" : "json"}};
  if (located.earlier_documents > 0) out["earlier_reports"] = located.earlier_documents;
  if (const auto version = string_at(document, {"fio version"})) {
    out["version"] = *version;
  } else {
    mark_unavailable(out, "version", kFioNotInOutput);
  }
  if (const auto timestamp = integer_member(document, "timestamp")) {
    out["timestamp"] = *timestamp;
  } else {
    mark_unavailable(out, "timestamp", kFioNotInOutput);
  }
  return out;
}

Result<Json> import_document(std::string_view text, const std::string& source) {
  auto located = locate_fio_json(text, source, kFioLimits);
  if (!located) return located.error();
  const Json& document = located->document;
  const Entries entries = entries_of(document);
  const Roster roster = roster_of(*entries.list, entries.client_server);
  const auto global = FioGlobalOptions::read(document, roster.per_client, source);
  if (!global) return global.error();
  const DocumentContext context{*global, fio_era(document), source, roster};
  Taken taken;
  Json jobs = Json::array();
  Json skipped = Json::array();
  for (const auto& fio_job : *entries.list) {
    if (is_all_clients_sum(fio_job, entries.client_server)) {
      skipped.push_back({{"jobname", kFioAllClientsJob},
                         {"reason",
                          "fio's sum over every client's jobs; each client's own "
                          "jobs are imported under their host"}});
      continue;
    }
    auto job = import_job(fio_job, context, taken);
    if (!job) return job.error();
    jobs.push_back(std::move(*job));
  }
  Json section = {{"profile", {{"name", "fio"}, {"source", source}}},
                  {"imported_from", provenance(document, *located, entries.client_server)},
                  {"jobs", std::move(jobs)}};
  if (!skipped.empty()) section["skipped"] = std::move(skipped);
  return section;
}

}  // namespace

Result<Json> import_fio(std::string_view text, const std::string& source) {
  try {
    return import_document(text, source);
  } catch (const Json::exception& error) {
    // A field of an unexpected type in a hand-edited or foreign file.
    return content_error(source + ": unexpected fio JSON: " + error.what());
  }
}

Result<Json> import_fio_file(const std::string& path) {
  auto text = read_whole_file(path, kMaxFioOutputBytes);
  if (!text) return text.error();
  return import_fio(*text, path);
}

}  // namespace kdrift
