#include "report/fio_json.h"

#include <algorithm>
#include <ctime>

#include "report/text_table.h"
#include "snapshot/json_access.h"

namespace kdrift {
namespace {

double number(const Json& node, const char* key) {
  const auto it = node.find(key);
  return it != node.end() && it->is_number() ? it->get<double>() : 0.0;
}

// A snapshot from elsewhere may hold any number where kdrift writes a count: one that is not a
// whole number within uint64_t reads as 0, since converting it would be undefined behaviour.
uint64_t whole(double value) {
  return value >= 0 && value < 18446744073709551616.0 ? static_cast<uint64_t>(value) : 0;
}

uint64_t count(const Json& node, const char* key) {
  const auto it = node.find(key);
  if (it == node.end() || !it->is_number()) return 0;
  if (it->is_number_unsigned()) return it->get<uint64_t>();
  if (it->is_number_integer())
    return static_cast<uint64_t>(std::max<int64_t>(it->get<int64_t>(), 0));
  return whole(it->get<double>());
}

Json latency(const Json& direction, const char* key, bool with_percentiles, uint64_t ios) {
  Json out = {{"min", 0}, {"max", 0}, {"mean", 0.0}, {"stddev", 0.0}, {"N", ios}};
  const auto it = direction.find(key);
  if (it == direction.end()) return out;
  out["min"] = count(*it, "min");
  out["max"] = count(*it, "max");
  out["mean"] = number(*it, "mean");
  out["stddev"] = number(*it, "stddev");
  if (with_percentiles) out["percentile"] = it->value("percentile", Json::object());
  return out;
}

Json direction(const Json& job, const char* key, double elapsed_s) {
  const Json stats = job.value(key, Json::object());
  const auto ios = count(stats, "ios");
  const auto bytes = count(stats, "bytes");
  const Json samples = stats.value("iops_per_second", Json::object());
  return {{"io_bytes", bytes},
          {"io_kbytes", bytes / 1024},
          {"bw_bytes", whole(number(stats, "bw_bytes"))},
          {"bw", whole(number(stats, "bw_bytes") / 1024)},
          {"iops", number(stats, "iops")},
          {"runtime", whole(elapsed_s * 1000)},
          {"total_ios", ios},
          {"short_ios", 0},
          {"drop_ios", 0},
          {"slat_ns", latency(stats, "slat_ns", false, ios)},
          {"clat_ns", latency(stats, "clat_ns", true, ios)},
          {"lat_ns", latency(stats, "lat_ns", true, ios)},
          {"iops_min", count(samples, "min")},
          {"iops_max", count(samples, "max")},
          {"iops_mean", number(samples, "median")},
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
    const double elapsed_s = number(job, "elapsed_s");
    const Json cpu = job.value("cpu", Json::object());
    const Json failure = job.value("failure", Json::object());
    Json entry = {{"jobname", job.value("name", std::string())},
                  {"groupid", 0},
                  {"error", integer_member(failure, "errno").value_or(0)},
                  {"job options",
                   {{"ioengine", job.value("engine", std::string())},
                    {"rw", job.value("rw", std::string())},
                    {"bs", std::to_string(count(job, "bs"))},
                    {"iodepth", std::to_string(count(job, "iodepth"))},
                    {"direct", "1"}}},
                  {"read", direction(job, "read", elapsed_s)},
                  {"write", direction(job, "write", elapsed_s)},
                  {"usr_cpu", number(cpu, "usr_pct")},
                  {"sys_cpu", number(cpu, "sys_pct")},
                  {"ctx", count(cpu, "voluntary_ctx") + count(cpu, "involuntary_ctx")},
                  {"elapsed", whole(number(job, "runtime_s") + number(job, "ramp_s"))},
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
        sum[to] = count(sum, to) + count(*disk, from);
      }
      total_elapsed_ms += elapsed_s * 1000;
    }
  }
  Json disk_util = Json::array();
  for (auto& [name, sum] : disks.items()) {
    sum["name"] = name;
    const double busy = static_cast<double>(count(sum, "io_ticks"));
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
