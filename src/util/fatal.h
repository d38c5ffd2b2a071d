#pragma once
// The one exception type. Thrown where the command cannot go on (bad usage, unreadable input the
// user named); caught only in main, which prints it and exits with its status.

#include <stdexcept>
#include <string>

namespace kdrift {

// Exit statuses are a contract (see README): 0 clean, 1 findings/regression, 2 usage/input error,
// 3 undecided (no finding or regression, but a comparison the data could not decide:
// rules/analysis.h).
enum ExitStatus : int { kExitClean = 0, kExitFindings = 1, kExitUsage = 2, kExitUndecided = 3 };

class FatalError : public std::runtime_error {
 public:
  explicit FatalError(const std::string& message, int exit_status = kExitUsage)
      : std::runtime_error(message), exit_status_(exit_status) {}
  int exit_status() const { return exit_status_; }

 private:
  int exit_status_;
};

}  // namespace kdrift
