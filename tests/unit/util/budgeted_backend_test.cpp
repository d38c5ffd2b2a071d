#include "util/budgeted_backend.h"

#include <gtest/gtest.h>

#include <cerrno>

#include "support/fixtures.h"
#include "util/directory_backend.h"
#include "util/sysroot.h"

namespace kdrift {
namespace {

using testing::TempDir;

std::shared_ptr<const BudgetedBackend> budgeted(const TempDir& tree, const TreeBudget& budget) {
  return std::make_shared<BudgetedBackend>(std::make_shared<DirectoryBackend>(tree.path()), "TREE",
                                           budget);
}

TEST(BudgetedBackend, PastTheLookupsEveryCallFailsAtOnceAndTheTreeIsRefused) {
  TempDir tree;
  tree.write("proc/cmdline", "quiet\n");
  const auto backend = budgeted(tree, {.operations = 3, .bytes = 1 << 20, .entries = 100});
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(backend->read("/proc/cmdline", 4096, ReadExtent::kWhole).ok());
  ASSERT_TRUE(backend->within_budget().ok());
  const auto refused = backend->kind("/proc");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, E2BIG);
  EXPECT_EQ(refused.error().context,
            "/proc: TREE holds more than 3 lookups and reads, far more than a capture of any "
            "host reads");
  EXPECT_FALSE(backend->read("/proc/cmdline", 4096, ReadExtent::kWhole).ok());
  const auto verdict = backend->within_budget();
  ASSERT_FALSE(verdict.ok());
  EXPECT_EQ(verdict.error().describe(),
            "TREE holds more than 3 lookups and reads, far more than a capture of any host reads");
}

TEST(BudgetedBackend, BytesReadAndEntriesListedAreCountedToo) {
  TempDir tree;
  tree.write("sys/a", std::string(600, 'x'));
  tree.write("sys/b", "1\n");
  tree.write("sys/c", "1\n");
  const auto by_bytes = budgeted(tree, {.operations = 100, .bytes = 1000, .entries = 100});
  ASSERT_TRUE(by_bytes->read("/sys/a", 4096, ReadExtent::kWhole).ok());
  ASSERT_TRUE(by_bytes->read("/sys/a", 4096, ReadExtent::kWhole).ok());
  EXPECT_FALSE(by_bytes->read("/sys/b", 4096, ReadExtent::kWhole).ok());
  EXPECT_NE(by_bytes->within_budget().error().describe().find("more than 1000 bytes"),
            std::string::npos);
  const auto by_entries = budgeted(tree, {.operations = 100, .bytes = 1000, .entries = 4});
  ASSERT_TRUE(by_entries->list("/sys").ok());
  ASSERT_TRUE(by_entries->list("/sys").ok());
  EXPECT_FALSE(by_entries->list("/sys").ok());
  EXPECT_NE(by_entries->within_budget().error().describe().find("more than 4 directory entries"),
            std::string::npos);
}

TEST(BudgetedBackend, EveryRootButTheLiveHostIsHeldToTheBudget) {
  TempDir tree;
  tree.write("proc/cmdline", "quiet\n");
  const SysRoot root(tree.path());
  ASSERT_TRUE(root.read("/proc/cmdline").ok());
  EXPECT_TRUE(root.within_budget().ok());
  EXPECT_TRUE(SysRoot("/").within_budget().ok());
}

}  // namespace
}  // namespace kdrift
