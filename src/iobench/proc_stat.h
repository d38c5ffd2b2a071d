#pragma once
// What /proc says about the probe's own process during a job: the io_uring SQPOLL thread
// (/proc/self/task/<tid>, "iou-sqp-<pid>") and its CPU time, and the interrupts counted on the
// lines of the device's controller (/proc/interrupts, through collect/irq.h).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "snapshot/snapshot.h"
#include "util/sysroot.h"

namespace kdrift {

// utime + stime of a /proc/<pid>/stat or task stat line, in clock ticks; nullopt when the line
// does not have them. The command name may hold spaces and parentheses: fields count from the
// last ')'.
std::optional<uint64_t> stat_cpu_ticks(std::string_view stat);

// /proc/self/task/<tid> of the io_uring SQPOLL thread, if one is running.
std::optional<std::string> sqpoll_thread_dir(const SysRoot& root);
// utime + stime of the SQPOLL thread, in seconds.
std::optional<double> sqpoll_thread_seconds(const SysRoot& root);
// A closed ring's SQPOLL thread goes on polling until the kernel tears the ring down, up to
// its idle time (1 s): on a small machine it would take a CPU from the next job. Waits for it
// (3 s at most).
void wait_for_sqpoll_exit(const SysRoot& root);

struct DeviceInterrupts {
  uint64_t count = 0;  // summed over the lines, every cpu
  Json lines;          // their names
};

// The interrupt lines that belong to disk's controller; nullopt when none does (virtual devices).
std::optional<DeviceInterrupts> device_interrupts(const SysRoot& root, const std::string& disk);

}  // namespace kdrift
