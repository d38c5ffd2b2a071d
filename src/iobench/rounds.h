#pragma once
// A job run several times (probe --rounds), interleaved with the profile's other jobs so that
// the host's drift lands on every job alike: which round stands for the job, and what the entry
// keeps of the others.

#include <vector>

#include "model/job_result.h"

namespace kdrift {

// The most rounds one probe runs: a bound for --rounds and for rounds[] read back.
inline constexpr uint32_t kMaxRounds = 100;

// One entry from every round of a job, in the order they ran: the first round that failed, or
// else the round with the median IOPS of its main direction (the lower middle of an even count),
// in full, with `round` naming it and `rounds` holding every round's summary. One round comes
// back as it was; a skipped job (its first round says skipped) as its first round.
JobResult median_round(std::vector<JobResult> rounds);

}  // namespace kdrift
