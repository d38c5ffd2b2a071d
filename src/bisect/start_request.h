#pragma once
// What `kdrift bisect start` was asked, made into the start event's content: the candidates
// (a list file, a root's /boot, or the running kernel with --cmdline's command lines), how they
// are judged (the metric, exact or measured), the mode and the endpoints. Every refusal names
// the option it is about.

#include <functional>
#include <string>
#include <vector>

#include "bisect/session.h"
#include "util/result.h"

namespace kdrift {

struct StartRequest {
  std::string good;  // candidate names; with cmdline, the good and bad command lines
  std::string bad;
  std::string candidates_file;
  std::string kernels_from;  // a root whose /boot holds the kernels
  bool cmdline = false;
  std::string metric;     // --metric, probe:PROFILE:ENGINE:IODEPTH:STAT
  std::string predicate;  // --predicate, a finding id
  std::string mode;       // "kexec", "reboot", "manual", or empty: chosen
  LoaderPlace loader;     // mode "reboot": the loader found on this host
  std::string profile;
  std::string target = ".";
  int reference_samples = SearchConfig{}.reference_samples;
  int reference_boots = SearchConfig{}.reference_boots;
  int max_boots = SearchConfig{}.max_boots;
};

// Whether a finding id can be bisected on (checks' functional rules know).
using PredicateCheck = std::function<Status(const std::string& finding_id)>;

// The candidates the request names, read from the file or the root.
Result<std::vector<Candidate>> request_candidates(const StartRequest& request);

// The bisect to start over those candidates, with this id (it goes into every candidate's
// command line).
Result<BisectStart> plan_start(const StartRequest& request, std::vector<Candidate> candidates,
                               std::string id, const PredicateCheck& predicate_check);

// In a kexec bisect, every candidate's kernel and initrd opened and checked as step will before
// it loads them (kexec_image.h): refused here, before anything is recorded, rather than at a
// boot half-way through. Other modes boot nothing themselves.
Status check_kexec_images(const BisectStart& start);

// A bisect id unique on this host: the start time and the starting process.
std::string make_bisect_id(long long unix_seconds, long long pid);

}  // namespace kdrift
