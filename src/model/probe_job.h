#pragma once
// One probe job: an engine in one mode, one access pattern, one block size, one queue depth.
// Profiles (profiles/*.toml) describe matrices of these; the runner executes them one by one.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "snapshot/snapshot.h"
#include "util/result.h"

namespace kdrift {

enum class EngineKind { kIoUring, kLibaio, kPsync, kPvsync2 };

// An engine and its mode, spelled "io_uring+iopoll+sqpoll", "libaio", "pvsync2+hipri".
struct EngineMode {
  EngineKind kind = EngineKind::kIoUring;
  bool iopoll = false;     // io_uring: IORING_SETUP_IOPOLL
  bool sqpoll = false;     // io_uring: IORING_SETUP_SQPOLL
  bool fixedbufs = false;  // io_uring: registered buffers
  bool regfiles = false;   // io_uring: registered file
  bool hipri = false;      // pvsync2: RWF_HIPRI

  static Result<EngineMode> parse(std::string_view text);
  std::string label() const;
  // Polled completion (IOPOLL or RWF_HIPRI): needs poll queues on the device.
  bool polled() const { return iopoll || hipri; }
  // psync and pvsync2 have one I/O in flight whatever the profile asks.
  bool synchronous() const { return kind == EngineKind::kPsync || kind == EngineKind::kPvsync2; }
  bool operator==(const EngineMode&) const = default;
};

enum class Pattern { kRead, kWrite, kRandRead, kRandWrite, kRandRw };

// How a queued engine waits once its queue is full. kSleep blocks in io_uring_enter or
// io_getevents, as fio does, so the scheduler's wakeup is part of every latency. kSpin looks for
// completions for a few microseconds before sleeping, as poll-mode applications (Seastar, SPDK
// style reactors) do: it shows the device and block layer without the wakeup, and costs a CPU.
enum class CompletionWait { kSleep, kSpin };

std::optional<CompletionWait> parse_completion_wait(std::string_view text);
std::string_view completion_wait_name(CompletionWait wait);

std::optional<Pattern> parse_pattern(std::string_view text);
std::string_view pattern_name(Pattern pattern);
bool pattern_writes(Pattern pattern);
bool pattern_reads(Pattern pattern);
bool pattern_random(Pattern pattern);

struct ProbeJob {
  std::string workload;  // the profile workload this job came from
  EngineMode engine;
  Pattern rw = Pattern::kRandRead;
  uint32_t rwmixread = 50;  // percent of reads in randrw
  uint64_t block_size = 4096;
  uint32_t iodepth = 1;
  // fio's iodepth_batch_submit: I/Os prepared before each submit call (0: every free slot).
  // 1 by default, as fio: on virtio-blk, bursts of a whole queue's worth cost a quarter of the
  // IOPS at depth 16 against I/Os submitted as their slots free up.
  uint32_t batch_submit = 1;
  // fio's iodepth_batch_complete_min/max: completions waited for once the queue is full (at
  // least 1), and reaped at most per pass (0: all available). Profiles default max to min, as
  // fio: one completion taken, one slot refilled, so the queue stays at its depth.
  uint32_t batch_complete_min = 1;
  uint32_t batch_complete_max = 1;
  CompletionWait completion_wait = CompletionWait::kSleep;
  std::chrono::microseconds ramp{0};
  std::chrono::microseconds runtime{std::chrono::seconds(5)};
  std::optional<int> sqpoll_cpu;
  // fio's defaults instead of kdrift's: random offsets from a random map (every block once per
  // pass, fio's norandommap=0) rather than uniform with replacement, and writes stamped in each
  // 512-byte sector with their offset and submit time (fio's scramble_buffers=1) rather than
  // left as the pool's incompressible bytes. The stamps make compressing devices work harder:
  // on zram, LZO spends several times longer per page (docs/benchmarks.md, "Probe against
  // fio"). An SQPOLL ring is reaped as fio reaps it, spinning on the completion ring without a
  // system call.
  bool like_fio = false;

  // "io_uring+iopoll randwrite 4k qd16" (" spin" appended when spinning): unique within a
  // profile, stable across runs. The one name of a job: diff pairs jobs by it.
  std::string name() const;
  // What name() appends after the depth (" window4", " spin"): jobs that differ only there are
  // other workloads at the same engine, pattern, size and depth.
  std::string variant() const;
  // Queue depth actually used (1 for the synchronous engines).
  uint32_t effective_iodepth() const { return engine.synchronous() ? 1 : iodepth; }
  bool writes() const { return pattern_writes(rw); }
  bool reads() const { return pattern_reads(rw); }

  // The job's identity as a snapshot's probe.jobs[] entry holds it (docs/snapshot.md): name,
  // workload, engine, rw, bs, iodepth (the effective one), batch{}, completion_wait, ramp_s,
  // runtime_s, rwmixread for randrw, and like_fio when set. sqpoll_cpu is a placement, not part of
  // the identity.
  Json to_json() const;
  // The identity back from such an entry. Jobs recorded before completion_wait existed spun
  // before sleeping (kSpin) and say nothing; every other member has been written since the
  // probe's first version and is required. An entry that is not one of kdrift's jobs (fio's,
  // imported) is an error naming the member.
  static Result<ProbeJob> from_json(const Json& entry);
};

}  // namespace kdrift
