#pragma once
// Commands that hold the host in a changed state (a runtime knob applied) or that stop early on
// request (trace) must not die on Ctrl-C, a service stop or a lost terminal: while a guard lives,
// SIGINT, SIGTERM and SIGHUP only raise a flag the command polls at points where it can put
// things back and stop. SA_RESTART keeps interrupted system calls (a probe's waits) going.

#include <csignal>
#include <cstddef>

namespace kdrift {

class InterruptGuard {
 public:
  static constexpr std::size_t kGuardedSignals = 3;  // SIGINT, SIGTERM, SIGHUP

  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  // The signal that arrived while the guard lived, or 0.
  static int received();

 private:
  struct sigaction previous_[kGuardedSignals] = {};
};

}  // namespace kdrift
