#pragma once
// The fleet document (docs/fleet.md, schema kdrift.fleet/1) for a set of snapshots: the
// fingerprint groups with their host counts, the peer groups, the outliers ranked, the settings
// that split the fleet, and with --group the comparison of two groups of hosts.
//
// Snapshots are read once each, through the fleet's member filter, on a few reader threads
// (FleetRequest::readers), and folded into a FleetIndex in the order they were given;
// only the outliers' snapshots and their references are read again, whole, from the files the
// first read found (reopened by handle: a name swapped between the two reads changes nothing), to
// be judged by the rules as kdrift diff judges a pair: the reference (a host holding its peers'
// majority on every fact) as A, the outlier as B; one reference at a time, its outliers on the
// reader threads, their findings taken in order. An outlier's severity is its worst finding's
// (info when the rules flag none of its deviations) and outliers rank by severity, then by the
// findings' scores, then by how many facts they deviate in.

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "fleet/group_compare.h"
#include "rules/rule.h"
#include "snapshot/snapshot.h"
#include "util/result.h"

namespace kdrift {

inline constexpr std::string_view kFleetSchema = "kdrift.fleet/1";

// Each reader thread holds one snapshot's text and parse at a time (a few MiB, at most what a
// snapshot's limits allow): by default one per online CPU, at most this many.
inline constexpr std::size_t kMaxDefaultFleetReaders = 8;

// The online CPUs, at most kMaxDefaultFleetReaders.
std::size_t default_fleet_readers();

struct FleetRequest {
  std::vector<std::string> arguments;     // snapshot files and directories
  std::vector<FleetGroupPattern> groups;  // none, or two: candidate and reference
  std::string reference;                  // the reference group's name ("" : see fleet_report)
  std::size_t max_outliers = 100;         // listed; the rest are counted in outliers_omitted
  std::size_t readers = default_fleet_readers();  // threads that read the snapshots (--jobs)
};

// The document. Errors: no argument names a readable snapshot, a bad --group (not two, a name
// twice, a group no host falls in), more than kMaxFleetHosts snapshots, one host twice. An
// unreadable snapshot among readable ones is listed under "unreadable", not fatal.
Result<Json> fleet_report(const FleetRequest& request, const std::vector<Rule>& rules);

// As check's: 1 with an outlier at warning or above, or a comparison finding or probe job that
// regressed in the candidate group; else 3 when the comparison could not decide one
// (comparison_undecided); else 0.
int fleet_exit_status(const Json& fleet);

}  // namespace kdrift
