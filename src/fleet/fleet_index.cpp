#include "fleet/fleet_index.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <tuple>

#include "diff/statistics.h"

namespace kdrift {
namespace {

constexpr std::string_view kHardwareFact = "hardware";
constexpr std::string_view kReleaseFact = "kernel.release";

// value number (or absent) → hosts, over some fingerprints.
struct Tally {
  std::map<std::int64_t, std::size_t> hosts_by_value;  // -1: absent
  std::size_t hosts = 0;
};

}  // namespace

std::uint32_t FleetIndex::intern(std::map<std::string, std::uint32_t, std::less<>>& ids,
                                 std::vector<std::string>& names, std::string text) {
  const auto found = ids.find(text);
  if (found != ids.end()) return found->second;
  const auto id = static_cast<std::uint32_t>(names.size());
  names.push_back(text);
  ids.emplace(std::move(text), id);
  return id;
}

void FleetIndex::add(std::string host, std::string file, HostFacts facts) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> key;
  key.reserve(facts.facts.size() + 1);
  key.emplace_back(intern(name_ids_, names_, std::string(kHardwareFact)),
                   intern(value_ids_, values_, facts.hardware));
  for (auto& [name, value] : facts.facts) {
    key.emplace_back(intern(name_ids_, names_, std::move(name)),
                     intern(value_ids_, values_, std::move(value)));
  }
  std::sort(key.begin(), key.end());
  auto [found, inserted] = fingerprint_ids_.try_emplace(key, fingerprints_.size());
  if (inserted) {
    fingerprints_.push_back(
        {std::move(key), std::move(facts.kernel), std::move(facts.hardware), {}});
  }
  FleetHost entry{std::move(host), std::move(file), std::move(facts.hostname), found->second, {}};
  for (auto& [job, iops] : facts.probe_iops) {
    entry.probe_iops[intern(job_ids_, jobs_, job)] = iops;
  }
  fingerprints_[found->second].hosts.push_back(hosts_.size());
  hosts_.push_back(std::move(entry));
}

std::vector<PeerGroup> FleetIndex::peer_groups() const {
  std::map<std::pair<std::string, std::string>, PeerGroup> groups;
  for (std::size_t i = 0; i < fingerprints_.size(); ++i) {
    const Fingerprint& fingerprint = fingerprints_[i];
    PeerGroup& group = groups[{fingerprint.hardware, fingerprint.kernel}];
    group.hardware = fingerprint.hardware;
    group.kernel = fingerprint.kernel;
    group.fingerprints.push_back(i);
    group.hosts += fingerprint.hosts.size();
  }
  std::vector<PeerGroup> ordered;
  for (auto& [key, group] : groups)
    ordered.push_back(std::move(group));
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const PeerGroup& a, const PeerGroup& b) { return a.hosts > b.hosts; });
  return ordered;
}

namespace {

// The fact names judged within a set of fingerprints, with every value's host count.
// Hosts whose value is unknown take no part in a fact's majority (unknown: kUnknownFact's id).
std::map<std::uint32_t, Tally> tally(const std::vector<Fingerprint>& fingerprints,
                                     const std::vector<std::size_t>& members,
                                     const std::function<bool(std::uint32_t)>& judged,
                                     std::int64_t unknown) {
  std::map<std::uint32_t, Tally> tallies;
  std::map<std::uint32_t, std::size_t> unknown_hosts;
  std::size_t hosts = 0;
  for (const std::size_t index : members) {
    const Fingerprint& fingerprint = fingerprints[index];
    hosts += fingerprint.hosts.size();
    for (const auto& [name, value] : fingerprint.facts) {
      if (!judged(name)) continue;
      if (value == unknown) {
        unknown_hosts[name] += fingerprint.hosts.size();
        tallies[name];
      } else {
        tallies[name].hosts_by_value[value] += fingerprint.hosts.size();
      }
    }
  }
  for (auto& [name, counts] : tallies) {
    const std::size_t known = hosts - unknown_hosts[name];
    std::size_t present = 0;
    for (const auto& [value, count] : counts.hosts_by_value)
      present += count;
    if (present < known) counts.hosts_by_value[-1] = known - present;
    counts.hosts = known;
  }
  return tallies;
}

std::int64_t value_in(const Fingerprint& fingerprint, std::uint32_t name) {
  const auto found = std::lower_bound(fingerprint.facts.begin(), fingerprint.facts.end(),
                                      std::pair<std::uint32_t, std::uint32_t>{name, 0});
  if (found == fingerprint.facts.end() || found->first != name) return -1;
  return static_cast<std::int64_t>(found->second);
}

}  // namespace

