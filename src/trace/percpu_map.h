#pragma once
// Per-CPU array maps as kdrift's programs use them: each CPU counts into its own copy without
// atomics; user space zeroes every copy before a span and adds them up after.

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace kdrift {

// Every CPU's copy of entry `key`; empty when the map cannot be read.
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

// Zeroes entries 0..entries-1 on every CPU.
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

// The sum over CPUs of a struct made only of 64-bit counters.
template <typename Counters>
Counters sum_counters(const std::vector<Counters>& per_cpu) {
  static_assert(sizeof(Counters) % sizeof(uint64_t) == 0);
  constexpr size_t kFields = sizeof(Counters) / sizeof(uint64_t);
  uint64_t total[kFields] = {};
  for (const auto& cpu : per_cpu) {
    uint64_t fields[kFields];
    std::memcpy(fields, &cpu, sizeof cpu);
    for (size_t i = 0; i < kFields; ++i)
      total[i] += fields[i];
  }
  Counters out{};
  std::memcpy(&out, total, sizeof out);
  return out;
}

}  // namespace kdrift
