#include "collect/environment.h"

#include <gtest/gtest.h>

#include "support/fixtures.h"

namespace kdrift {
namespace {

using testing::TempDir;

// The lines of /proc/<pid>/status a capture looks at, amid their real neighbours (6.1, a
// process under a systemd unit with SystemCallFilter=).
constexpr std::string_view kFilteredStatus =
    "Name:\tkdrift\n"
    "Umask:\t0022\n"
    "State:\tR (running)\n"
    "Tgid:\t4242\n"
    "CapEff:\t0000000000000000\n"
    "NoNewPrivs:\t1\n"
    "Seccomp:\t2\n"
    "Seccomp_filters:\t1\n"
    "Speculation_Store_Bypass:\tthread force mitigated\n"
    "Cpus_allowed:\tff\n"
    "Cpus_allowed_list:\t0-7\n"
    "Mems_allowed:\t00000000,00000001\n"
    "Mems_allowed_list:\t0\n"
    "voluntary_ctxt_switches:\t3\n";

// A database host: cgroup v2 only, irqbalance and tuned running, QEMU/KVM DMI strings.
void write_database_host(const TempDir& tree) {
  tree.write("proc/sys/kernel/hostname", "db-7\n");
  tree.write("proc/cpuinfo",
             "processor\t: 0\nvendor_id\t: GenuineIntel\n"
             "flags\t\t: fpu vme de pse tsc msr hypervisor lahf_lm\n\n");
  tree.symlink("proc/self", "4242");
  tree.write("proc/4242/status", kFilteredStatus);
  tree.write("proc/4242/cgroup", "0::/system.slice/postgresql.service\n");
  tree.write("proc/4242/comm", "kdrift\n");
  tree.write("proc/1/comm", "systemd\n");
  tree.write("proc/2/comm", "kthreadd\n");
  tree.write("proc/917/comm", "irqbalance\n");
  tree.write("proc/1021/comm", "tuned\n");
  tree.write("proc/meminfo", "MemTotal: 1 kB\n");
  tree.write("etc/tuned/active_profile", "throughput-performance\n");
  tree.write("sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory hugetlb pids rdma misc\n");
  const std::string unit = "sys/fs/cgroup/system.slice/postgresql.service/";
  tree.write(unit + "cpuset.cpus.effective", "0-7\n");
  tree.write(unit + "io.max", "259:0 rbps=max wbps=104857600 riops=max wiops=max\n");
  tree.write(unit + "io.weight", "default 100\n");
  tree.write("sys/devices/virtual/dmi/id/sys_vendor", "QEMU\n");
  tree.write("sys/devices/virtual/dmi/id/product_name", "Standard PC (Q35 + ICH9, 2009)\n");
  tree.write("sys/devices/virtual/dmi/id/bios_vendor", "SeaBIOS\n");
  tree.symlink("sys/class/dmi/id", "../../devices/virtual/dmi/id");
}

TEST(EnvironmentCollector, DatabaseHostUnderSeccompInACgroup) {
  TempDir tree;
  write_database_host(tree);
  const Json environment = collect_environment(SysRoot(tree.path()));
  EXPECT_EQ(environment["hostname"], "db-7");

  const Json& virtualization = environment["virtualization"];
  EXPECT_EQ(virtualization["cpuinfo_hypervisor_flag"], true);
  EXPECT_EQ(virtualization["dmi"], Json({{"sys_vendor", "QEMU"},
                                         {"product_name", "Standard PC (Q35 + ICH9, 2009)"},
                                         {"bios_vendor", "SeaBIOS"}}));
  EXPECT_TRUE(virtualization["unavailable"].contains("hypervisor_type"));

  const Json& process = environment["process"];
  EXPECT_EQ(process["seccomp"], "filter");
  EXPECT_EQ(process["seccomp_filters"], 1);
  EXPECT_EQ(process["no_new_privs"], 1);
  EXPECT_EQ(process["cpus_allowed"], Json({0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(process["mems_allowed"], Json::array({0}));
  const Json& cgroup = process["cgroup"];
  EXPECT_FALSE(cgroup.contains("v1"));
  EXPECT_EQ(cgroup["v2"],
            Json({{"path", "/system.slice/postgresql.service"},
                  {"mount", "/sys/fs/cgroup"},
                  {"mount_controllers",
                   {"cpuset", "cpu", "io", "memory", "hugetlb", "pids", "rdma", "misc"}},
                  {"cpuset.cpus.effective", {0, 1, 2, 3, 4, 5, 6, 7}},
                  {"io.max", "259:0 rbps=max wbps=104857600 riops=max wiops=max"},
                  {"io.weight", "default 100"}}));

  EXPECT_EQ(environment["services"]["irqbalance"], Json({{"running", true}}));
  EXPECT_EQ(environment["services"]["tuned"],
            Json({{"running", true}, {"active_profile", "throughput-performance"}}));

  const Json& libraries = environment["libraries"];
  for (const char* library : {"libaio", "libbpf", "libpci", "liburing"}) {
    EXPECT_FALSE(libraries[library]["built_with"].get<std::string>().empty()) << library;
  }
  EXPECT_EQ(libraries["libbpf"]["loaded"].get<std::string>().substr(0, 1), "v");
}

TEST(EnvironmentCollector, FirecrackerGuestInAHybridHierarchy) {
  TempDir tree;
  tree.write("proc/sys/kernel/hostname", "vm\n");
  tree.write("proc/cpuinfo",
             "processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu hypervisor\n\n");
  tree.symlink("proc/self", "77");
  tree.write("proc/77/status",
             "Name:\tkdrift\nNoNewPrivs:\t0\nSeccomp:\t0\nSeccomp_filters:\t0\n"
             "Cpus_allowed_list:\t0-1\nMems_allowed_list:\t0\n");
  tree.write("proc/77/cgroup",
             "9:name=systemd:/\n8:pids:/\n4:memory:/process_api/dea92346\n3:cpuset:/\n"
             "1:cpu,cpuacct:/\n0::/\n");
  tree.write("proc/77/comm", "kdrift\n");
  tree.write("sys/fs/cgroup/unified/cgroup.controllers", "\n");
  const Json environment = collect_environment(SysRoot(tree.path()));

  const Json& virtualization = environment["virtualization"];
  EXPECT_EQ(virtualization["cpuinfo_hypervisor_flag"], true);
  EXPECT_NE(virtualization["unavailable"]["dmi"].get<std::string>().find("no DMI tables"),
            std::string::npos);

  const Json& cgroup = environment["process"]["cgroup"];
  EXPECT_EQ(cgroup["v1"], Json({{"name=systemd", "/"},
                                {"pids", "/"},
                                {"memory", "/process_api/dea92346"},
                                {"cpuset", "/"},
                                {"cpu,cpuacct", "/"}}));
  EXPECT_EQ(cgroup["v2"]["mount"], "/sys/fs/cgroup/unified");
  EXPECT_EQ(cgroup["v2"]["mount_controllers"], Json::array());
  EXPECT_NE(cgroup["v2"]["unavailable"]["io.max"].get<std::string>().find("root cgroup"),
            std::string::npos);
  EXPECT_EQ(environment["process"]["seccomp"], "disabled");
  EXPECT_EQ(environment["services"]["irqbalance"]["running"], false);
  EXPECT_EQ(environment["services"]["tuned"]["running"], false);
  EXPECT_TRUE(environment["services"]["tuned"]["unavailable"].contains("active_profile"));
}

TEST(EnvironmentCollector, OddValuesAreUnavailableWithTheText) {
  TempDir tree;
  write_database_host(tree);
  tree.write("proc/4242/status",
             "Seccomp:\t7\nNoNewPrivs:\tyes\nCpus_allowed_list:\t0-4000000000\n");
  tree.write("proc/4242/cgroup", "garbage\n");
  tree.write("proc/cpuinfo", "");
  const Json environment = collect_environment(SysRoot(tree.path()));
  const Json& process = environment["process"];
  EXPECT_NE(process["unavailable"]["seccomp"].get<std::string>().find("\"7\""), std::string::npos);
  EXPECT_NE(process["unavailable"]["no_new_privs"].get<std::string>().find("\"yes\""),
            std::string::npos);
  EXPECT_NE(process["unavailable"]["seccomp_filters"].get<std::string>().find("no such line"),
            std::string::npos);
  EXPECT_TRUE(process["unavailable"].contains("cpus_allowed"));
  EXPECT_NE(process["cgroup"]["unavailable"]["v2"].get<std::string>().find("\"garbage\""),
            std::string::npos);
  EXPECT_NE(environment["virtualization"]["unavailable"]["cpuinfo_hypervisor_flag"]
                .get<std::string>()
                .find("empty"),
            std::string::npos);
}

TEST(EnvironmentCollector, ProcessesWithoutNamesTellNothingAboutServices) {
  // A sos report copies /proc/<pid>/mountinfo of a few processes and no comm.
  TempDir tree;
  tree.write("proc/1/mountinfo", "22 1 253:1 / / rw - ext4 /dev/vda rw\n");
  tree.write("proc/7081/mountinfo", "22 1 253:1 / / rw - ext4 /dev/vda rw\n");
  const Json environment = collect_environment(SysRoot(tree.path()));
  EXPECT_FALSE(environment["services"]["irqbalance"].contains("running"));
  EXPECT_NE(
      environment["services"]["tuned"]["unavailable"]["running"].get<std::string>().find("comm"),
      std::string::npos);
}

TEST(EnvironmentCollector, EmptyTreeDegradesWithReasons) {
  TempDir tree;
  const Json environment = collect_environment(SysRoot(tree.path()));
  EXPECT_TRUE(environment["unavailable"].contains("hostname"));
  EXPECT_TRUE(environment["process"]["unavailable"].contains("seccomp"));
  EXPECT_TRUE(environment["process"]["cgroup"]["unavailable"].contains("v2"));
  EXPECT_TRUE(environment["services"]["irqbalance"]["unavailable"].contains("running"));
  EXPECT_TRUE(environment["libraries"].contains("liburing"));
}

}  // namespace
}  // namespace kdrift
