#include "collect/memory.h"

#include <gtest/gtest.h>

#include <string>

#include "support/fixtures.h"

namespace kdrift {
namespace {

using testing::TempDir;

constexpr std::string_view kMeminfo =
    "MemTotal:       24683656 kB\n"
    "MemFree:        23859380 kB\n"
    "MemAvailable:   24294228 kB\n"
    "Buffers:           9772 kB\n"
    "Cached:          567968 kB\n"
    "Dirty:              196 kB\n"
    "Writeback:            4 kB\n"
    "WritebackTmp:         0 kB\n"
    "HugePages_Total:     512\n"
    "HugePages_Free:      512\n"
    "HugePages_Rsvd:        0\n"
    "HugePages_Surp:        0\n"
    "Hugepagesize:       2048 kB\n"
    "Hugetlb:        1048576 kB\n"
    "DirectMap4k:     110592 kB\n";

const std::string kThp = "sys/kernel/mm/transparent_hugepage/";

TEST(MemoryCollector, TransparentHugepagesAndMeminfo) {
  TempDir tree;
  tree.write(kThp + "enabled", "always [madvise] never\n");
  tree.write(kThp + "defrag", "always defer defer+madvise [madvise] never\n");
  tree.write("proc/meminfo", kMeminfo);
  tree.write("proc/sys/vm/nr_hugepages", "512\n");
  const Json memory = collect_memory(SysRoot(tree.path()));
  EXPECT_EQ(memory["transparent_hugepage"]["enabled"],
            Json({{"active", "madvise"},
                  {"available", {"always", "madvise", "never"}},
                  {"raw", "always [madvise] never"}}));
  EXPECT_EQ(memory["transparent_hugepage"]["defrag"]["active"], "madvise");
  EXPECT_EQ(memory["transparent_hugepage"]["defrag"]["available"].size(), 5u);
  EXPECT_EQ(memory["meminfo"], Json({{"mem_total_bytes", 24683656ull * 1024},
                                     {"mem_available_bytes", 24294228ull * 1024},
                                     {"hugepages_total", 512},
                                     {"hugepage_size_bytes", 2048 * 1024},
                                     {"dirty_bytes", 196 * 1024},
                                     {"writeback_bytes", 4 * 1024}}));
  EXPECT_EQ(memory["vm.nr_hugepages"], 512);
  EXPECT_FALSE(memory.contains("unavailable"));
}

TEST(MemoryCollector, OddValuesAreUnavailableWithTheText) {
  TempDir tree;
  tree.write(kThp + "enabled", "always madvise never\n");           // nothing in force
  tree.write(kThp + "defrag", "[always] defer [madvise] never\n");  // two in force
  tree.write("proc/meminfo", "MemTotal:       lots kB\nDirty:  12 MB\ngarbage line\n");
  tree.write("proc/sys/vm/nr_hugepages", "");
  const Json memory = collect_memory(SysRoot(tree.path()));
  const Json& thp = memory["transparent_hugepage"];
  EXPECT_NE(thp["unavailable"]["enabled"].get<std::string>().find("\"always madvise never\""),
            std::string::npos);
  EXPECT_TRUE(thp["unavailable"].contains("defrag"));
  const Json& meminfo = memory["meminfo"];
  EXPECT_NE(meminfo["unavailable"]["mem_total_bytes"].get<std::string>().find("\"lots kB\""),
            std::string::npos);
  EXPECT_NE(meminfo["unavailable"]["dirty_bytes"].get<std::string>().find("\"12 MB\""),
            std::string::npos);
  EXPECT_NE(meminfo["unavailable"]["writeback_bytes"].get<std::string>().find("no Writeback"),
            std::string::npos);
  EXPECT_TRUE(memory["unavailable"].contains("vm.nr_hugepages"));
}

TEST(MemoryCollector, MissingFilesAreUnavailable) {
  TempDir tree;
  const Json memory = collect_memory(SysRoot(tree.path()));
  EXPECT_TRUE(memory["unavailable"].contains("meminfo"));
  EXPECT_TRUE(memory["transparent_hugepage"]["unavailable"].contains("enabled"));
}

}  // namespace
}  // namespace kdrift
