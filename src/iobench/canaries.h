#pragma once
// What this boot can do on the target, mode by mode: a few milliseconds of random 4 KiB reads
// through each engine mode of kCapabilityModes, each reported as ok, ok without really polling,
// or failed with the errno and its likely cause.

#include <optional>

#include "iobench/engine.h"
#include "iobench/failure_cause.h"
#include "iobench/target.h"
#include "snapshot/snapshot.h"

namespace kdrift {

// The modes every probe run tries, in the order the capability matrix lists them.
inline constexpr const char* kCapabilityModes[] = {"io_uring",
                                                   "io_uring+iopoll",
                                                   "io_uring+sqpoll",
                                                   "io_uring+iopoll+sqpoll",
                                                   "io_uring+fixedbufs",
                                                   "io_uring+regfiles",
                                                   "libaio",
                                                   "psync",
                                                   "pvsync2",
                                                   "pvsync2+hipri"};

// {status, error?, errno?, cause?} of one mode's canary: nullopt failure is a canary that
// completed reads.
Json canary_entry(const std::optional<IoFailure>& failure, const EngineMode& mode,
                  const FailureContext& context);

// {mode: entry} for every mode of kCapabilityModes, on the target.
Json run_canaries(const Target& target, const FailureContext& context);

}  // namespace kdrift
