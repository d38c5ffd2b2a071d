#include "collect/cpu.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "support/fixtures.h"

namespace kdrift {
namespace {

using testing::TempDir;

// The first two blocks of /proc/cpuinfo on a Xeon Gold 6230 host (bare metal, 5.15).
constexpr std::string_view kXeonCpuinfo =
    "processor\t: 0\n"
    "vendor_id\t: GenuineIntel\n"
    "cpu family\t: 6\n"
    "model\t\t: 85\n"
    "model name\t: Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz\n"
    "stepping\t: 7\n"
    "microcode\t: 0x5003604\n"
    "cpu MHz\t\t: 1000.000\n"
    "cache size\t: 28160 KB\n"
    "physical id\t: 0\n"
    "siblings\t: 40\n"
    "core id\t\t: 0\n"
    "cpu cores\t: 20\n"
    "apicid\t\t: 0\n"
    "initial apicid\t: 0\n"
    "fpu\t\t: yes\n"
    "fpu_exception\t: yes\n"
    "cpuid level\t: 22\n"
    "wp\t\t: yes\n"
    "flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush "
    "dts acpi mmx fxsr sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc art "
    "arch_perfmon pebs bts rep_good nopl xtopology nonstop_tsc cpuid aperfmperf pni pclmulqdq "
    "dtes64 monitor ds_cpl vmx smx est tm2 ssse3 sdbg fma cx16 xtpr pdcm pcid dca sse4_1 sse4_2 "
    "x2apic movbe popcnt tsc_deadline_timer aes xsave avx f16c rdrand lahf_lm abm 3dnowprefetch "
    "cpuid_fault epb cat_l3 cdp_l3 invpcid_single intel_ppin ssbd mba ibrs ibpb stibp "
    "ibrs_enhanced tpr_shadow vnmi flexpriority ept vpid ept_ad fsgsbase tsc_adjust bmi1 avx2 "
    "smep bmi2 erms invpcid cqm mpx rdt_a avx512f avx512dq rdseed adx smap clflushopt clwb "
    "intel_pt avx512cd avx512bw avx512vl xsaveopt xsavec xgetbv1 xsaves cqm_llc cqm_occup_llc "
    "cqm_mbm_total cqm_mbm_local dtherm ida arat pln pts hwp hwp_act_window hwp_epp hwp_pkg_req "
    "pku ospke avx512_vnni md_clear flush_l1d arch_capabilities\n"
    "vmx flags\t: vnmi preemption_timer posted_intr invvpid ept_x_only ept_ad ept_1gb "
    "flexpriority apicv tsc_offset vtpr mtf vapic ept vpid unrestricted_guest vapic_reg vid ple "
    "shadow_vmcs pml ept_mode_based_exec tsc_scaling\n"
    "bugs\t\t: spectre_v1 spectre_v2 spec_store_bypass swapgs taa itlb_multihit "
    "mmio_stale_data retbleed eibrs_pbrsb gds bhi\n"
    "bogomips\t: 4200.00\n"
    "clflush size\t: 64\n"
    "cache_alignment\t: 64\n"
    "address sizes\t: 46 bits physical, 48 bits virtual\n"
    "power management:\n"
    "\n"
    "processor\t: 1\n"
    "vendor_id\t: GenuineIntel\n"
    "cpu family\t: 6\n"
    "model\t\t: 85\n"
    "model name\t: Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz\n"
    "stepping\t: 7\n"
    "microcode\t: 0x5003604\n"
    "\n";

const std::string kCpu = "sys/devices/system/cpu/";

// intel_pstate in active mode (one policy per cpu, powersave), intel_idle with four states on
// the first idle_cpus cpus.
void write_intel_host(const TempDir& tree, int cpus, int idle_cpus) {
  tree.write("proc/cpuinfo", kXeonCpuinfo);
  const std::string all = "0-" + std::to_string(cpus - 1) + "\n";
  tree.write(kCpu + "online", all);
  tree.write(kCpu + "possible", all);
  tree.write(kCpu + "present", all);
  tree.write(kCpu + "smt/control", "on\n");
  tree.write(kCpu + "smt/active", "1\n");
  tree.write(kCpu + "intel_pstate/status", "active\n");
  tree.write(kCpu + "intel_pstate/no_turbo", "0\n");
  tree.write(kCpu + "intel_pstate/min_perf_pct", "18\n");
  tree.write(kCpu + "intel_pstate/max_perf_pct", "100\n");
  tree.write(kCpu + "cpuidle/current_driver", "intel_idle\n");
  tree.write(kCpu + "cpuidle/current_governor_ro", "menu\n");
  tree.write(kCpu + "isolated", "\n");
  tree.write(kCpu + "nohz_full", "(null)\n");
  tree.write(kCpu + "vulnerabilities/meltdown", "Not affected\n");
  tree.write(kCpu + "vulnerabilities/spectre_v2",
             "Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; RSB filling; "
             "PBRSB-eIBRS: SW sequence; BHI: SW loop, KVM: SW loop\n");
  struct State {
    const char* name;
    const char* desc;
    const char* latency;
    const char* residency;
  };
  constexpr State kStates[] = {{"POLL", "CPUIDLE CORE POLL IDLE", "0", "0"},
                               {"C1", "MWAIT 0x00", "2", "2"},
                               {"C1E", "MWAIT 0x01", "10", "20"},
                               {"C6", "MWAIT 0x20", "133", "400"}};
  for (int cpu = 0; cpu < cpus; ++cpu) {
    const std::string policy = kCpu + "cpufreq/policy" + std::to_string(cpu) + "/";
    tree.write(policy + "affected_cpus", std::to_string(cpu) + "\n");
    tree.write(policy + "scaling_governor", "powersave\n");
    tree.write(policy + "scaling_driver", "intel_pstate\n");
    tree.write(policy + "scaling_available_governors", "performance powersave\n");
    tree.write(policy + "energy_performance_preference", "balance_performance\n");
    tree.write(policy + "scaling_min_freq", "800000\n");
    tree.write(policy + "scaling_max_freq", "3900000\n");
    tree.write(policy + "cpuinfo_min_freq", "800000\n");
    tree.write(policy + "cpuinfo_max_freq", "3900000\n");
    for (int state = 0; state < 4 && cpu < idle_cpus; ++state) {
      const std::string dir =
          kCpu + "cpu" + std::to_string(cpu) + "/cpuidle/state" + std::to_string(state) + "/";
      tree.write(dir + "name", std::string(kStates[state].name) + "\n");
      tree.write(dir + "desc", std::string(kStates[state].desc) + "\n");
      tree.write(dir + "latency", std::string(kStates[state].latency) + "\n");
      tree.write(dir + "residency", std::string(kStates[state].residency) + "\n");
      tree.write(dir + "disable", "0\n");
    }
  }
}

TEST(CpuCollector, IntelHostWithPstatePowersave) {
  TempDir tree;
  write_intel_host(tree, 4, 4);
  tree.write(kCpu + "cpu2/cpuidle/state3/disable", "1\n");  // cpupower -c 2 idle-set -d 3
  const Json cpu = collect_cpu(SysRoot(tree.path()));

  const Json& processor = cpu["processor"];
  EXPECT_EQ(processor["vendor"], "GenuineIntel");
  EXPECT_EQ(processor["model_name"], "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz");
  EXPECT_EQ(processor["family"], 6);
  EXPECT_EQ(processor["model"], 85);
  EXPECT_EQ(processor["stepping"], 7);
  EXPECT_EQ(processor["microcode"], "0x5003604");
  EXPECT_EQ(processor["hypervisor"], false);  // "vmx flags" is not "flags"
  EXPECT_EQ(cpu["cpus"]["online"], Json({{"list", "0-3"}, {"count", 4}}));
  EXPECT_EQ(cpu["smt"], Json({{"control", "on"}, {"active", 1}}));

  const Json& cpufreq = cpu["cpufreq"];
  ASSERT_EQ(cpufreq["policies"].size(), 4u);
  const Json& policy = cpufreq["policies"][1];
  EXPECT_EQ(policy["policy"], 1);
  EXPECT_EQ(policy["affected_cpus"], Json::array({1}));
  EXPECT_EQ(policy["scaling_governor"], "powersave");
  EXPECT_EQ(policy["scaling_available_governors"], Json::array({"performance", "powersave"}));
  EXPECT_EQ(policy["energy_performance_preference"], "balance_performance");
  EXPECT_EQ(policy["scaling_max_freq"], 3900000);
  EXPECT_FALSE(policy.contains("unavailable")) << policy.dump();
  EXPECT_EQ(cpufreq["summary"]["uniform"], true);
  EXPECT_EQ(cpufreq["summary"]["scaling_governor"], Json({{"powersave", {0, 1, 2, 3}}}));
  EXPECT_EQ(
      cpufreq["intel_pstate"],
      Json({{"status", "active"}, {"no_turbo", 0}, {"min_perf_pct", 18}, {"max_perf_pct", 100}}));
  EXPECT_TRUE(cpufreq["unavailable"].contains("amd_pstate"));
  EXPECT_TRUE(cpufreq["unavailable"].contains("boost"));  // intel_pstate has no_turbo instead

  const Json& idle = cpu["cpuidle"];
  EXPECT_EQ(idle["driver"], "intel_idle");
  EXPECT_EQ(idle["governor"], "menu");  // from current_governor_ro
  ASSERT_EQ(idle["states"].size(), 4u);
  EXPECT_EQ(idle["states"][3], Json({{"state", 3},
                                     {"name", "C6"},
                                     {"desc", "MWAIT 0x20"},
                                     {"latency", 133},
                                     {"residency", 400},
                                     {"disable", 0},
                                     {"disabled_on", {2}}}));
  EXPECT_EQ(idle["states"][1]["disabled_on"], Json::array());

  EXPECT_EQ(cpu["vulnerabilities"]["meltdown"], "Not affected");
  EXPECT_EQ(cpu["isolation"]["isolated"], Json::array());
  EXPECT_EQ(cpu["isolation"]["nohz_full"], Json::array());  // "(null)" means none
  EXPECT_FALSE(cpu.contains("unavailable"));
}

TEST(CpuCollector, MixedGovernorsAreSummarisedPerValue) {
  TempDir tree;
  write_intel_host(tree, 12, 1);
  tree.write(kCpu + "cpufreq/policy10/scaling_governor", "performance\n");
  tree.write(kCpu + "cpufreq/policy2/scaling_governor", "performance\n");
  const Json cpufreq = collect_cpu(SysRoot(tree.path()))["cpufreq"];
  EXPECT_EQ(cpufreq["summary"]["uniform"], false);
  EXPECT_EQ(cpufreq["summary"]["scaling_governor"],
            Json({{"performance", {2, 10}}, {"powersave", {0, 1, 3, 4, 5, 6, 7, 8, 9, 11}}}));
  std::vector<int> order;
  for (const auto& policy : cpufreq["policies"])
    order.push_back(policy["policy"].get<int>());
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));  // numeric
}

