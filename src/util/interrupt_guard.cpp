#include "util/interrupt_guard.h"

namespace kdrift {
namespace {

constexpr int kSignals[InterruptGuard::kGuardedSignals] = {SIGINT, SIGTERM, SIGHUP};

volatile std::sig_atomic_t received_signal = 0;

void note_signal(int signal) {
  received_signal = signal;
}

}  // namespace

InterruptGuard::InterruptGuard() {
  received_signal = 0;
  struct sigaction action {};
  action.sa_handler = note_signal;
  action.sa_flags = SA_RESTART;
  (void)sigemptyset(&action.sa_mask);
  for (std::size_t i = 0; i < kGuardedSignals; ++i)
    (void)sigaction(kSignals[i], &action, &previous_[i]);
}

InterruptGuard::~InterruptGuard() {
  for (std::size_t i = 0; i < kGuardedSignals; ++i)
    (void)sigaction(kSignals[i], &previous_[i], nullptr);
}

int InterruptGuard::received() {
  return received_signal;
}

}  // namespace kdrift
