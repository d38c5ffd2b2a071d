#pragma once
// The fleet as kdrift fleet holds it while reading: hosts folded by fingerprint (the set of
// their facts), so what is kept grows with the number of distinct fingerprints and facts, and
// per host only its name, its file, its fingerprint's number and its probe IOPS. From it: the
// peer groups (same hardware and kernel), each fact's majority value among a host's peers, and
// the hosts that differ from it (the outlier candidates).
//
// A fact is judged within the hosts that should share it: the kernel release among hosts of the
// same hardware, everything else among hosts of the same hardware and kernel. A majority is a
// value more than half of at least kMinPeers hosts hold; a fact with no majority splits its
// peers and makes no outlier. A probe job's IOPS make a host an outlier when they are below
// kProbeOutlierRatio of its peers' median and beyond kProbeOutlierSpread robust deviations of
// the peers' spread (log scale), so a fleet of noisy hosts does not flag its slow half.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "fleet/host_facts.h"

namespace kdrift {

inline constexpr std::size_t kMinPeers = 3;
inline constexpr double kProbeOutlierRatio = 0.75;
inline constexpr double kProbeOutlierSpread = 4.0;
// A fleet read is refused beyond this many snapshots: the bound on what one run holds.
inline constexpr std::size_t kMaxFleetHosts = 200'000;

inline constexpr std::string_view kAbsent = "(absent)";

struct Deviation {
  std::string fact;
  std::string value;
  std::string majority;
  std::size_t majority_hosts = 0;
  std::size_t peer_hosts = 0;
  double ratio = 0;  // probe.iops[JOB] only: the host's IOPS over the peers' median
};

struct FleetHost {
  std::string host;      // the inventory name: the file's base name without .json[.gz]
  std::string file;      // as the user named it (or as found in a directory named)
  std::string hostname;  // the snapshot's own
  std::size_t fingerprint = 0;
  std::map<std::uint32_t, double> probe_iops;  // by job number (FleetIndex::job_name)
};

struct Fingerprint {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> facts;  // (name, value) numbers, sorted
  std::string kernel;
  std::string hardware;
  std::vector<std::size_t> hosts;  // indexes into FleetIndex::hosts()
};

struct PeerGroup {
  std::string hardware;
  std::string kernel;
  std::vector<std::size_t> fingerprints;
  std::size_t hosts = 0;
};

class FleetIndex {
 public:
  // Folds one host in; its facts are kept only if no host before had the same fingerprint.
  void add(std::string host, std::string file, HostFacts facts);

  const std::vector<FleetHost>& hosts() const { return hosts_; }
  const std::vector<Fingerprint>& fingerprints() const { return fingerprints_; }
  const std::string& fact_name(std::uint32_t id) const { return names_[id]; }
  const std::string& fact_value(std::uint32_t id) const { return values_[id]; }
  const std::string& job_name(std::uint32_t id) const { return jobs_[id]; }
  std::size_t job_count() const { return jobs_.size(); }

  // Peer groups by hardware and kernel, largest first.
  std::vector<PeerGroup> peer_groups() const;
  // Each fingerprint's deviations from its peers' majorities (indexed as fingerprints()).
  std::vector<std::vector<Deviation>> fingerprint_deviations() const;
  // Each host's probe deviations (only hosts that have some).
  std::map<std::size_t, std::vector<Deviation>> probe_deviations() const;

 private:
  std::uint32_t intern(std::map<std::string, std::uint32_t, std::less<>>& ids,
                       std::vector<std::string>& names, std::string text);

  std::vector<FleetHost> hosts_;
  std::vector<Fingerprint> fingerprints_;
  std::map<std::vector<std::pair<std::uint32_t, std::uint32_t>>, std::size_t> fingerprint_ids_;
  std::map<std::string, std::uint32_t, std::less<>> name_ids_, value_ids_, job_ids_;
  std::vector<std::string> names_, values_, jobs_;
};

}  // namespace kdrift
