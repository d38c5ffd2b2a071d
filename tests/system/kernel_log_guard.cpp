// After the privileged tests of a process, the kernel log must hold no splat: a probe that
// trips a WARN or BUG in io_uring or the block layer is a failure even when its own checks pass
// (liburing's test harness does the same).

#include <gtest/gtest.h>

#include <string>

#include "support/system.h"

namespace kdrift {
namespace {

constexpr const char* kSplatPattern =
    "'(BUG:|WARNING:|Oops|Call Trace:|general protection fault|kernel BUG|list_del corruption)'";

class KernelLogGuard : public ::testing::Environment {
 public:
  void SetUp() override {
    const auto lines = testing::run_command("dmesg 2>/dev/null | wc -l", true);
    start_line_ = lines.status == 0 ? std::stoul(lines.out.empty() ? "0" : lines.out) : 0;
  }
  void TearDown() override {
    if (!testing::is_root()) return;
    const auto splats = testing::run_command(
        "dmesg | tail -n +" + std::to_string(start_line_ + 1) + " | grep -E " + kSplatPattern,
        true);
    EXPECT_NE(splats.status, 0) << "kernel log shows a splat during the tests:\n" << splats.out;
  }

 private:
  unsigned long start_line_ = 0;
};

const auto* const kGuard = ::testing::AddGlobalTestEnvironment(new KernelLogGuard);

}  // namespace
}  // namespace kdrift
