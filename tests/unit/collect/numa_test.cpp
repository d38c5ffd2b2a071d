#include "collect/numa.h"

#include <gtest/gtest.h>

#include "support/fixtures.h"

namespace kdrift {
namespace {

using testing::TempDir;

const std::string kNode = "sys/devices/system/node/";

// The head of nodeN/meminfo as a two-socket host prints it.
std::string node_meminfo(int node, const std::string& total_kb, const std::string& free_kb) {
  const std::string prefix = "Node " + std::to_string(node) + " ";
  return prefix + "MemTotal:       " + total_kb + " kB\n" + prefix + "MemFree:        " + free_kb +
         " kB\n" + prefix + "MemUsed:         5288672 kB\n" + prefix +
         "SwapCached:            0 kB\n" + prefix + "Active:          1922472 kB\n" + prefix +
         "HugePages_Total:     0\n" + prefix + "HugePages_Free:      0\n";
}

void write_two_socket_host(const TempDir& tree) {
  tree.write(kNode + "online", "0-1\n");
  tree.write(kNode + "possible", "0-1\n");
  tree.write(kNode + "has_cpu", "0-1\n");
  tree.write(kNode + "node0/cpulist", "0-3,8-11\n");
  tree.write(kNode + "node0/distance", "10 21\n");
  tree.write(kNode + "node0/meminfo", node_meminfo(0, "65600692", "60312020"));
  tree.write(kNode + "node1/cpulist", "4-7,12-15\n");
  tree.write(kNode + "node1/distance", "21 10\n");
  tree.write(kNode + "node1/meminfo", node_meminfo(1, "66059464", "63001112"));
  tree.mkdir(kNode + "power");
  tree.write("proc/sys/kernel/numa_balancing", "1\n");
}

TEST(NumaCollector, TwoSocketHost) {
  TempDir tree;
  write_two_socket_host(tree);
  const Json numa = collect_numa(SysRoot(tree.path()));
  EXPECT_EQ(numa["online"], Json({0, 1}));
  EXPECT_EQ(numa["possible"], Json({0, 1}));
  EXPECT_EQ(numa["kernel.numa_balancing"], 1);
  ASSERT_EQ(numa["nodes"].size(), 2u);
  EXPECT_EQ(
      numa["nodes"][1],
      Json({{"node", 1},
            {"cpulist", "4-7,12-15"},
            {"cpus", {4, 5, 6, 7, 12, 13, 14, 15}},
            {"distance", {21, 10}},
            {"meminfo",
             {{"mem_total_bytes", 66059464ull * 1024}, {"mem_free_bytes", 63001112ull * 1024}}}}));
  EXPECT_EQ(numa["nodes"][0]["distance"], Json({10, 21}));
  EXPECT_FALSE(numa.contains("unavailable"));
}

TEST(NumaCollector, NodesSortNumerically) {
  TempDir tree;
  for (int node : {0, 2, 10}) {
    tree.write(kNode + "node" + std::to_string(node) + "/cpulist", std::to_string(node) + "\n");
  }
  const Json numa = collect_numa(SysRoot(tree.path()));
  ASSERT_EQ(numa["nodes"].size(), 3u);
  EXPECT_EQ(numa["nodes"][2]["node"], 10);
  EXPECT_EQ(numa["nodes"][2]["cpus"], Json({10}));
}

TEST(NumaCollector, OddValuesAreUnavailableWithTheText) {
  TempDir tree;
  write_two_socket_host(tree);
  tree.write(kNode + "online", "zero\n");
  tree.write(kNode + "node1/cpulist", "0-999999999\n");
  tree.write(kNode + "node1/distance", "21 far\n");
  tree.write(kNode + "node1/meminfo", "Node 1 MemTotal:       many kB\n");
  tree.write(kNode + "node0/distance", "");
  tree.write(kNode + "nodeX/cpulist", "0\n");  // not a node
  tree.write("proc/sys/kernel/numa_balancing", "on\n");
  const Json numa = collect_numa(SysRoot(tree.path()));
  EXPECT_NE(numa["unavailable"]["online"].get<std::string>().find("\"zero\""), std::string::npos);
  EXPECT_NE(numa["unavailable"]["kernel.numa_balancing"].get<std::string>().find("\"on\""),
            std::string::npos);
  ASSERT_EQ(numa["nodes"].size(), 2u);
  const Json& node1 = numa["nodes"][1];
  EXPECT_FALSE(node1.contains("cpus"));
  EXPECT_NE(node1["unavailable"]["cpus"].get<std::string>().find("0-999999999"), std::string::npos);
  EXPECT_NE(node1["unavailable"]["distance"].get<std::string>().find("\"21 far\""),
            std::string::npos);
  EXPECT_NE(node1["meminfo"]["unavailable"]["mem_total_bytes"].get<std::string>().find("many kB"),
            std::string::npos);
  EXPECT_NE(node1["meminfo"]["unavailable"]["mem_free_bytes"].get<std::string>().find("no MemFree"),
            std::string::npos);
  EXPECT_NE(numa["nodes"][0]["unavailable"]["distance"].get<std::string>().find("empty"),
            std::string::npos);
}

TEST(NumaCollector, KernelWithoutNumaSaysSo) {
  TempDir tree;
  tree.write("proc/sys/kernel/osrelease", "6.1.0\n");
  const Json numa = collect_numa(SysRoot(tree.path()));
  EXPECT_NE(numa["unavailable"]["nodes"].get<std::string>().find("/sys/devices/system/node"),
            std::string::npos);
  EXPECT_TRUE(numa["unavailable"].contains("kernel.numa_balancing"));
}

// Nodes with a cpumap and no cpulist (POWER7 LPAR of util-linux's lscpu dumps): the cpus come
// from the mask, an empty node stays an empty list, and the mask is kept as printed.
TEST(NumaCollector, CpusFromCpumapWithoutCpulist) {
  TempDir tree;
  tree.write(kNode + "node0/cpumap", "00000000,00000000,ffffffff,ffffffff\n");
  tree.write(kNode + "node1/cpumap", "00000000,00000000,00000000,00000000\n");
  tree.write(kNode + "node2/cpumap", "00000000,zz\n");
  const Json numa = collect_numa(SysRoot(tree.path()));
  ASSERT_EQ(numa["nodes"].size(), 3u);
  EXPECT_EQ(numa["nodes"][0]["cpulist"], "0-63");
  EXPECT_EQ(numa["nodes"][0]["cpus"].size(), 64u);
  EXPECT_EQ(numa["nodes"][0]["cpumap"], "00000000,00000000,ffffffff,ffffffff");
  EXPECT_EQ(numa["nodes"][1]["cpulist"], "");
  EXPECT_EQ(numa["nodes"][1]["cpus"], Json::array());
  const std::string reason = numa["nodes"][2]["unavailable"]["cpus"];
  EXPECT_NE(reason.find("cpulist"), std::string::npos) << reason;
  EXPECT_NE(reason.find("cpumap"), std::string::npos) << reason;
}

}  // namespace
}  // namespace kdrift
