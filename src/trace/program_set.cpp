#include "trace/program_set.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

namespace kdrift {
namespace {

std::string& last_message() {
  static std::string message;
  return message;
}

// KDRIFT_BPF_LOG=1 also passes libbpf's warnings, verifier logs included, to stderr.
int keep_message(libbpf_print_level level, const char* format, va_list arguments) {
  if (level == LIBBPF_DEBUG) return 0;
  static const bool verbose = std::getenv("KDRIFT_BPF_LOG") != nullptr;
  if (verbose) {
    va_list copy;
    va_copy(copy, arguments);
    (void)std::vfprintf(stderr, format, copy);
    va_end(copy);
  }
  std::array<char, 512> line{};
  (void)std::vsnprintf(line.data(), line.size(), format, arguments);
  std::string text = line.data();
  while (!text.empty() && text.back() == '\n')
    text.pop_back();
  if (!text.empty()) last_message() = text;
  return 0;
}

}  // namespace

void capture_libbpf_messages() {
  libbpf_set_print(keep_message);
}
const std::string& last_libbpf_message() {
  return last_message();
}

Error load_failure(int result, const std::string& what) {
  const int code = result < 0 ? -result : EINVAL;
  return make_error(code, what + ": loading the BPF programs (" + last_libbpf_message() +
                              "); CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN, are needed");
}

ProgramSet::~ProgramSet() {
  destroy_links();
  if (stats_fd_ >= 0) ::close(stats_fd_);
}

Status ProgramSet::choose(bpf_object* object, const std::vector<TracepointPrograms>& wanted,
                          const TraceFeatures& features, const std::string& what) {
  object_ = object;
  what_ = what;
  choices_ = choose_programs(wanted, features);
  std::set<std::string> chosen;
  std::string reasons;
  for (const auto& choice : choices_) {
    if (choice.program) {
      chosen.insert(*choice.program);
    } else {
      reasons += (reasons.empty() ? "" : "; ") + choice.reason;
    }
  }
  if (chosen.empty()) return make_error(ENOTSUP, what + ": " + reasons);
  bpf_program* program = nullptr;
  bpf_object__for_each_program(program, object) {
    bpf_program__set_autoload(program, chosen.count(bpf_program__name(program)) != 0);
  }
  return ok_status();
}

ProgramSet::Runs ProgramSet::runs_of(const std::string& name) const {
  const bpf_program* program = bpf_object__find_program_by_name(object_, name.c_str());
  bpf_prog_info info{};
  uint32_t length = sizeof info;
  if (program == nullptr || bpf_obj_get_info_by_fd(bpf_program__fd(program), &info, &length) != 0) {
    return {};
  }
  return {info.run_cnt, info.run_time_ns, info.recursion_misses};
}

void ProgramSet::destroy_links() {
  if (links_.empty()) return;
  for (auto* link : links_)
    bpf_link__destroy(link);
  links_.clear();
  wait_for_running_programs();
}

// Destroying a link stops new runs, but a run already under way on another CPU may still be
// between its map updates (a request's start entry deleted, its completion not yet counted):
// reading the maps now would lose it. Tracepoint programs run inside an RCU read-side section,
// and membarrier(MEMBARRIER_CMD_GLOBAL) returns after synchronize_rcu(); where it is refused
// (nohz_full CPUs) a short sleep outlasts any program run by orders of magnitude.
void ProgramSet::wait_for_running_programs() {
  if (::syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) == 0) return;
  ::usleep(10000);
}

Status ProgramSet::attach() {
  // Run-time accounting costs two clock reads per program run: on only while attached.
  if (stats_fd_ < 0) {
    stats_fd_ = bpf_enable_stats(BPF_STATS_RUN_TIME);
    if (stats_fd_ < 0) {
      stats_unavailable_ = std::string("BPF_ENABLE_STATS refused: ") + std::strerror(errno);
    }
  }
  for (const auto& choice : choices_) {
    if (!choice.program) continue;
    before_[*choice.program] = runs_of(*choice.program);
    bpf_program* program = bpf_object__find_program_by_name(object_, choice.program->c_str());
    bpf_link* link = program != nullptr ? bpf_program__attach(program) : nullptr;
    if (link == nullptr) {
      const int code = errno;
      destroy_links();
      return make_error(code, what_ + ": attaching to " + choice.tracepoint);
    }
    links_.push_back(link);
  }
  return ok_status();
}

Json ProgramSet::detach() {
  destroy_links();
  Json programs = Json::object();
  missed_ = 0;
  for (const auto& choice : choices_) {
    Json entry;
    if (choice.program) {
      const Runs before = before_[*choice.program];
      const Runs after = runs_of(*choice.program);
      entry = {{"program", *choice.program}, {"missed", after.missed - before.missed}};
      missed_ += after.missed - before.missed;
      if (stats_fd_ >= 0) {
        entry["run_count"] = after.count - before.count;
        entry["run_time_ns"] = after.time_ns - before.time_ns;
      } else {
        entry["unavailable"]["run_time_ns"] = stats_unavailable_;
      }
    } else {
      entry = {{"unavailable", choice.reason}};
    }
    programs[choice.tracepoint] = std::move(entry);
  }
  if (stats_fd_ >= 0) {
    ::close(stats_fd_);
    stats_fd_ = -1;
  }
  return programs;
}

}  // namespace kdrift
