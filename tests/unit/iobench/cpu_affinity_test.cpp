#include "iobench/cpu_affinity.h"

#include <gtest/gtest.h>
#include <sched.h>

#include "support/fixtures.h"

namespace kdrift {
namespace {

using testing::TempDir;

TEST(Placement, CpuListsAndNumaChoices) {
  auto cpus = parse_cpus("0-2,5");
  ASSERT_TRUE(cpus.ok());
  EXPECT_EQ(cpus->kind, Placement::Kind::kCpus);
  EXPECT_EQ(cpus->cpus, (std::vector<int>{0, 1, 2, 5}));
  EXPECT_FALSE(parse_cpus("").ok());
  EXPECT_FALSE(parse_cpus("3-1").ok());
  EXPECT_EQ(parse_numa("local")->kind, Placement::Kind::kNumaLocal);
  EXPECT_EQ(parse_numa("remote")->kind, Placement::Kind::kNumaRemote);
  auto node = parse_numa("1");
  ASSERT_TRUE(node.ok());
  EXPECT_EQ(node->kind, Placement::Kind::kNumaNode);
  EXPECT_EQ(node->node, 1);
  for (const char* bad : {"", "near", "-1", "99999"}) {
    auto placement = parse_numa(bad);
    ASSERT_FALSE(placement.ok()) << bad;
    EXPECT_NE(placement.error().describe().find("--numa"), std::string::npos);
  }
}

// Two nodes with cpus (0-3 and 4-7) and a memory-only node 2.
void write_two_node_host(const TempDir& tree) {
  tree.write("sys/devices/system/node/has_cpu", "0-1\n");
  tree.write("sys/devices/system/node/node0/cpulist", "0-3\n");
  tree.write("sys/devices/system/node/node1/cpulist", "4-7\n");
  tree.write("sys/devices/system/node/node2/cpulist", "\n");
}

ResolvedPlacement resolved(const std::string& numa, std::optional<int> device_node,
                           const SysRoot& root) {
  auto placement = resolve_placement(*parse_numa(numa), device_node, "/dev/vdb", root);
  EXPECT_TRUE(placement.ok()) << placement.error().describe();
  return placement.ok() ? *placement : ResolvedPlacement{};
}

TEST(Placement, NumaChoicesResolveToTheNodesCpus) {
  TempDir tree;
  write_two_node_host(tree);
  const SysRoot root(tree.path());
  EXPECT_EQ(resolved("local", 1, root).description, Json({{"device_numa_node", 1},
                                                          {"source", "--numa local"},
                                                          {"node", 1},
                                                          {"pinned", true},
                                                          {"cpus", {4, 5, 6, 7}}}));
  const auto remote = resolved("remote", 1, root);
  EXPECT_EQ(remote.cpus, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(remote.description["source"], "--numa remote");
  EXPECT_EQ(resolved("1", std::nullopt, root).description, Json({{"device_numa_node", nullptr},
                                                                 {"source", "--numa 1"},
                                                                 {"node", 1},
                                                                 {"pinned", true},
                                                                 {"cpus", {4, 5, 6, 7}}}));
}

TEST(Placement, CpusAndNothingNeedNoTree) {
  const SysRoot root("/nonexistent-root");
  auto cpus = resolve_placement(*parse_cpus("2,3"), 0, "/dev/vdb", root);
  ASSERT_TRUE(cpus.ok());
  EXPECT_EQ(cpus->cpus, (std::vector<int>{2, 3}));
  EXPECT_EQ(
      cpus->description,
      Json({{"device_numa_node", 0}, {"source", "--cpus"}, {"pinned", true}, {"cpus", {2, 3}}}));
  auto none = resolve_placement(Placement{}, std::nullopt, "/dev/vdb", root);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->cpus.empty());
  EXPECT_EQ(none->description, Json({{"device_numa_node", nullptr}, {"pinned", false}}));
}

std::string refusal(const std::string& numa, std::optional<int> device_node, const SysRoot& root) {
  auto placement = resolve_placement(*parse_numa(numa), device_node, "/dev/vdb", root);
  return placement.ok() ? "accepted" : placement.error().describe();
}

TEST(Placement, RefusalsNameWhatIsMissing) {
  TempDir tree;
  write_two_node_host(tree);
  const SysRoot root(tree.path());
  EXPECT_NE(refusal("local", std::nullopt, root)
                .find("--numa local/remote: the device under /dev/vdb reports no NUMA node"),
            std::string::npos);
  EXPECT_NE(refusal("2", 0, root).find("node2/cpulist: no cpus in"), std::string::npos);
  EXPECT_NE(refusal("3", 0, root).find("node3/cpulist"), std::string::npos);

  TempDir single;
  single.write("sys/devices/system/node/has_cpu", "0\n");
  single.write("sys/devices/system/node/node0/cpulist", "0-3\n");
  EXPECT_NE(refusal("remote", 0, SysRoot(single.path()))
                .find("--numa remote: this host has no other node with cpus"),
            std::string::npos);
}

cpu_set_t current_mask() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  EXPECT_EQ(::sched_getaffinity(0, sizeof mask, &mask), 0);
  return mask;
}

TEST(AffinityGuard, PinsForItsLifetimeThenRestores) {
  const cpu_set_t before = current_mask();
  int first = -1;
  for (int cpu = 0; cpu < CPU_SETSIZE && first < 0; ++cpu) {
    if (CPU_ISSET(cpu, &before)) first = cpu;
  }
  ASSERT_GE(first, 0);
  {
    auto guard = AffinityGuard::pin({first});
    ASSERT_TRUE(guard.ok()) << guard.error().describe();
    const cpu_set_t pinned = current_mask();
    EXPECT_EQ(CPU_COUNT(&pinned), 1);
    EXPECT_TRUE(CPU_ISSET(first, &pinned));
    AffinityGuard moved = std::move(*guard);  // only the last owner restores
  }
  const cpu_set_t after = current_mask();
  EXPECT_TRUE(CPU_EQUAL(&before, &after));
}

TEST(AffinityGuard, NoCpusPinsNothingAndBadCpusAreRefused) {
  const cpu_set_t before = current_mask();
  {
    auto guard = AffinityGuard::pin({});
    ASSERT_TRUE(guard.ok());
  }
  const cpu_set_t after = current_mask();
  EXPECT_TRUE(CPU_EQUAL(&before, &after));
  auto negative = AffinityGuard::pin({-1});
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.error().describe().find("cpu -1"), std::string::npos);
  EXPECT_FALSE(AffinityGuard::pin({CPU_SETSIZE}).ok());
}

}  // namespace
}  // namespace kdrift
