#pragma once
// The programs of one BPF object that serve a trace: which variant each tracepoint gets (or why
// none), attached and detached around a span, with what each cost (BPF_ENABLE_STATS: runs and
// run time) and what it missed (runs the kernel skipped because the program was already running
// on that CPU). Every trace (block, io_uring, iommu) is one object and one ProgramSet.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "snapshot/snapshot.h"
#include "trace/kernel_features.h"
#include "trace/program_choice.h"
#include "util/result.h"

struct bpf_object;
struct bpf_link;

namespace kdrift {

class ProgramSet {
 public:
  ProgramSet() = default;
  ProgramSet(const ProgramSet&) = delete;
  ProgramSet& operator=(const ProgramSet&) = delete;
  ~ProgramSet();

  // For an opened, not yet loaded object: marks the chosen programs for loading and the others
  // not. An error naming every reason when no tracepoint has a program.
  Status choose(bpf_object* object, const std::vector<TracepointPrograms>& wanted,
                const TraceFeatures& features, const std::string& what);

  Status attach();
  // Detaches; {tracepoint: {program, run_count, run_time_ns, missed} | {unavailable}}.
  Json detach();
  uint64_t missed() const { return missed_; }

 private:
  struct Runs {
    uint64_t count = 0;
    uint64_t time_ns = 0;
    uint64_t missed = 0;
  };
  Runs runs_of(const std::string& program) const;
  void destroy_links();
  static void wait_for_running_programs();

  bpf_object* object_ = nullptr;  // owned by the skeleton
  std::string what_;
  std::vector<ProgramChoice> choices_;
  std::vector<bpf_link*> links_;
  std::map<std::string, Runs> before_;
  int stats_fd_ = -1;
  std::string stats_unavailable_;
  uint64_t missed_ = 0;
};

// libbpf's last warning (it prints to stderr by default): the detail a failed load reports.
void capture_libbpf_messages();
const std::string& last_libbpf_message();

// A load failure of `what`, with the capabilities BPF tracing needs.
Error load_failure(int result, const std::string& what);

}  // namespace kdrift
