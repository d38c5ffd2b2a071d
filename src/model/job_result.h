#pragma once
// A probe job's result as typed values: what a snapshot's probe.jobs[] entry holds
// (docs/snapshot.md). to_json and from_json are that entry's one definition: the probe builds a
// JobResult and writes it, diff, the reports and bisect read one back.
//
// Every typed member is optional because snapshots come from elsewhere too (older kdrift, fio's
// output through import-fio, hand edits): a member of another kind than the schema's is not typed
// and stays, with every member the model does not type, in the owning struct's `verbatim`
// object, so that to_json(from_json(entry)) gives the entry back.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/latency_histogram.h"
#include "model/probe_job.h"

namespace kdrift {

// One latency distribution of a direction: slat_ns, clat_ns or lat_ns, in fio's layout.
struct LatencySummary {
  std::optional<uint64_t> min;
  std::optional<uint64_t> max;
  std::optional<double> mean;
  std::optional<double> stddev;
  // fio's percentile key ("99.900000", kReportedPercentiles) -> nanoseconds.
  std::optional<std::map<std::string, uint64_t>> percentiles;
  // lat_ns of a job with one direction: each tracked percentile (kTrackedPercentiles, by key)
  // of every whole second that completed I/O.
  std::optional<std::map<std::string, std::vector<uint64_t>>> per_second;
  Json verbatim = Json::object();

  std::optional<uint64_t> percentile(std::string_view key) const;
  std::vector<uint64_t> per_second_of(std::string_view key) const;
  Json to_json() const;
  static LatencySummary from_json(const Json& object);
  // What the probe records: min, max, mean, stddev and fio's reported percentiles.
  static LatencySummary of(const LatencyHistogram& histogram);
};

// IOPS of every whole second of the measured window: kdrift's probe counts whole I/Os (written as
// integers); fio's min/mean/max rates, imported, are floats (median holds fio's mean, and there
// are no samples).
struct PerSecondIops {
  std::optional<double> min;
  std::optional<double> max;
  std::optional<double> median;
  std::optional<std::vector<double>> samples;
  // min, max and samples are whole counts, written as integers (kdrift's probe); else as read.
  bool whole_counts = true;
  Json verbatim = Json::object();

  Json to_json() const;
  static PerSecondIops from_json(const Json& object);
  // The probe's per-second counts: min, max and the median (of the middle two for an even count).
  static PerSecondIops of_counts(const std::vector<uint64_t>& counts);
};

// What one direction (read or write) of a job did over the measured window.
struct DirectionResult {
  std::optional<uint64_t> ios;
  std::optional<uint64_t> bytes;
  std::optional<double> iops;
  std::optional<double> bw_bytes;
  // Only when the job had one direction: the samples count both.
  std::optional<PerSecondIops> iops_per_second;
  std::optional<LatencySummary> slat;
  std::optional<LatencySummary> clat;
  std::optional<LatencySummary> lat;
  Json verbatim = Json::object();

  Json to_json() const;
  static DirectionResult from_json(const Json& object);
};

// One round of a job run several times (probe --rounds): which round, its measured window, and
// per direction its I/Os, IOPS and total latency (mean and the tracked percentiles). The job's
// entry is its median round in full; its rounds[] holds every round's figures in the order run.
struct RoundResult {
  std::optional<uint64_t> round;  // 1-based
  std::optional<double> elapsed_s;
  std::optional<DirectionResult> read;
  std::optional<DirectionResult> write;
  Json verbatim = Json::object();

  const DirectionResult* main_direction() const;
  Json to_json() const;
  static RoundResult from_json(const Json& object);
};

// What rules and reports ask of a job, typed once so that no reader takes a job's name, engine or
// pattern apart: from its ProbeJob for kdrift's own jobs. An entry that is not one (fio's,
// imported; an older kdrift's) has no ProbeJob: its facts are read from the engine and rw
// strings it records, as readers always read them, so fio's spellings keep their meaning
// ("readwrite" counts as writes, "rw" does not).
struct JobFacts {
  bool polled = false;  // completions polled: IOPOLL or RWF_HIPRI
  // A pattern of writes (write, randwrite): where write-path settings act. A mixed pattern
  // (randrw) has never counted here; ranking weighs it as it always has.
  bool writes = false;
  bool sequential = false;        // read or write
  bool mixed = false;             // reads and writes in one job: its directions are reported apart
  std::optional<double> iodepth;  // the effective depth, when recorded
  std::string variant;            // ProbeJob::variant(); empty for an imported job
};

struct JobResult {
  // The identity, when the entry is one of kdrift's jobs (ProbeJob::from_json accepts it); an
  // imported job's identity members stay in verbatim.
  std::optional<ProbeJob> job;
  // The name the job was recorded under, which diff pairs jobs by: job->name() for the probe's
  // own jobs (older ones included), the job name fio was given for imported ones.
  std::string name;
  std::optional<std::string> status;  // ok, failed, skipped
  std::optional<std::string> reason;  // why skipped
  std::optional<double> elapsed_s;    // the measured window; absent when nothing was measured
  std::optional<DirectionResult> read;
  std::optional<DirectionResult> write;
  // With several rounds: which one this entry is (the median by main-direction IOPS, or the
  // first that failed), and every round's summary.
  std::optional<uint64_t> round;
  std::optional<std::vector<RoundResult>> rounds;
  // The sections reports render as they are and nothing decides on (setup, failure, cpu,
  // submit, interrupts, diskstats, trace, polling_doubt, cpu_bound, unavailable): typing them would
  // only copy the writer's layout into a second place. They stay as the entry holds them.
  Json verbatim = Json::object();

  JobResult() = default;
  // A job the probe is about to run: its identity and recorded name.
  explicit JobResult(const ProbeJob& probe_job) : job(probe_job), name(probe_job.name()) {}

  // status, "ok" when absent (jobs imported from fio before failures were recorded).
  std::string status_or_ok() const { return status.value_or("ok"); }
  // The direction that carried the job's I/O: the one with more I/Os (read on a tie); null when
  // the job has neither.
  const DirectionResult* main_direction() const;
  // This result's figures as round `index` of several.
  RoundResult round_summary(uint64_t index) const;
  // name, engine, rw, bs and iodepth as the entry holds them (what identifies a job to people).
  Json header_json() const;
  JobFacts facts() const;

  Json to_json() const;
  // Any object reads (a member of another kind stays verbatim); anything else is an error.
  static Result<JobResult> from_json(const Json& entry);
};

}  // namespace kdrift
