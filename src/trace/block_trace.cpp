#include "trace/block_trace.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <unistd.h>

#include <array>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <set>

#include "block_stats.h"
#include "block_stats.skel.h"
#include "trace/program_choice.h"
#include "util/latency_histogram.h"
#include "util/units.h"

namespace kdrift {
namespace {

static_assert(KDRIFT_LAT_BUCKETS <= LatencyHistogram::kBucketCount);

// Every tracepoint the block programs use, with the argument count each program variant is
// written for (the _q flavours lead with the request_queue, as before 5.11).
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

// libbpf's last complaint, for the error a failed load reports (its default is stderr).
std::string& last_libbpf_message() {
  static std::string message;
  return message;
}

int keep_libbpf_message(libbpf_print_level level, const char* format, va_list arguments) {
  if (level == LIBBPF_DEBUG) return 0;
  std::array<char, 512> line{};
  (void)std::vsnprintf(line.data(), line.size(), format, arguments);
  std::string text = line.data();
  while (!text.empty() && text.back() == '\n')
    text.pop_back();
  if (!text.empty()) last_libbpf_message() = text;
  return 0;
}

// A program's runs, and the events it missed: the kernel skips a program that fires again on a
// CPU where it is already running (a completion interrupt during a completion).
struct ProgramRuns {
  uint64_t count = 0;
  uint64_t time_ns = 0;
  uint64_t missed = 0;
};

ProgramRuns program_runs(const bpf_program* program) {
  bpf_prog_info info{};
  uint32_t length = sizeof info;
  if (bpf_obj_get_info_by_fd(bpf_program__fd(program), &info, &length) != 0) return {};
  return {info.run_cnt, info.run_time_ns, info.recursion_misses};
}

template <typename Value>
std::vector<Value> per_cpu_values(const bpf_map* map, uint32_t key) {
  const int cpus = libbpf_num_possible_cpus();
  std::vector<Value> values(cpus > 0 ? static_cast<size_t>(cpus) : 0);
  if (values.empty() || bpf_map__lookup_elem(map, &key, sizeof key, values.data(),
                                             values.size() * sizeof(Value), 0) != 0) {
    return {};
  }
  return values;
}

template <typename Value>
bool zero_per_cpu(const bpf_map* map, uint32_t entries) {
  const int cpus = libbpf_num_possible_cpus();
  if (cpus <= 0) return false;
  const std::vector<Value> zeros(static_cast<size_t>(cpus));
  for (uint32_t key = 0; key < entries; ++key) {
    if (bpf_map__update_elem(map, &key, sizeof key, zeros.data(), zeros.size() * sizeof(Value),
                             BPF_ANY) != 0) {
      return false;
    }
  }
  return true;
}

void clear_hash(const bpf_map* map) {
  uint64_t key = 0;
  while (bpf_map__get_next_key(map, nullptr, &key, sizeof key) == 0) {
    if (bpf_map__delete_elem(map, &key, sizeof key, 0) != 0) break;
  }
}

uint64_t sum(const unsigned long long (&values)[KDRIFT_DIRS]) {
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

}  // namespace

Json latency_histogram_json(const std::vector<unsigned long long>& buckets) {
  LatencyHistogram histogram;
  for (size_t bucket = 0; bucket < buckets.size(); ++bucket)
    histogram.record_bucket(bucket, buckets[bucket]);
  Json out = latency_json(histogram);
  out["count"] = histogram.count();
  Json rows = Json::array();
  for (const auto& [low, high, count] : histogram.non_empty())
    rows.push_back({{"low", low}, {"high", high}, {"count", count}});
  out["buckets"] = std::move(rows);
  return out;
}

struct BlockTrace::State {
  block_stats* skeleton = nullptr;
  std::vector<TracedDisk> disks;
  std::vector<ProgramChoice> choices;
  std::vector<bpf_link*> links;
  std::map<std::string, ProgramRuns> runs_before;
  int stats_fd = -1;
  std::string stats_unavailable;

  ~State() {
    for (auto* link : links)
      bpf_link__destroy(link);
    if (stats_fd >= 0) ::close(stats_fd);
    block_stats__destroy(skeleton);
  }

