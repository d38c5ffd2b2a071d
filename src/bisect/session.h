#pragma once
// A bisect as its journal tells it: the start event (candidates, endpoints, metric, settings)
// and every later event (samples measured on a boot, a boot that did not come back, a verdict
// said by the user or a command) replayed, in order, into a Search. Replaying the same journal
// always gives the same next step, which is what makes `step` safe to kill and run again and
// `replay FILE` reproduce a finished bisect.

#include <cstddef>
#include <string>
#include <vector>

#include "bisect/candidates.h"
#include "bisect/search.h"
#include "snapshot/snapshot.h"
#include "util/result.h"

namespace kdrift {

struct BisectStart {
  std::string id;  // goes into the candidate's command line as kdrift.bisect=<id>
  std::vector<Candidate> candidates;
  std::size_t good = 0;
  std::size_t bad = 0;
  std::string metric;  // "probe:PROFILE:MODE:IODEPTH:iops", "finding:ID", or "declared"
  std::string mode;    // "kexec" or "manual"
  SearchConfig config;
};

Json start_event(const BisectStart& start);
Json samples_event(const std::string& candidate, const std::vector<double>& values);
Json crash_event(const std::string& candidate);
// verdict: "good", "bad" or "skip"; by: "user", "run" or "step".
Json verdict_event(const std::string& candidate, const std::string& verdict, const std::string& by);

struct Session {
  BisectStart start;
  Search search;
};

// Errors name source and the event's position: no start first, an unknown event or candidate, a
// malformed field.
Result<Session> replay(const std::vector<Json>& events, const std::string& source);

// The index of a candidate by name, or an error naming the known ones.
Result<std::size_t> candidate_index(const BisectStart& start, const std::string& name);

}  // namespace kdrift
