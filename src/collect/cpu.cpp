#include "collect/cpu.h"

#include <algorithm>
#include <map>

#include "collect/cpu_identity.h"
#include "collect/cpuinfo.h"
#include "collect/facts.h"
#include "collect/ids.h"
#include "util/text.h"

namespace kdrift {
namespace {

const std::string kCpuDir = "/sys/devices/system/cpu";

std::string cpu_dir(int cpu) {
  return kCpuDir + "/cpu" + std::to_string(cpu);
}

// family, model, stepping, microcode and the hypervisor flag: x86's, read from the first block.
void put_x86_fields(Json& processor, const SysRoot& root) {
  struct Field {
    std::string_view key;
    std::string_view name;  // as /proc/cpuinfo spells it
    bool integer;
  };
  constexpr Field kFields[] = {
      {"family", "cpu family", true}, {"model", "model", true},
      {"stepping", "stepping", true}, {"microcode", "microcode", false},
      {"hypervisor", "flags", false},
  };
  const auto architecture = processor.value("architecture", std::string("x86"));
  auto block = architecture == "x86" ? first_cpuinfo_block(root)
                                     : content_error(std::string(kCpuinfoPath) + ": x86 only (" +
                                                     architecture + " prints no such line)");
  for (const auto& field : kFields) {
    const auto value = block ? find_colon_field(*block, field.name) : std::nullopt;
    const auto number = value && field.integer ? parse_int(*value) : std::nullopt;
    if (!block) {
      mark_unavailable(processor, field.key, block.error());
    } else if (!value) {
      mark_unavailable(processor, field.key,
                       std::string(kCpuinfoPath) + ": no \"" + std::string(field.name) +
                           "\" in the first processor block");
    } else if (field.key == "hypervisor") {
      processor["hypervisor"] = has_cpu_flag(*block, "hypervisor").value_or(false);
    } else if (field.integer && !number) {
      mark_unavailable(processor, field.key,
                       std::string(kCpuinfoPath) + ": " + std::string(field.name) +
                           ": expected an integer, found " + quote_value(*value));
    } else {
      processor[std::string(field.key)] = field.integer ? Json(*number) : Json(*value);
    }
  }
}

void put_processor(Json& cpu, const SysRoot& root) {
  auto identity = read_cpu_identity(root);
  if (!identity) {
    mark_unavailable(cpu, "processor", identity.error());
    return;
  }
  put_x86_fields(*identity, root);
  cpu["processor"] = std::move(*identity);
}

// Records {"list", "count"} for one of online/possible/present and returns the ids.
std::vector<int> put_cpu_set(Json& cpus, const SysRoot& root, const std::string& name) {
  auto list = read_id_list(root, kCpuDir + "/" + name);
  if (!list) {
    mark_unavailable(cpus, name, list.error());
    return {};
  }
  cpus[name] = {{"list", list->text}, {"count", list->ids.size()}};
  return std::move(list->ids);
}

// affected_cpus separates plain ids with spaces ("0 1 2 3") where cpu lists use ranges.
Result<std::vector<int>> parse_spaced_ids(std::string_view text, const std::string& path) {
  std::vector<int> ids;
  for (const auto& word : split_whitespace(text)) {
    const auto id = parse_int(word);
    if (!id || *id < 0 || *id > kMaxCpuId || word.find_first_not_of("0123456789") != word.npos) {
      return content_error(path + ": expected cpu ids separated by spaces, found " +
                           quote_value(text));
    }
    ids.push_back(static_cast<int>(*id));
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

// The settings that decide how fast an idle-heavy I/O loop wakes up, summarised across policies.
constexpr std::string_view kPolicySettings[] = {"scaling_governor", "scaling_driver",
                                                "energy_performance_preference"};
constexpr std::string_view kPolicyFrequencies[] = {"scaling_min_freq", "scaling_max_freq",
                                                   "cpuinfo_min_freq", "cpuinfo_max_freq"};

Json read_policy(const SysRoot& root, const std::string& dir, int id) {
  Json policy = {{"policy", id}};
  const std::string affected_path = dir + "/affected_cpus";
  auto affected = root.read_value(affected_path);
  auto cpus = affected ? parse_spaced_ids(*affected, affected_path)
                       : Result<std::vector<int>>(affected.error());
  if (cpus) {
    policy["affected_cpus"] = std::move(*cpus);
  } else {
    mark_unavailable(policy, "affected_cpus", cpus.error());
  }
  for (const auto setting : kPolicySettings) {
    put_text(policy, setting, root, dir + "/" + std::string(setting));
  }
  if (auto governors = root.read_value(dir + "/scaling_available_governors")) {
    policy["scaling_available_governors"] = split_whitespace(*governors);
  } else {
    mark_unavailable(policy, "scaling_available_governors", governors.error());
  }
  for (const auto frequency : kPolicyFrequencies) {
    put_int(policy, frequency, root, dir + "/" + std::string(frequency));
  }
  return policy;
}

// setting -> value -> cpus: one entry per value in force, instead of one per policy (intel_pstate
// makes a policy per cpu). "uniform" when every setting has a single value; unknown when a policy
// was left out or a setting some policies report is unknown in another (a governor unreadable
// in one policy may differ there). A setting no policy has (no EPP on acpi-cpufreq) is no doubt.
Json summarise_policies(const Json& policies) {
  std::map<std::string, std::map<std::string, std::vector<int>>> by_setting;
  std::map<std::string, std::string> unknown_in;  // setting -> a policy where it is unknown
  Json summary = Json::object();
  std::string left_out;
  for (const auto& policy : policies) {
    const std::string name = "policy" + std::to_string(policy["policy"].get<int>());
    if (!policy.contains("affected_cpus")) {
      mark_unavailable(summary, name, "left out: its affected_cpus could not be read");
      left_out = name;
      continue;
    }
    const auto cpus = policy["affected_cpus"].get<std::vector<int>>();
    for (const auto setting : kPolicySettings) {
      const auto value = policy.find(std::string(setting));
      if (value == policy.end()) {
        unknown_in.emplace(setting, name);
        continue;
      }
      auto& members = by_setting[std::string(setting)][value->get<std::string>()];
      members.insert(members.end(), cpus.begin(), cpus.end());
    }
  }
  bool uniform = true;
  std::string doubt = left_out.empty() ? "" : left_out + " was left out";
  for (auto& [setting, values] : by_setting) {
    uniform = uniform && values.size() == 1;
    for (auto& [value, cpus] : values) {
      std::sort(cpus.begin(), cpus.end());
      summary[setting][value] = cpus;
    }
    if (const auto unknown = unknown_in.find(setting); unknown != unknown_in.end()) {
      doubt = setting + " is unknown in " + unknown->second;
    }
  }
  if (by_setting.empty()) {
    mark_unavailable(summary, "uniform", "no policy could be summarised");
  } else if (uniform && !doubt.empty()) {
    mark_unavailable(summary, "uniform", doubt);
  } else {
    summary["uniform"] = uniform;
  }
  return summary;
}

// intel_pstate and amd_pstate report their mode (active/passive/guided/off) in "status"; without
// that file the driver is not built in or not in use.
void put_pstate_driver(Json& cpufreq, const SysRoot& root, const std::string& driver,
                       std::initializer_list<std::string_view> attributes) {
  const std::string dir = kCpuDir + "/" + driver;
  auto status = root.read_value(dir + "/status");
  if (!status) {
    mark_unavailable(cpufreq, driver, status.error());
    return;
  }
  Json state = {{"status", *status}};
  for (const auto attribute : attributes) {
    put_int(state, attribute, root, dir + "/" + std::string(attribute));
  }
  cpufreq[driver] = std::move(state);
}

Json collect_cpufreq(const SysRoot& root) {
  Json cpufreq = Json::object();
  const std::string dir = kCpuDir + "/cpufreq";
  // Policies, not cpus: cpuN/cpufreq are links to them, and one policy may span many cpus.
  if (auto names = root.list(dir); !names) {
    mark_unavailable(cpufreq, "policies", names.error());
  } else if (const auto ids = numbered_entries(*names, "policy"); ids.empty()) {
    mark_unavailable(cpufreq, "policies",
                     dir + " has no policy: no cpufreq driver is active (usual in a VM)");
  } else {
    Json policies = Json::array();
    for (const int id : ids) {
      policies.push_back(read_policy(root, dir + "/policy" + std::to_string(id), id));
    }
    cpufreq["summary"] = summarise_policies(policies);
    cpufreq["policies"] = std::move(policies);
  }
  put_int(cpufreq, "boost", root, dir + "/boost");
  put_pstate_driver(cpufreq, root, "intel_pstate", {"no_turbo", "min_perf_pct", "max_perf_pct"});
  put_pstate_driver(cpufreq, root, "amd_pstate", {});
  return cpufreq;
}

// Reading every cpu's "disable" file costs one read per cpu and state; past this many reads
// (256 cpus x 4 states) only the reference cpu is looked at, and the snapshot says so.
constexpr size_t kMaxIdleDisableReads = 1024;

// Which cpus have the state disabled; per-cpu disabling (cpupower -c) is rare but pins latency.
void put_disabled_on(Json& state, const SysRoot& root, int id, const std::vector<int>& online,
                     int reference) {
  std::vector<int> disabled;
  size_t failures = 0;
  std::string first_failure;
  for (const int cpu : online) {
    if (cpu == reference) {
      if (state.value("disable", 0) != 0) disabled.push_back(cpu);
      continue;
    }
    const std::string path = cpu_dir(cpu) + "/cpuidle/state" + std::to_string(id) + "/disable";
    auto value = root.read_value(path);
    const auto flag = value ? parse_int(*value) : std::nullopt;
    if (!flag) {
      if (failures++ == 0) {
        first_failure = value ? path + ": expected 0 or 1, found " + quote_value(*value)
                              : value.error().describe();
      }
    } else if (*flag != 0) {
      disabled.push_back(cpu);
    }
  }
  state["disabled_on"] = std::move(disabled);
  if (failures != 0) {
    mark_unavailable(state, "disabled_on",
                     "left out " + std::to_string(failures) + " cpus; first: " + first_failure);
  }
}

Json collect_cpuidle(const SysRoot& root, const std::vector<int>& online) {
  const std::string dir = kCpuDir + "/cpuidle";
  Json idle = Json::object();
  put_text(idle, "driver", root, dir + "/current_driver");
  if (auto governor = root.read_value(dir + "/current_governor")) {
    idle["governor"] = *governor;
  } else {
    put_text(idle, "governor", root, dir + "/current_governor_ro");
  }

  // Drivers give every cpu the same state table; the first online cpu stands for all.
  const int reference = online.empty() ? 0 : online.front();
  const std::string states_dir = cpu_dir(reference) + "/cpuidle";
  auto names = root.list(states_dir);
  if (!names) {
    std::string reason = names.error().describe();
    if (idle.value("driver", "") == "none") reason += " (the cpuidle driver is \"none\")";
    mark_unavailable(idle, "states", reason);
    return idle;
  }
  const auto ids = numbered_entries(*names, "state");
  const bool check_all = !online.empty() && online.size() * ids.size() <= kMaxIdleDisableReads;
  if (online.empty()) {
    mark_unavailable(idle, "disabled_on", "not checked: the online cpus are unknown");
  } else if (!check_all) {
    mark_unavailable(idle, "disabled_on",
                     "only cpu" + std::to_string(reference) +
                         " checked: " + std::to_string(online.size()) + " online cpus x " +
                         std::to_string(ids.size()) + " states is over the budget of " +
                         std::to_string(kMaxIdleDisableReads) + " reads");
  }
  Json states = Json::array();
  for (const int id : ids) {
    const std::string state_dir = states_dir + "/state" + std::to_string(id);
    Json state = {{"state", id}};
    put_text(state, "name", root, state_dir + "/name");
    put_text(state, "desc", root, state_dir + "/desc");
    put_int(state, "latency", root, state_dir + "/latency");
    put_int(state, "residency", root, state_dir + "/residency");
    put_int(state, "disable", root, state_dir + "/disable");
    if (check_all) put_disabled_on(state, root, id, online, reference);
    states.push_back(std::move(state));
  }
  idle["states"] = std::move(states);
  return idle;
}

Json collect_isolation(const SysRoot& root) {
  Json isolation = Json::object();
  put_id_list(isolation, "isolated", root, kCpuDir + "/isolated");
  const std::string nohz_path = kCpuDir + "/nohz_full";
  auto nohz = root.read_value(nohz_path);
  // Some kernels (5.4 among them) print "(null)" when nohz_full= was not given.
  auto ids = !nohz               ? Result<std::vector<int>>(nohz.error())
             : *nohz == "(null)" ? std::vector<int>{}
                                 : parse_id_list(*nohz, nohz_path);
  if (ids) {
    isolation["nohz_full"] = std::move(*ids);
  } else {
    mark_unavailable(isolation, "nohz_full", ids.error());
  }
  return isolation;
}

}  // namespace

Json collect_cpu(const SysRoot& root) {
  Json cpu = Json::object();
  put_processor(cpu, root);

  Json cpus = Json::object();
  const auto online = put_cpu_set(cpus, root, "online");
  put_cpu_set(cpus, root, "possible");
  put_cpu_set(cpus, root, "present");
  cpu["cpus"] = std::move(cpus);

  Json smt = Json::object();
  put_text(smt, "control", root, kCpuDir + "/smt/control");
  put_int(smt, "active", root, kCpuDir + "/smt/active");
  cpu["smt"] = std::move(smt);

  cpu["cpufreq"] = collect_cpufreq(root);
  cpu["cpuidle"] = collect_cpuidle(root, online);
  cpu["vulnerabilities"] = read_attribute_directory(root, kCpuDir + "/vulnerabilities");
  cpu["isolation"] = collect_isolation(root);
  return cpu;
}

}  // namespace kdrift