  bpf_program* program(const std::string& name) const {
    return bpf_object__find_program_by_name(skeleton->obj, name.c_str());
  }
};

BlockTrace::BlockTrace(std::unique_ptr<State> state) : state_(std::move(state)) {}
BlockTrace::~BlockTrace() = default;

Result<std::unique_ptr<BlockTrace>> BlockTrace::load(const std::vector<TracedDisk>& disks,
                                                     const TraceFeatures& features) {
  if (disks.empty() || disks.size() > KDRIFT_MAX_TARGET_DISKS) {
    return make_error(
        EINVAL, "block trace: between 1 and " + std::to_string(KDRIFT_MAX_TARGET_DISKS) + " disks");
  }
  libbpf_set_print(keep_libbpf_message);
  auto state = std::make_unique<State>();
  state->disks = disks;
  state->choices = choose_programs(block_tracepoints(), features);
  std::set<std::string> chosen;
  std::string reasons;
  for (const auto& choice : state->choices) {
    if (choice.program) {
      chosen.insert(*choice.program);
    } else {
      reasons += (reasons.empty() ? "" : "; ") + choice.reason;
    }
  }
  if (chosen.empty()) return make_error(ENOTSUP, "block trace: " + reasons);

  state->skeleton = block_stats__open();
  if (state->skeleton == nullptr) {
    return make_error(errno, "block trace: opening the BPF object: " + last_libbpf_message());
  }
  bool request_based = false;
  for (size_t i = 0; i < disks.size(); ++i) {
    state->skeleton->rodata->target_disks[i] = (disks[i].major << 20) | disks[i].minor;
    request_based = request_based || disks[i].request_based;
  }
  state->skeleton->rodata->target_disk_count = static_cast<uint32_t>(disks.size());
  state->skeleton->rodata->pair_bios = request_based;
  bpf_program* program = nullptr;
  bpf_object__for_each_program(program, state->skeleton->obj) {
    bpf_program__set_autoload(program, chosen.count(bpf_program__name(program)) != 0);
  }
  if (const int result = block_stats__load(state->skeleton); result != 0) {
    const int code = result < 0 ? -result : EINVAL;
    return make_error(code, "block trace: loading the BPF programs (" + last_libbpf_message() +
                                "); CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN, are needed");
  }
  return std::unique_ptr<BlockTrace>(new BlockTrace(std::move(state)));
}

Status BlockTrace::attach() {
  auto& state = *state_;
  auto& maps = state.skeleton->maps;
  if (!zero_per_cpu<kdrift_block_counts>(maps.counts, 1) ||
      !zero_per_cpu<kdrift_block_hists>(maps.hists, 1) ||
      !zero_per_cpu<kdrift_latency_hist>(maps.latencies, KDRIFT_LATENCIES)) {
    return make_error(errno, "block trace: zeroing the maps");
  }
  clear_hash(maps.request_starts);
  clear_hash(maps.bio_starts);
  state.skeleton->bss->in_flight = 0;
  // Run-time accounting costs a clock read per program run: on only while attached.
  state.stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
  if (state.stats_fd < 0)
    state.stats_unavailable = std::string("BPF_ENABLE_STATS refused: ") + std::strerror(errno);
  for (const auto& choice : state.choices) {
    if (!choice.program) continue;
    bpf_program* program = state.program(*choice.program);
    state.runs_before[*choice.program] = program_runs(program);
    bpf_link* link = bpf_program__attach(program);
    if (link == nullptr) {
      const int code = errno;
      for (auto* attached : state.links)
        bpf_link__destroy(attached);
      state.links.clear();
      return make_error(code, "block trace: attaching " + choice.tracepoint);
    }
    state.links.push_back(link);
  }
  return ok_status();
}

Json BlockTrace::detach() {
  auto& state = *state_;
  for (auto* link : state.links)
    bpf_link__destroy(link);
  state.links.clear();

  Json programs = Json::object();
  uint64_t missed = 0;
  for (const auto& choice : state.choices) {
    Json entry;
    if (choice.program) {
      const ProgramRuns before = state.runs_before[*choice.program];
      const ProgramRuns after = program_runs(state.program(*choice.program));
      entry = {{"program", *choice.program}, {"missed", after.missed - before.missed}};
      missed += after.missed - before.missed;
      if (state.stats_fd >= 0) {
        entry["run_count"] = after.count - before.count;
        entry["run_time_ns"] = after.time_ns - before.time_ns;
      } else {
        entry["unavailable"]["run_time_ns"] = state.stats_unavailable;
      }
    } else {
      entry = {{"unavailable", choice.reason}};
    }
    programs[choice.tracepoint] = std::move(entry);
  }
  if (state.stats_fd >= 0) {
    ::close(state.stats_fd);
    state.stats_fd = -1;
  }

  auto& maps = state.skeleton->maps;
  kdrift_block_counts counts{};
  for (const auto& cpu : per_cpu_values<kdrift_block_counts>(maps.counts, 0)) {
    const auto* from = reinterpret_cast<const unsigned long long*>(&cpu);
    auto* to = reinterpret_cast<unsigned long long*>(&counts);
    for (size_t i = 0; i < sizeof counts / sizeof(unsigned long long); ++i)
      to[i] += from[i];
  }
  kdrift_block_hists hists{};
  for (const auto& cpu : per_cpu_values<kdrift_block_hists>(maps.hists, 0)) {
    for (size_t i = 0; i < KDRIFT_SIZE_BUCKETS; ++i)
      hists.request_bytes[i] += cpu.request_bytes[i];
    for (size_t i = 0; i < KDRIFT_DEPTH_BUCKETS; ++i)
      hists.depth[i] += cpu.depth[i];
  }
  auto latency = [&](uint32_t which) {
    std::vector<unsigned long long> buckets(KDRIFT_LAT_BUCKETS, 0);
    for (const auto& cpu : per_cpu_values<kdrift_latency_hist>(maps.latencies, which)) {
      for (size_t i = 0; i < KDRIFT_LAT_BUCKETS; ++i)
        buckets[i] += cpu.buckets[i];
    }
    return latency_histogram_json(buckets);
  };

  const uint64_t bios = sum(counts.bios);
  const uint64_t bio_bytes = sum(counts.bio_bytes);
  const uint64_t merges = counts.bio_backmerges + counts.bio_frontmerges + counts.request_merges;
  const uint64_t completed = sum(counts.completed);
  const uint64_t completed_bytes = sum(counts.completed_bytes);
  bool request_based = false;
  Json disks = Json::array();
  for (const auto& disk : state.disks) {
    request_based = request_based || disk.request_based;
    disks.push_back(disk.name);
  }
  const char* directions[] = {"read", "write", "other"};
  Json by_direction = Json::object();
  for (int dir = 0; dir < KDRIFT_DIRS; ++dir) {
    Json entry = {{"bios", counts.bios[dir]}, {"bio_bytes", counts.bio_bytes[dir]}};
    if (request_based) {
      entry["requests_issued"] = counts.issued[dir];
      entry["requests_completed"] = counts.completed[dir];
      entry["bytes_completed"] = counts.completed_bytes[dir];
    }
    by_direction[directions[dir]] = std::move(entry);
  }
  Json block = {{"disks", std::move(disks)},
                {"request_based", request_based},
                {"bios_queued", bios},
                {"bio_bytes", bio_bytes},
                {"splits", counts.splits},
                {"missed_events", missed},
                {"by_direction", std::move(by_direction)}};
  if (request_based) {
    block["requests_inserted"] = counts.inserted;
    block["requests_issued"] = sum(counts.issued);
    block["requests_completed"] = completed;
    block["requests_requeued"] = counts.requeued;
    block["errors"] = counts.errors;
    block["merges"] = merges;
    block["bio_backmerges"] = counts.bio_backmerges;
    block["bio_frontmerges"] = counts.bio_frontmerges;
    block["request_merges"] = counts.request_merges;
    block["sectors_completed"] = completed_bytes / 512;
    block["avg_request_bytes"] = ratio(completed_bytes, completed);
    // As the probe's diskstats: the share of the I/Os that reached the queue and were merged.
    block["merge_ratio"] = ratio(merges, completed + merges);
    block["issued_by_queue_type"] = {
        {"default", counts.issued_by_queue_type[KDRIFT_QUEUE_DEFAULT]},
        {"read", counts.issued_by_queue_type[KDRIFT_QUEUE_READ]},
        {"poll", counts.issued_by_queue_type[KDRIFT_QUEUE_POLL]},
        {"unknown", counts.issued_by_queue_type[KDRIFT_QUEUE_UNKNOWN]}};
    block["device_latency_ns"] = latency(KDRIFT_LAT_DEVICE);
    block["queue_latency_ns"] = latency(KDRIFT_LAT_QUEUE);
    block["bio_latency_ns"] = latency(KDRIFT_LAT_BIO);
    block["request_bytes"] = log2_histogram_json(hists.request_bytes, KDRIFT_SIZE_BUCKETS);
    Json depth = Json::array();
    for (size_t value = 0; value < KDRIFT_DEPTH_BUCKETS; ++value) {
      if (hists.depth[value] == 0) continue;
      depth.push_back({{"in_flight", value}, {"count", hists.depth[value]}});
    }
    block["depth_at_issue"] = std::move(depth);
    block["unmatched_completions"] = counts.unmatched_completions;
    block["in_flight_at_end"] = state.skeleton->bss->in_flight;
    block["dropped_request_starts"] = counts.dropped_request_starts;
    block["dropped_bio_starts"] = counts.dropped_bio_starts;
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