std::vector<std::vector<Deviation>> FleetIndex::fingerprint_deviations() const {
  std::vector<std::vector<Deviation>> deviations(fingerprints_.size());
  const auto hardware_id = name_ids_.find(kHardwareFact);
  const auto release_id = name_ids_.find(kReleaseFact);
  const auto is = [](auto found, const auto& ids, std::uint32_t name) {
    return found != ids.end() && found->second == name;
  };
  const auto unknown_id = value_ids_.find(std::string(kUnknownFact));
  const std::int64_t unknown = unknown_id != value_ids_.end() ? unknown_id->second : -2;
  const auto judge = [&](const std::vector<std::size_t>& members,
                         const std::function<bool(std::uint32_t)>& judged) {
    for (const auto& [name, counts] : tally(fingerprints_, members, judged, unknown)) {
      if (counts.hosts < kMinPeers) continue;
      const auto majority =
          std::max_element(counts.hosts_by_value.begin(), counts.hosts_by_value.end(),
                           [](const auto& a, const auto& b) { return a.second < b.second; });
      if (majority->second * 2 <= counts.hosts) continue;
      for (const std::size_t index : members) {
        const std::int64_t value = value_in(fingerprints_[index], name);
        if (value == majority->first || value == unknown) continue;
        deviations[index].push_back(
            {names_[name], value < 0 ? std::string(kAbsent) : values_[value],
             majority->first < 0 ? std::string(kAbsent) : values_[majority->first],
             majority->second, counts.hosts, 0});
      }
    }
  };
  std::map<std::string, std::vector<std::size_t>> by_hardware;
  for (const PeerGroup& group : peer_groups()) {
    judge(group.fingerprints, [&](std::uint32_t name) {
      return !is(hardware_id, name_ids_, name) && !is(release_id, name_ids_, name);
    });
    auto& members = by_hardware[group.hardware];
    members.insert(members.end(), group.fingerprints.begin(), group.fingerprints.end());
  }
  for (const auto& [hardware, members] : by_hardware) {
    judge(members, [&](std::uint32_t name) { return is(release_id, name_ids_, name); });
  }
  for (auto& list : deviations) {
    std::sort(list.begin(), list.end(),
              [](const Deviation& a, const Deviation& b) { return a.fact < b.fact; });
  }
  return deviations;
}

std::map<std::size_t, std::vector<Deviation>> FleetIndex::probe_deviations() const {
  std::map<std::size_t, std::vector<Deviation>> found;
  for (const PeerGroup& group : peer_groups()) {
    std::map<std::uint32_t, std::vector<std::pair<std::size_t, double>>> by_job;
    for (const std::size_t index : group.fingerprints) {
      for (const std::size_t host : fingerprints_[index].hosts) {
        for (const auto& [job, iops] : hosts_[host].probe_iops)
          by_job[job].emplace_back(host, iops);
      }
    }
    for (const auto& [job, samples] : by_job) {
      if (samples.size() < kMinPeers) continue;
      std::vector<double> logs;
      for (const auto& sample : samples)
        logs.push_back(std::log(sample.second));
      const double center = median(logs);
      std::vector<double> spread;
      for (const double value : logs)
        spread.push_back(std::fabs(value - center));
      // 1.4826 × MAD estimates a normal spread's sigma, robust to the outliers being sought.
      const double sigma = 1.4826 * median(spread);
      const auto typical =
          static_cast<std::size_t>(std::count_if(logs.begin(), logs.end(), [&](double value) {
            return std::exp(value - center) >= kProbeOutlierRatio;
          }));
      for (const auto& [host, iops] : samples) {
        const double ratio = std::exp(std::log(iops) - center);
        if (ratio >= kProbeOutlierRatio) continue;
        if (sigma > 0 && center - std::log(iops) <= kProbeOutlierSpread * sigma) continue;
        char value[64];
        char median[64];
        std::snprintf(value, sizeof value, "%.0f IOPS", iops);
        std::snprintf(median, sizeof median, "%.0f IOPS (median)", std::exp(center));
        found[host].push_back(
            {"probe.iops[" + jobs_[job] + "]", value, median, typical, samples.size(), ratio});
      }
    }
  }
  return found;
}

}  // namespace kdrift
