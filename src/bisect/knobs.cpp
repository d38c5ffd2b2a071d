#include "bisect/knobs.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>

#include "diff/statistics.h"
#include "snapshot/json_access.h"
#include "util/text.h"

namespace kdrift {
namespace {

// The queue attributes issue 7 names, as block.devices.<dev>.queue records them; the scheduler
// is read from block.devices.<dev>.scheduler.active, where the bracketed list is already parsed.
constexpr std::string_view kQueueKnobs[] = {"nomerges", "nr_requests", "read_ahead_kb",
                                            "rq_affinity", "wbt_lat_usec"};

constexpr std::string_view kCpufreqDir = "/sys/devices/system/cpu/cpufreq/policy";

// The knobs whose value is a name (an elevator, a governor); every other one takes a number.
constexpr std::string_view kNamedKnobs[] = {"scheduler", "scaling_governor"};
// Elevator and governor names are kernel identifiers, 16 characters at most today.
constexpr size_t kMaxNameLength = 32;
// A u64 in decimal.
constexpr size_t kMaxDigits = 20;

bool takes_a_name(const RuntimeKnob& knob) {
  const std::string_view file = std::string_view(knob.path).substr(knob.path.rfind('/') + 1);
  return std::find(std::begin(kNamedKnobs), std::end(kNamedKnobs), file) != std::end(kNamedKnobs);
}

// Whether value has the form the knob's sysfs file takes. The bad value comes from a snapshot,
// which may be a stranger's: only a plain number or identifier is ever written to the live
// host, never a newline, a second word or a megabyte of text.
bool has_the_knobs_form(const RuntimeKnob& knob, std::string_view value) {
  const bool name = takes_a_name(knob);
  if (value.empty() || value.size() > (name ? kMaxNameLength : kMaxDigits)) return false;
  return std::all_of(value.begin(), value.end(), [name](char c) {
    const bool digit = c >= '0' && c <= '9';
    return name ? digit || (c >= 'a' && c <= 'z') || c == '_' || c == '-' : digit;
  });
}

// A recorded value as the file takes it: numbers were typed by the collector, text is verbatim.
std::optional<std::string> written_form(const Json* value) {
  if (value == nullptr) return std::nullopt;
  if (value->is_string()) return value->get<std::string>();
  if (value->is_number_integer()) return std::to_string(value->get<long long>());
  return std::nullopt;
}

void add_if_differs(std::vector<RuntimeKnob>& knobs, RuntimeKnob knob,
                    const std::optional<std::string>& good, const std::optional<std::string>& bad) {
  if (!good || !bad || *good == *bad) return;
  knob.good = *good;
  knob.bad = *bad;
  knobs.push_back(std::move(knob));
}

void block_knobs(std::vector<RuntimeKnob>& knobs, const Json& good, const Json& bad) {
  const Json* good_block = object_member(good, "block");
  const Json* bad_block = object_member(bad, "block");
  const Json* good_devices = good_block ? object_member(*good_block, "devices") : nullptr;
  const Json* bad_devices = bad_block ? object_member(*bad_block, "devices") : nullptr;
  if (good_devices == nullptr || bad_devices == nullptr) return;
  for (const auto& [name, good_device] : good_devices->items()) {
    const Json* bad_device = object_member(*bad_devices, name);
    if (bad_device == nullptr || !good_device.is_object()) continue;
    const std::string queue_dir = "/sys/block/" + name + "/queue/";
    const Json* good_scheduler = object_member(good_device, "scheduler");
    const Json* bad_scheduler = object_member(*bad_device, "scheduler");
    add_if_differs(knobs, {queue_dir + "scheduler", "", "", name + " scheduler", name},
                   written_form(good_scheduler ? member(*good_scheduler, "active") : nullptr),
                   written_form(bad_scheduler ? member(*bad_scheduler, "active") : nullptr));
    const Json* good_queue = object_member(good_device, "queue");
    const Json* bad_queue = object_member(*bad_device, "queue");
    if (good_queue == nullptr || bad_queue == nullptr) continue;
    for (const std::string_view knob : kQueueKnobs) {
      const std::string key(knob);
      add_if_differs(knobs, {queue_dir + key, "", "", name + " " + key, name},
                     written_form(member(*good_queue, key)), written_form(member(*bad_queue, key)));
    }
  }
}

// cpu.cpufreq.policies, or an empty list when the snapshot has none.
const Json& cpufreq_policies(const Json& snapshot) {
  static const Json kNone = Json::array();
  const Json* cpu = object_member(snapshot, "cpu");
  const Json* cpufreq = cpu ? object_member(*cpu, "cpufreq") : nullptr;
  const Json* policies = cpufreq ? array_member(*cpufreq, "policies") : nullptr;
  return policies ? *policies : kNone;
}

// Policies by number: a policy's cpus are the same on both sides when the machine is.
std::optional<std::string> governor_of(const Json& snapshot, long long policy) {
  for (const Json& entry : cpufreq_policies(snapshot)) {
    const Json* number = member(entry, "policy");
    if (number != nullptr && number->is_number_integer() && number->get<long long>() == policy) {
      return written_form(member(entry, "scaling_governor"));
    }
  }
  return std::nullopt;
}

void governor_knobs(std::vector<RuntimeKnob>& knobs, const Json& good, const Json& bad) {
  for (const Json& entry : cpufreq_policies(good)) {
    const Json* number = member(entry, "policy");
    if (number == nullptr || !number->is_number_integer()) continue;
    const std::string id = std::to_string(number->get<long long>());
    add_if_differs(knobs,
                   {std::string(kCpufreqDir) + id + "/scaling_governor", "", "",
                    "cpufreq policy" + id + " scaling_governor", ""},
                   written_form(member(entry, "scaling_governor")),
                   governor_of(bad, number->get<long long>()));
  }
}

}  // namespace

bool is_runtime_knob_path(std::string_view path) {
  // Rebuilt from its parts and compared whole: no "..", no doubled or trailing slash passes.
  const std::vector<std::string> parts = split(path, '/');
  const auto is_name = [](const std::string& part) {
    return !part.empty() && part != "." && part != "..";
  };
  if (parts.size() == 6 && is_name(parts[3]) &&
      path == "/sys/block/" + parts[3] + "/queue/" + parts[5]) {
    return parts[5] == "scheduler" || std::find(std::begin(kQueueKnobs), std::end(kQueueKnobs),
                                                parts[5]) != std::end(kQueueKnobs);
  }
  const std::string_view policy = kCpufreqDir.substr(kCpufreqDir.rfind('/') + 1);
  if (parts.size() != 8 || !starts_with(parts[6], policy)) return false;
  const std::string number = parts[6].substr(policy.size());
  return !number.empty() && number.find_first_not_of("0123456789") == std::string::npos &&
         path == std::string(kCpufreqDir) + number + "/scaling_governor";
}

std::vector<RuntimeKnob> differing_knobs(const Json& good, const Json& bad) {
  std::vector<RuntimeKnob> knobs;
  block_knobs(knobs, good, bad);
  governor_knobs(knobs, good, bad);
  return knobs;
}

std::string untested_reason(const RuntimeKnob& knob, const Result<std::string>& live,
                            const Result<std::string>& target_disk) {
  if (!has_the_knobs_form(knob, knob.bad)) {
    return "the bad snapshot's value " + quote_value(knob.bad) + " is not " +
           (takes_a_name(knob) ? "a scheduler or governor name" : "a decimal number") +
           ", so it is not written";
  }
  if (!knob.device.empty()) {
    if (!target_disk) {
      return "the probe's target has no block device of its own (" +
             target_disk.error().describe() + ")";
    }
    if (knob.device != *target_disk) {
      return knob.device + " is not the probe's target (" + *target_disk +
             "): its queue is left alone";
    }
  }
  if (!live) return "cannot read it here: " + live.error().describe();
  if (*live == knob.good) return {};
  if (*live == knob.bad) {
    return "already at the bad value (" + knob.bad + ") here: the baseline must be the good state";
  }
  return "live value " + *live + " is neither the good (" + knob.good + ") nor the bad (" +
         knob.bad + ") one";
}

const char* direction_name(KnobDirection direction) {
  switch (direction) {
    case KnobDirection::kTowardBad:
      return "toward bad";
    case KnobDirection::kTowardGood:
      return "toward good";
    case KnobDirection::kNoChange:
      break;
  }
  return "no change";
}

KnobEffect knob_effect(const std::vector<double>& baseline, const std::vector<double>& samples,
                       double alpha, bool higher_is_better) {
  KnobEffect effect;
  effect.p = std::min(mann_whitney_u(samples, baseline).p_value,
                      kolmogorov_smirnov(samples, baseline).p_value);
  const double before = median(baseline);
  const double after = median(samples);
  effect.ratio = before != 0 ? after / before : std::nan("");
  if (effect.p <= alpha && after != before) {
    const bool worse = higher_is_better ? after < before : after > before;
    effect.direction = worse ? KnobDirection::kTowardBad : KnobDirection::kTowardGood;
  }
  return effect;
}

int runs_to_resolve(double alpha) {
  // C(2n, n) grows about fourfold per step, so a handful of steps covers any sensible alpha.
  constexpr int kMaxRuns = 30;
  for (int runs = 2; runs < kMaxRuns; ++runs) {
    const auto n = static_cast<std::size_t>(runs);
    if (smallest_two_sided_p(n, n) <= alpha) return runs;
  }
  return kMaxRuns;
}

}  // namespace kdrift
