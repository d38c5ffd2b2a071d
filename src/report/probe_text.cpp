#include "report/probe_text.h"

#include <cstdio>
#include <sstream>

#include "model/job_result.h"
#include "model/percentile_set.h"
#include "report/text_table.h"
#include "report/trace_text.h"

namespace kdrift {
namespace {

// A completion-latency percentile in microseconds, "-" when the job has none.
std::string micros(const DirectionResult* direction, std::string_view key) {
  const auto value =
      direction != nullptr && direction->clat ? direction->clat->percentile(key) : std::nullopt;
  if (!value) return "-";
  return fixed(static_cast<double>(*value) / 1000.0, 1);
}

struct Style {
  std::string bold;
  std::string reset;
};

void target_line(std::ostream& out, const Json& probe, const Style& style) {
  out << style.bold << "Probe" << style.reset << ": profile " << text_at(probe, {"profile", "name"})
      << " on " << text_at(probe, {"target", "path"}) << " (" << text_at(probe, {"target", "kind"});
  if (const Json* device = at(probe, {"target", "device", "name"}))
    out << ", device " << text_of(*device);
  if (const Json* node = at(probe, {"target", "numa_node"}); node != nullptr && !node->is_null()) {
    out << ", NUMA node " << text_of(*node);
  }
  out << ")\n";
  if (const Json& refusals = array_at(probe, {"target", "write_refusals"}); !refusals.empty()) {
    out << "  read-only:";
    for (const auto& reason : refusals)
      out << " " << text_of(reason) << ";";
    out << "\n";
  }
}

void capability_table(std::ostream& out, const Json& probe, const Style& style) {
  const Json* matrix = object_at(probe, {"capabilities"});
  if (matrix == nullptr) return;
  out << "\n"
      << style.bold << "What this boot can do" << style.reset
      << " (5 ms of canary reads per mode)\n";
  Table table({"mode", "status", "cause"});
  for (const auto& [mode, entry] : matrix->items()) {
    table.add({mode, text_at(entry, {"status"}), text_at(entry, {"cause"}, "")});
  }
  table.render(out);
}

// A job that ran: both directions' IOPS and bandwidth summed, latency from the one that did I/O
// (the write side of a mixed job), and the CPU and device columns as the snapshot holds them.
std::vector<std::string> measured_row(const Json& job, const std::string& name,
                                      const std::string& status) {
  const JobResult result = JobResult::from_json(job).value_or(JobResult{});
  double iops = 0;
  double bandwidth = 0;
  const DirectionResult* main_direction = nullptr;
  for (const auto* stats : {&result.read, &result.write}) {
    if (!stats->has_value()) continue;
    iops += (*stats)->iops.value_or(0);
    bandwidth += (*stats)->bw_bytes.value_or(0);
    if (main_direction == nullptr || (*stats)->ios.value_or(0) > 0) main_direction = &**stats;
  }
  std::vector<std::string> row = {name, status, count_text(iops), fixed(bandwidth / (1 << 20), 1)};
  for (const auto& percentile : kTrackedPercentiles)
    row.push_back(micros(main_direction, percentile.key));
  const Json* disk = at(job, {"diskstats"});
  for (std::string cell :
       {fixed(number_at(job, {"cpu", "usr_pct"}).value_or(0), 1),
        fixed(number_at(job, {"cpu", "sys_pct"}).value_or(0), 1),
        fixed(number_at(job, {"submit", "ios_per_call"}).value_or(0), 1),
        disk != nullptr ? fixed(number_at(*disk, {"avg_request_bytes"}).value_or(0) / 1024, 1)
                        : "-",
        disk != nullptr ? fixed(100 * number_at(*disk, {"merge_ratio"}).value_or(0), 0) : "-"}) {
    row.push_back(std::move(cell));
  }
  return row;
}

void job_table(std::ostream& out, const Json& jobs, const Style& style) {
  out << "\n" << style.bold << "Jobs" << style.reset << " (latency: completion, microseconds)\n";
  std::vector<std::string> columns = {"job", "status", "IOPS", "MiB/s"};
  for (const auto& percentile : kTrackedPercentiles)
    columns.emplace_back(percentile.label);
  columns.insert(columns.end(), {"usr%", "sys%", "ios/call", "dev KiB/req", "merged%"});
  Table table(std::move(columns));
  std::vector<std::string> notes;
  for (const auto& job : jobs) {
    const std::string name = text_at(job, {"name"});
    const std::string status = text_at(job, {"status"});
    if (status == "skipped") notes.push_back(name + ": skipped, " + text_at(job, {"reason"}));
    if (status == "failed") notes.push_back(name + ": " + text_at(job, {"failure", "cause"}));
    for (const char* note : {"polling_doubt", "cpu_bound"}) {
      if (const Json* text = at(job, {note})) notes.push_back(name + ": " + text_of(*text));
    }
    if (at(job, {"elapsed_s"}) == nullptr) {
      table.add({name, status});
    } else {
      table.add(measured_row(job, name, status));
    }
  }
  table.render(out);
  for (const auto& note : notes)
    out << "  * " << note << "\n";
}

}  // namespace

std::string render_probe_text(const Json& probe, bool colour) {
  const Style style{colour ? "\033[1m" : "", colour ? "\033[0m" : ""};
  std::ostringstream out;
  target_line(out, probe, style);
  capability_table(out, probe, style);
  const Json& jobs = array_at(probe, {"jobs"});
  job_table(out, jobs, style);
  std::string traces;
  for (const auto& job : jobs)
    traces += render_trace_text(job);
  if (!traces.empty()) {
    out << "\n"
        << style.bold << "What the block layer did" << style.reset << " (BPF, per job)\n"
        << traces;
  }
  return out.str();
}

}  // namespace kdrift