// A governor unreadable in one policy may differ there: the others' agreement is not
// "uniform". A policy left out (its cpus unknown) leaves it unknown too.
TEST(CpuCollector, AnUnknownPolicySettingLeavesUniformUnknown) {
  TempDir tree;
  write_intel_host(tree, 4, 1);
  std::filesystem::remove(tree.path() + "/" + kCpu + "cpufreq/policy2/scaling_governor");
  Json summary = collect_cpu(SysRoot(tree.path()))["cpufreq"]["summary"];
  EXPECT_FALSE(summary.contains("uniform"));
  EXPECT_EQ(summary["unavailable"]["uniform"], "scaling_governor is unknown in policy2");
  EXPECT_EQ(summary["scaling_governor"], Json({{"powersave", {0, 1, 3}}}));

  TempDir left_out;
  write_intel_host(left_out, 4, 1);
  std::filesystem::remove(left_out.path() + "/" + kCpu + "cpufreq/policy1/affected_cpus");
  summary = collect_cpu(SysRoot(left_out.path()))["cpufreq"]["summary"];
  EXPECT_EQ(summary["unavailable"]["uniform"], "policy1 was left out");

  // A setting no policy has (no EPP driver) is no doubt.
  TempDir no_epp;
  write_intel_host(no_epp, 2, 1);
  for (const char* policy : {"policy0", "policy1"}) {
    std::filesystem::remove(no_epp.path() + "/" + kCpu + "cpufreq/" + policy +
                            "/energy_performance_preference");
  }
  EXPECT_EQ(collect_cpu(SysRoot(no_epp.path()))["cpufreq"]["summary"]["uniform"], true);
}

