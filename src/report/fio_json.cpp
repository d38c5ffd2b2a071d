#include "report/fio_json.h"

#include <algorithm>
#include <ctime>

#include "report/text_table.h"
#include "snapshot/json_access.h"

namespace kdrift {
namespace {

// A snapshot from elsewhere may hold any number where kdrift writes a count: one that is not a
// whole number within uint64_t reads as 0, since converting it would be undefined behaviour.
uint64_t whole(double value) {
  return value >= 0 && value < 18446744073709551616.0 ? static_cast<uint64_t>(value) : 0;
}

Json latency(const Json& direction, const char* key, bool with_percentiles, uint64_t ios) {
  Json out = {{"min", 0}, {"max", 0}, {"mean", 0.0}, {"stddev", 0.0}, {"N", ios}};
  const auto it = direction.find(key);
  if (it == direction.end()) return out;
  out["min"] = count_member(*it, "min").value_or(0);
  out["max"] = count_member(*it, "max").value_or(0);
  out["mean"] = number_member(*it, "mean").value_or(0.0);
  out["stddev"] = number_member(*it, "stddev").value_or(0.0);
  if (with_percentiles) out["percentile"] = it->value("percentile", Json::object());
  return out;
}

Json direction(const Json& job, const char* key, double elapsed_s) {
  const Json stats = job.value(key, Json::object());
  const auto ios = count_member(stats, "ios").value_or(0);
  const auto bytes = count_member(stats, "bytes").value_or(0);
  const Json samples = stats.value("iops_per_second", Json::object());
  return {{"io_bytes", bytes},
          {"io_kbytes", bytes / 1024},
          {"bw_bytes", whole(number_member(stats, "bw_bytes").value_or(0.0))},
          {"bw", whole(number_member(stats, "bw_bytes").value_or(0.0) / 1024)},
          {"iops", number_member(stats, "iops").value_or(0.0)},
          {"runtime", whole(elapsed_s * 1000)},
          {"total_ios", ios},
          {"short_ios", 0},
          {"drop_ios", 0},
          {"slat_ns", latency(stats, "slat_ns", false, ios)},
          {"clat_ns", latency(stats, "clat_ns", true, ios)},
          {"lat_ns", latency(stats, "lat_ns", true, ios)},
          {"iops_min", count_member(samples, "min").value_or(0)},
          {"iops_max", count_member(samples, "max").value_or(0)},
          {"iops_mean", number_member(samples, "median").value_or(0.0)},
          {"iops_samples", samples.value("samples", Json::array()).size()}};
}

}  // namespace

Json render_fio_json(const Json& probe, const std::string& tool_version) {
  const std::time_t now = std::time(nullptr);
  char time_text[32];
  Json jobs = Json::array();
  Json disks = Json::object();  // device -> summed counters over all jobs
  double total_elapsed_ms = 0;
  for (const auto& job : probe.value("jobs", Json::array())) {
    const double elapsed_s = number_member(job, "elapsed_s").value_or(0.0);
    const Json cpu = job.value("cpu", Json::object());
    const Json failure = job.value("failure", Json::object());
    Json entry = {{"jobname", job.value("name", std::string())},
                  {"groupid", 0},
                  {"error", integer_member(failure, "errno").value_or(0)},
                  {"job options",
                   {{"ioengine", job.value("engine", std::string())},
                    {"rw", job.value("rw", std::string())},
                    {"bs", std::to_string(count_member(job, "bs").value_or(0))},
                    {"iodepth", std::to_string(count_member(job, "iodepth").value_or(0))},
                    {"direct", "1"}}},
                  {"read", direction(job, "read", elapsed_s)},
                  {"write", direction(job, "write", elapsed_s)},
                  {"usr_cpu", number_member(cpu, "usr_pct").value_or(0.0)},
                  {"sys_cpu", number_member(cpu, "sys_pct").value_or(0.0)},
                  {"ctx", count_member(cpu, "voluntary_ctx").value_or(0) +
                              count_member(cpu, "involuntary_ctx").value_or(0)},
                  {"elapsed", whole(number_member(job, "runtime_s").value_or(0.0) +
                                    number_member(job, "ramp_s").value_or(0.0))},
                  {"kdrift_status", job.value("status", std::string())}};
    if (job.contains("reason")) entry["kdrift_reason"] = job["reason"];
    jobs.push_back(std::move(entry));
    if (const auto disk = job.find("diskstats"); disk != job.end()) {
      Json& sum = disks[disk->value("device", std::string("?"))];
      if (sum.is_null()) sum = Json::object();
      for (const auto& [from, to] : {std::pair{"reads", "read_ios"},
                                     {"writes", "write_ios"},
                                     {"read_merges", "read_merges"},
                                     {"write_merges", "write_merges"},
                                     {"read_ticks_ms", "read_ticks"},
                                     {"write_ticks_ms", "write_ticks"},
                                     {"time_in_queue_ms", "in_queue"},
                                     {"io_ticks_ms", "io_ticks"}}) {
        sum[to] = count_member(sum, to).value_or(0) + count_member(*disk, from).value_or(0);
      }
      total_elapsed_ms += elapsed_s * 1000;
    }
  }
  Json disk_util = Json::array();
  for (auto& [name, sum] : disks.items()) {
    sum["name"] = name;
    const double busy = static_cast<double>(count_member(sum, "io_ticks").value_or(0));
    sum["util"] = total_elapsed_ms > 0 ? std::min(100.0, 100 * busy / total_elapsed_ms) : 0.0;
    disk_util.push_back(sum);
  }
  return {{"fio version", "kdrift-" + tool_version},
          {"timestamp", static_cast<int64_t>(now)},
          {"time", std::string(::ctime_r(&now, time_text)).substr(0, 24)},
          {"global options", {{"filename", raw_text_of(at(probe, {"target", "path"}), "?")}}},
          {"jobs", std::move(jobs)},
          {"disk_util", std::move(disk_util)}};
}

}  // namespace kdrift
