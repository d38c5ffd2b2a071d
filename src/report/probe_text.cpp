#include "report/probe_text.h"

#include <cstdio>
#include <sstream>

#include "report/text_table.h"
#include "report/trace_text.h"

namespace kdrift {
namespace {

std::string micros(const Json& direction, const char* percentile) {
  const Json* value = at(direction, {"clat_ns", "percentile", percentile});
  if (value == nullptr || !value->is_number()) return "-";
  return fixed(value->get<double>() / 1000.0, 1);
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

// A job that ran: both directions' IOPS and bandwidth summed, latency from the one that did I/O.
std::vector<std::string> measured_row(const Json& job, const std::string& name,
                                      const std::string& status) {
  double iops = 0;
  double bandwidth = 0;
  const Json* main_direction = nullptr;
  for (const char* direction : {"read", "write"}) {
    if (const Json* stats = at(job, {direction})) {
      iops += number_at(*stats, {"iops"}).value_or(0);
      bandwidth += number_at(*stats, {"bw_bytes"}).value_or(0);
      if (main_direction == nullptr || number_at(*stats, {"ios"}).value_or(0) > 0)
        main_direction = stats;
    }
  }
  const Json empty = Json::object();
  const Json& latency = main_direction != nullptr ? *main_direction : empty;
  const Json* disk = at(job, {"diskstats"});
  return {
      name,
      status,
      count_text(iops),
      fixed(bandwidth / (1 << 20), 1),
      micros(latency, "50.000000"),
      micros(latency, "99.000000"),
      micros(latency, "99.900000"),
      fixed(number_at(job, {"cpu", "usr_pct"}).value_or(0), 1),
      fixed(number_at(job, {"cpu", "sys_pct"}).value_or(0), 1),
      fixed(number_at(job, {"submit", "ios_per_call"}).value_or(0), 1),
      disk != nullptr ? fixed(number_at(*disk, {"avg_request_bytes"}).value_or(0) / 1024, 1) : "-",
      disk != nullptr ? fixed(100 * number_at(*disk, {"merge_ratio"}).value_or(0), 0) : "-"};
}

void job_table(std::ostream& out, const Json& jobs, const Style& style) {
  out << "\n" << style.bold << "Jobs" << style.reset << " (latency: completion, microseconds)\n";
  Table table({"job", "status", "IOPS", "MiB/s", "p50", "p99", "p99.9", "usr%", "sys%", "ios/call",
               "dev KiB/req", "merged%"});
  std::vector<std::string> notes;
  for (const auto& job : jobs) {
    const std::string name = text_at(job, {"name"});
    const std::string status = text_at(job, {"status"});
    if (status == "skipped") notes.push_back(name + ": skipped, " + text_at(job, {"reason"}));
    if (status == "failed") notes.push_back(name + ": " + text_at(job, {"failure", "cause"}));
    if (const Json* doubt = at(job, {"polling_doubt"}))
      notes.push_back(name + ": " + text_of(*doubt));
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