TEST(CpuCollector, SharedPolicyListsItsCpusOnce) {
  TempDir tree;
  write_intel_host(tree, 4, 4);
  // acpi-cpufreq on a host whose firmware coordinates all cpus: one policy for four cpus.
  for (int cpu = 1; cpu < 4; ++cpu) {
    std::filesystem::remove_all(tree.path() + "/" + kCpu + "cpufreq/policy" + std::to_string(cpu));
  }
  tree.write(kCpu + "cpufreq/policy0/affected_cpus", "0 1 2 3 \n");
  tree.write(kCpu + "cpufreq/policy0/scaling_driver", "acpi-cpufreq\n");
  tree.write(kCpu + "cpufreq/boost", "1\n");
  const Json cpufreq = collect_cpu(SysRoot(tree.path()))["cpufreq"];
  ASSERT_EQ(cpufreq["policies"].size(), 1u);
  EXPECT_EQ(cpufreq["policies"][0]["affected_cpus"], Json({0, 1, 2, 3}));
  EXPECT_EQ(cpufreq["summary"]["scaling_driver"], Json({{"acpi-cpufreq", {0, 1, 2, 3}}}));
  EXPECT_EQ(cpufreq["boost"], 1);
}

TEST(CpuCollector, FirecrackerGuestHasNoCpufreqAndNoIdleStatesWithReasons) {
  TempDir tree;
  tree.write("proc/cpuinfo",
             "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\n"
             "model name\t: AMD EPYC\nstepping\t: 1\nmicrocode\t: 0x1000065\n"
             "flags\t\t: fpu vme de pse tsc msr hypervisor lahf_lm\n\n");
  tree.write(kCpu + "online", "0-1\n");
  tree.write(kCpu + "smt/control", "notsupported\n");
  tree.write(kCpu + "smt/active", "0\n");
  tree.mkdir(kCpu + "cpufreq");
  tree.write(kCpu + "cpuidle/current_driver", "none\n");
  tree.write(kCpu + "cpuidle/current_governor", "menu\n");
  tree.mkdir(kCpu + "cpu0");
  const Json cpu = collect_cpu(SysRoot(tree.path()));
  EXPECT_EQ(cpu["processor"]["hypervisor"], true);
  const std::string policies = cpu["cpufreq"]["unavailable"]["policies"];
  EXPECT_NE(policies.find("no cpufreq driver"), std::string::npos) << policies;
  EXPECT_FALSE(cpu["cpufreq"].contains("policies"));
  const std::string states = cpu["cpuidle"]["unavailable"]["states"];
  EXPECT_NE(states.find("cpu0/cpuidle"), std::string::npos) << states;
  EXPECT_NE(states.find("\"none\""), std::string::npos) << states;
  EXPECT_EQ(cpu["cpuidle"]["governor"], "menu");
  EXPECT_TRUE(cpu["cpus"]["unavailable"].contains("possible"));
}

