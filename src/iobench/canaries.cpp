#include "iobench/canaries.h"

#include <chrono>

#include "iobench/io_pattern.h"
#include "iobench/job_accounting.h"
#include "iobench/recorder.h"

namespace kdrift {
namespace {

// A few milliseconds of random 4 KiB reads per mode, not a single read: a 6.12 guest without
// poll queues completed a polled read at offset 0 and failed the next ones with EOPNOTSUPP.
constexpr std::chrono::microseconds kCanaryTime{5000};
constexpr int kCanaryRounds = 200;  // one second of windows at most

ProbeJob canary_job(const EngineMode& mode) {
  ProbeJob canary;
  canary.engine = mode;
  canary.rw = Pattern::kRandRead;
  canary.block_size = 4096;
  canary.iodepth = canary.engine.synchronous() ? 1 : 2;
  canary.runtime = kCanaryTime;
  return canary;
}

// On a loaded host the window can close before the first completion is reaped, and a canary
// that reaped nothing has seen no error either (a 6.12 guest without poll queues read as "ok"
// that way): it runs again, on a fresh engine, until something completed or failed.
std::optional<IoFailure> run_canary(const EngineMode& mode, const Target& target) {
  const ProbeJob canary = canary_job(mode);
  BufferPool buffers(canary.iodepth, canary.block_size);
  std::optional<IoFailure> failure;
  IoPattern pattern(canary, target.size(), 1);
  for (int round = 0; round < kCanaryRounds; ++round) {
    auto engine = make_engine(canary, target.fd(), buffers);
    if (!engine) return IoFailure{engine.error().code, engine.error().context};
    Recorder recorder(monotonic_ns(), 0, static_cast<uint64_t>(kCanaryTime.count()) * 1000,
                      canary.block_size, nullptr);
    failure = (*engine)->run(pattern, recorder);
    if (failure || recorder.all_completions() > 0) break;
  }
  return failure;
}

}  // namespace

Json canary_entry(const std::optional<IoFailure>& failure, const EngineMode& mode,
                  const FailureContext& context) {
  if (failure) {
    Json entry = failure_json(failure->code, failure->what, mode, context);
    entry["status"] = "failed";
    return entry;
  }
  if (auto doubt = polling_doubt(mode, context)) {
    return {{"status", "ok-without-polling"}, {"cause", *doubt}};
  }
  return {{"status", "ok"}};
}

Json run_canaries(const Target& target, const FailureContext& context) {
  Json matrix = Json::object();
  for (const char* name : kCapabilityModes) {
    const EngineMode mode = *EngineMode::parse(name);
    matrix[name] = canary_entry(run_canary(mode, target), mode, context);
  }
  return matrix;
}

}  // namespace kdrift
