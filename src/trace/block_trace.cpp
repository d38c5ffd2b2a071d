#include "trace/block_trace.h"

#include <bpf/libbpf.h>

#include <iterator>

#include "block_stats.h"
#include "block_stats.skel.h"
#include "model/job_result.h"
#include "model/latency_histogram.h"
#include "trace/bpf_object.h"
#include "trace/held_requests.h"
#include "trace/percpu_map.h"
#include "util/units.h"

namespace kdrift {
namespace {

// The kernel's buckets are handed to LatencyHistogram by index: same layout, not only as many
// (tests/unit/trace/latency_layout_test.cpp compares them bucket by bucket).
static_assert(KDRIFT_LAT_SUB_BITS == LatencyHistogram::kSubBucketBits);
static_assert(KDRIFT_LAT_EXACT == LatencyHistogram::kExactLimit);
static_assert(KDRIFT_LAT_BUCKETS <= LatencyHistogram::kBucketCount);

// Every tracepoint the block programs use, with the argument count each program variant is
// written for (the _q flavours lead with the request_queue, as before 5.11).
}  // namespace

const std::vector<TracepointPrograms>& block_tracepoints() {
  static const std::vector<TracepointPrograms> tracepoints = {
      {"block_bio_queue", {{"bio_queue", 1}, {"bio_queue_q", 2}}},
      {"block_bio_backmerge", {{"bio_backmerge", 1}, {"bio_backmerge_q", 3}}},
      {"block_bio_frontmerge", {{"bio_frontmerge", 1}, {"bio_frontmerge_q", 3}}},
      {"block_split", {{"split", 2}, {"split_q", 3}}},
      {"block_rq_merge", {{"rq_merge", 1}, {"rq_merge_q", 2}}},
      {"block_rq_insert", {{"rq_insert", 1}, {"rq_insert_q", 2}}},
      {"block_rq_issue", {{"rq_issue", 1}, {"rq_issue_q", 2}}},
      {"block_rq_requeue", {{"rq_requeue", 1}, {"rq_requeue_q", 2}}},
      {"block_rq_complete", {{"rq_complete", 3}}},
  };
  return tracepoints;
}

namespace {

void clear_hash(const bpf_map* map) {
  uint64_t key = 0;
  while (bpf_map__get_next_key(map, nullptr, &key, sizeof key) == 0) {
    if (bpf_map__delete_elem(map, &key, sizeof key, 0) != 0) break;
  }
}

template <typename Counts>
uint64_t sum(const Counts& values) {
  uint64_t total = 0;
  for (const auto value : values)
    total += value;
  return total;
}

Json log2_histogram_json(const unsigned long long* counts, size_t buckets) {
  Json rows = Json::array();
  for (size_t bucket = 0; bucket < buckets; ++bucket) {
    if (counts[bucket] == 0) continue;
    const uint64_t low = uint64_t{1} << bucket;
    rows.push_back({{"low", low}, {"high", (low << 1) - 1}, {"count", counts[bucket]}});
  }
  return rows;
}

// Percentiles (fio's keys) and non-empty buckets of a latency histogram summed from BPF.
Json latency_histogram_json(const std::vector<unsigned long long>& buckets) {
  LatencyHistogram histogram;
  for (size_t bucket = 0; bucket < buckets.size(); ++bucket)
    histogram.record_bucket(bucket, buckets[bucket]);
  Json out = LatencySummary::of(histogram).to_json();
  out["count"] = histogram.count();
  Json rows = Json::array();
  for (const auto& [low, high, count] : histogram.non_empty())
    rows.push_back({{"low", low}, {"high", high}, {"count", count}});
  out["buckets"] = std::move(rows);
  return out;
}

// The requests the programs still held when they were detached.
std::vector<kdrift_request_start> held_requests(const bpf_map* map) {
  std::vector<kdrift_request_start> held;
  uint64_t key = 0;
  bool first = true;
  while (bpf_map__get_next_key(map, first ? nullptr : &key, &key, sizeof key) == 0) {
    first = false;
    kdrift_request_start start{};
    if (bpf_map__lookup_elem(map, &key, sizeof key, &start, sizeof start, 0) == 0) {
      held.push_back(start);
    }
  }
  return held;
}

// Bios per direction, and with requests what was issued and completed, seen or not.
Json by_direction_json(const kdrift_block_counts& counts, const HeldRequests& held,
                       bool request_based) {
  const char* directions[] = {"read", "write", "other"};
  Json by_direction = Json::object();
  for (int dir = 0; dir < KDRIFT_DIRS; ++dir) {
    Json entry = {{"bios", counts.bios[dir]}, {"bio_bytes", counts.bio_bytes[dir]}};
    if (request_based) {
      entry["requests_issued"] = counts.issued[dir];
      entry["requests_completed"] = counts.completed[dir];
      entry["bytes_completed"] = counts.completed_bytes[dir];
      entry["requests_lost"] = counts.lost[dir] + held.completed[dir];
      entry["bytes_lost"] = counts.lost_bytes[dir] + held.completed_bytes[dir];
    }
    by_direction[directions[dir]] = std::move(entry);
  }
  return by_direction;
}

Json latency_json_of(const bpf_map* latencies, uint32_t which) {
  const auto summed = sum_counters(per_cpu_values<kdrift_latency_hist>(latencies, which));
  return latency_histogram_json(
      std::vector<unsigned long long>(std::begin(summed.buckets), std::end(summed.buckets)));
}

// What only a request-based (blk-mq) device has: requests, merges, queues, latencies, depth.
Json request_facts(const kdrift_block_counts& counts, const HeldRequests& held,
                   const bpf_map* latencies) {
  const uint64_t merges = counts.bio_backmerges + counts.bio_frontmerges + counts.request_merges;
  const uint64_t completed = sum(counts.completed);
  const uint64_t completed_bytes = sum(counts.completed_bytes);
  Json depth = Json::array();
  for (size_t value = 0; value < KDRIFT_DEPTH_BUCKETS; ++value) {
    if (counts.depth[value] == 0) continue;
    depth.push_back({{"in_flight", value}, {"count", counts.depth[value]}});
  }
  return {{"requests_inserted", counts.inserted},
          {"requests_issued", sum(counts.issued)},
          {"requests_completed", completed},
          {"requests_requeued", counts.requeued},
          {"errors", counts.errors},
          {"merges", merges},
          {"bio_backmerges", counts.bio_backmerges},
          {"bio_frontmerges", counts.bio_frontmerges},
          {"request_merges", counts.request_merges},
          {"sectors_completed", completed_bytes / 512},
          {"avg_request_bytes", ratio(completed_bytes, completed)},
          // As the probe's diskstats: the share of the I/Os that reached the queue and were merged.
          {"merge_ratio", ratio(merges, completed + merges)},
          {"issued_by_queue_type",
           {{"default", counts.issued_by_queue_type[KDRIFT_QUEUE_DEFAULT]},
            {"read", counts.issued_by_queue_type[KDRIFT_QUEUE_READ]},
            {"poll", counts.issued_by_queue_type[KDRIFT_QUEUE_POLL]},
            {"unknown", counts.issued_by_queue_type[KDRIFT_QUEUE_UNKNOWN]}}},
          {"device_latency_ns", latency_json_of(latencies, KDRIFT_LAT_DEVICE)},
          {"queue_latency_ns", latency_json_of(latencies, KDRIFT_LAT_QUEUE)},
          {"bio_latency_ns", latency_json_of(latencies, KDRIFT_LAT_BIO)},
          {"request_bytes", log2_histogram_json(counts.request_bytes, KDRIFT_SIZE_BUCKETS)},
          {"depth_at_issue", std::move(depth)},
          {"unmatched_completions", counts.unmatched_completions},
          {"lost_completions", sum(counts.lost)},
          {"lost_completions_at_end", sum(held.completed)},
          {"in_flight_at_end", held.in_flight},
          {"dropped_request_starts", counts.dropped_request_starts},
          {"dropped_bio_starts", counts.dropped_bio_starts}};
}

}  // namespace

struct BlockTrace::State {
  BpfObject<block_stats> object{{block_stats__open, block_stats__load, block_stats__destroy}};
  std::vector<TracedDisk> disks;
};

BlockTrace::BlockTrace(std::unique_ptr<State> state) : state_(std::move(state)) {}
BlockTrace::~BlockTrace() = default;

Result<std::unique_ptr<BlockTrace>> BlockTrace::load(const std::vector<TracedDisk>& disks,
                                                     const TraceFeatures& features) {
  if (disks.empty() || disks.size() > KDRIFT_MAX_TARGET_DISKS) {
    return make_error(
        EINVAL, "block trace: between 1 and " + std::to_string(KDRIFT_MAX_TARGET_DISKS) + " disks");
  }
  auto state = std::make_unique<State>();
  state->disks = disks;
  const auto configure = [&](block_stats& skeleton) {
    bool request_based = false;
    for (size_t i = 0; i < disks.size(); ++i) {
      skeleton.rodata->target_disks[i] = (disks[i].major << 20) | disks[i].minor;
      request_based = request_based || disks[i].request_based;
    }
    skeleton.rodata->target_disk_count = static_cast<uint32_t>(disks.size());
    skeleton.rodata->pair_bios = request_based;
  };
  if (auto loaded = state->object.load(block_tracepoints(), features, "block trace", configure);
      !loaded) {
    return loaded.error();
  }
  return std::unique_ptr<BlockTrace>(new BlockTrace(std::move(state)));
}

Status BlockTrace::attach() {
  auto& state = *state_;
  auto& maps = state.object.skeleton().maps;
  if (!zero_per_cpu<kdrift_block_counts>(maps.counts, 1) ||
      !zero_per_cpu<kdrift_latency_hist>(maps.latencies, KDRIFT_LATENCIES)) {
    return make_error(errno, "block trace: zeroing the maps");
  }
  clear_hash(maps.request_starts);
  clear_hash(maps.bio_starts);
  state.object.skeleton().bss->in_flight = 0;
  return state.object.programs().attach();
}

Json BlockTrace::detach(std::optional<uint64_t> all_completed_before_ns) {
  auto& state = *state_;
  Json programs = state.object.programs().detach();
  const uint64_t missed = state.object.programs().missed();
  auto& maps = state.object.skeleton().maps;
  const auto counts = sum_counters(per_cpu_values<kdrift_block_counts>(maps.counts, 0));
  const auto held =
      settle_held_requests(held_requests(maps.request_starts), all_completed_before_ns);

  bool request_based = false;
  Json disks = Json::array();
  for (const auto& disk : state.disks) {
    request_based = request_based || disk.request_based;
    disks.push_back(disk.name);
  }
  const uint64_t bios = sum(counts.bios);
  const uint64_t bio_bytes = sum(counts.bio_bytes);
  Json block = {{"disks", std::move(disks)},
                {"request_based", request_based},
                {"bios_queued", bios},
                {"bio_bytes", bio_bytes},
                {"splits", counts.splits},
                {"missed_events", missed},
                {"by_direction", by_direction_json(counts, held, request_based)}};
  if (request_based) {
    block.update(request_facts(counts, held, maps.latencies));
  } else {
    // Every bio is an I/O of a bio-based driver: diskstats counts them one by one.
    block["avg_request_bytes"] = ratio(bio_bytes, bios);
    block["merge_ratio"] = 0.0;
    block["unavailable"]["requests"] =
        "bio-based device: the block layer hands its bios straight to the driver, so there "
        "are no requests to count, merge or time";
  }
  return {{"block", std::move(block)}, {"programs", std::move(programs)}};
}

}  // namespace kdrift