TEST(CpuCollector, OddValuesAreUnavailableWithTheText) {
  TempDir tree;
  write_intel_host(tree, 2, 2);
  tree.write("proc/cpuinfo", "processor\t: 0\ncpu family\t: six\n\n");
  tree.write(kCpu + "online", "0-4000000000\n");
  tree.write(kCpu + "possible", "0-99999\n");  // beyond any NR_CPUS
  tree.write(kCpu + "present", "banana\n");
  tree.write(kCpu + "smt/active", "");
  tree.write(kCpu + "isolated", "\xff\xfe");
  tree.write(kCpu + "cpufreq/policy0/affected_cpus", "0 x\n");
  tree.write(kCpu + "cpufreq/policy0/scaling_min_freq", "\n");
  tree.write(kCpu + "cpufreq/policyX/scaling_governor", "performance\n");  // not a policy
  tree.write(kCpu + "cpu0/cpuidle/state1/latency", "soon\n");
  const Json cpu = collect_cpu(SysRoot(tree.path()));

  const Json& processor = cpu["processor"];
  EXPECT_NE(processor["unavailable"]["family"].get<std::string>().find("\"six\""),
            std::string::npos);
  EXPECT_NE(processor["unavailable"]["model_name"].get<std::string>().find("no \"model name\""),
            std::string::npos);
  EXPECT_TRUE(processor["unavailable"].contains("hypervisor"));
  for (const char* set : {"online", "possible", "present"}) {
    EXPECT_FALSE(cpu["cpus"].contains(set)) << set;
    EXPECT_NE(cpu["cpus"]["unavailable"][set].get<std::string>().find("expected a list of ids"),
              std::string::npos)
        << set;
  }
  EXPECT_TRUE(cpu["smt"]["unavailable"].contains("active"));
  EXPECT_NE(cpu["isolation"]["unavailable"]["isolated"].get<std::string>().find("\\xff\\xfe"),
            std::string::npos);

  const Json& cpufreq = cpu["cpufreq"];
  ASSERT_EQ(cpufreq["policies"].size(), 2u);
  const Json& policy0 = cpufreq["policies"][0];
  EXPECT_NE(policy0["unavailable"]["affected_cpus"].get<std::string>().find("\"0 x\""),
            std::string::npos);
  EXPECT_TRUE(policy0["unavailable"].contains("scaling_min_freq"));
  EXPECT_TRUE(cpufreq["summary"]["unavailable"].contains("policy0"));
  EXPECT_EQ(cpufreq["summary"]["scaling_governor"], Json({{"powersave", {1}}}));

  // online could not be read: the idle states still come from cpu0, without the per-cpu check.
  const Json& state1 = cpu["cpuidle"]["states"][1];
  EXPECT_TRUE(state1["unavailable"].contains("latency"));
  EXPECT_FALSE(state1.contains("disabled_on"));
}

TEST(CpuCollector, ManyCpusCheckOnlyTheReferenceCpuForDisabledStates) {
  TempDir tree;
  write_intel_host(tree, 2, 2);
  tree.write(kCpu + "online", "0-511\n");
  const Json idle = collect_cpu(SysRoot(tree.path()))["cpuidle"];
  const std::string reason = idle["unavailable"]["disabled_on"];
  EXPECT_NE(reason.find("512 online cpus x 4 states"), std::string::npos) << reason;
  EXPECT_FALSE(idle["states"][0].contains("disabled_on"));
}

TEST(CpuCollector, EmptyTreeDegradesWithReasons) {
  TempDir tree;
  const Json cpu = collect_cpu(SysRoot(tree.path()));
  EXPECT_TRUE(cpu["unavailable"].contains("processor"));
  EXPECT_TRUE(cpu["cpufreq"]["unavailable"].contains("policies"));
  EXPECT_TRUE(cpu["cpuidle"]["unavailable"].contains("states"));
  EXPECT_TRUE(cpu["vulnerabilities"]["unavailable"].contains("*"));
  EXPECT_EQ(cpu["cpus"]["unavailable"].size(), 3u);
}

}  // namespace
}  // namespace kdrift
