#include "iobench/profile.h"

#include <toml++/toml.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "iobench/job_validation.h"
#include "util/embedded.h"
#include "util/toml_reader.h"
#include "util/units.h"

namespace kdrift {

std::span<const EmbeddedText> embedded_profile_texts();

namespace {

// A size as written ("4k", or a number of bytes) within bounds; nullopt when it is not a size.
template <typename Check>
Result<uint64_t> size_of(const toml::node& node, Check check) {
  std::optional<uint64_t> size;
  if (const auto* text = node.as_string()) size = parse_size(text->get());
  if (const auto* number = node.as_integer(); number != nullptr && number->get() >= 0) {
    size = static_cast<uint64_t>(number->get());
  }
  if (!size) return content_error("not a size (\"4k\", \"1m\" or a number of bytes)");
  return check(*size);
}

template <typename Check>
Result<std::chrono::microseconds> duration_of(const toml::node& node, Check check) {
  std::optional<std::chrono::microseconds> duration;
  if (const auto* text = node.as_string()) duration = parse_duration(text->get());
  if (const auto* number = node.as_integer(); number != nullptr && number->get() >= 0) {
    // Past parse_duration's own ceiling every check refuses it; held there, the conversion to
    // microseconds cannot overflow.
    constexpr int64_t kCeilingSeconds = 1'000'000'000;
    duration = std::chrono::seconds(std::min(number->get(), kCeilingSeconds));
  }
  if (!duration) return content_error("not a duration (\"500ms\", \"5s\" or seconds)");
  return check(*duration);
}

template <typename Check>
Result<uint32_t> count_of(const toml::node& node, Check check) {
  const auto* number = node.as_integer();
  if (number == nullptr) return content_error("not an integer");
  return check(number->get());
}

std::optional<std::string> text_of(const toml::node& node) {
  if (const auto* text = node.as_string()) return text->get();
  return std::nullopt;
}

// ramp and runtime, in the profile or in one workload (where Field is optional).
template <typename Field>
Status read_durations(const TomlReader& reader, const toml::table& table, const std::string& where,
                      Field* ramp, Field* runtime) {
  if (const auto* node = table.get("ramp")) {
    auto value = reader.single<std::chrono::microseconds>(
        *node, where + "ramp",
        [](const toml::node& item) { return duration_of(item, check_ramp); });
    if (!value) return value.error();
    *ramp = *value;
  }
  if (const auto* node = table.get("runtime")) {
    auto value = reader.single<std::chrono::microseconds>(
        *node, where + "runtime",
        [](const toml::node& item) { return duration_of(item, check_runtime); });
    if (!value) return value.error();
    *runtime = *value;
  }
  return ok_status();
}

Status read_engines(const TomlReader& reader, const toml::table& table, const std::string& where,
                    Workload& workload) {
  auto engine_names = reader.list<std::string>(*table.get("engines"), where + "engines", text_of);
  if (!engine_names) return engine_names.error();
  for (const auto& name : *engine_names) {
    auto mode = EngineMode::parse(name);
    if (!mode) return reader.error_at(*table.get("engines"), where + mode.error().context);
    workload.engines.push_back(*mode);
  }
  return ok_status();
}

Status read_pattern(const TomlReader& reader, const toml::table& table, const std::string& where,
                    Workload& workload) {
  auto rw = reader.single<Pattern>(*table.get("rw"), where + "rw", [](const toml::node& node) {
    auto text = text_of(node);
    return text ? parse_pattern(*text) : std::nullopt;
  });
  if (!rw) return rw.error();
  workload.rw = *rw;
  if (const auto* node = table.get("completion_wait")) {
    auto wait = reader.single<CompletionWait>(
        *node, where + "completion_wait (\"sleep\" or \"spin\")", [](const toml::node& item) {
          auto text = text_of(item);
          return text ? parse_completion_wait(*text) : std::nullopt;
        });
    if (!wait) return wait.error();
    workload.completion_wait = *wait;
  }
  if (const auto* node = table.get("like_fio")) {
    if (!node->is_boolean()) {
      return reader.error_at(
          *node, where + "like_fio (true or false): not " + TomlReader::describe(*node));
    }
    workload.like_fio = node->value_or(false);
  }
  return ok_status();
}

// bs, iodepth and the batch counts, each within job_validation.h's bounds.
Status read_sizes(const TomlReader& reader, const toml::table& table, const std::string& where,
                  Workload& workload) {
  auto sizes = reader.list<uint64_t>(*table.get("bs"), where + "bs", [](const toml::node& node) {
    return size_of(node, check_block_size);
  });
  if (!sizes) return sizes.error();
  workload.block_sizes = *sizes;
  auto depths =
      reader.list<uint32_t>(*table.get("iodepth"), where + "iodepth",
                            [](const toml::node& node) { return count_of(node, check_iodepth); });
  if (!depths) return depths.error();
  workload.iodepths = *depths;
  struct CountField {
    const char* key;
    uint32_t* field;
    Result<uint32_t> (*check)(int64_t);
  };
  uint32_t complete_max = 0;
  for (const auto& [key, field, check] :
       {CountField{"rwmixread", &workload.rwmixread, check_rwmixread},
        CountField{"batch_submit", &workload.batch_submit, check_batch_submit},
        CountField{"batch_complete_min", &workload.batch_complete_min, check_batch_complete_min},
        CountField{"batch_complete_max", &complete_max, check_batch_complete_max}}) {
    if (const auto* node = table.get(key)) {
      auto value = reader.single<uint32_t>(
          *node, where + key,
          [check = check](const toml::node& item) { return count_of(item, check); });
      if (!value) return value.error();
      *field = *value;
    }
  }
  if (table.contains("batch_complete_max")) workload.batch_complete_max = complete_max;
  return ok_status();
}

Result<Workload> parse_workload(const TomlReader& reader, const toml::table& table, size_t index) {
  Workload workload;
  workload.name = table["name"].value_or(std::string("workload") + std::to_string(index + 1));
  const std::string where = "workload \"" + workload.name + "\": ";
  if (auto status = reader.check_keys(table,
                                      {"name", "engines", "rw", "rwmixread", "bs", "iodepth",
                                       "batch_submit", "batch_complete_min", "batch_complete_max",
                                       "completion_wait", "like_fio", "ramp", "runtime"},
                                      where);
      !status) {
    return status.error();
  }
  for (const char* required : {"engines", "rw", "bs", "iodepth"}) {
    if (!table.contains(required)) {
      return reader.error_at(table, where + "missing \"" + required + "\"");
    }
  }
  for (const auto& read : {read_engines, read_pattern, read_sizes}) {
    if (auto status = read(reader, table, where, workload); !status) return status.error();
  }
  if (auto status = read_durations(reader, table, where, &workload.ramp, &workload.runtime);
      !status) {
    return status.error();
  }
  if (auto status = check_workload(workload); !status) {
    return reader.error_at(table, where + status.error().describe());
  }
  return workload;
}

// The jobs workload expands to, in matrix order, appended to out unless names already has them.
void expand_workload(const Profile& profile, const Workload& workload, std::set<std::string>& names,
                     std::vector<ProbeJob>& out) {
  for (const auto& engine : workload.engines) {
    for (const auto block_size : workload.block_sizes) {
      for (const auto iodepth : workload.iodepths) {
        ProbeJob job;
        job.workload = workload.name;
        job.engine = engine;
        job.rw = workload.rw;
        job.rwmixread = workload.rwmixread;
        job.block_size = block_size;
        job.iodepth = engine.synchronous() ? 1 : iodepth;
        job.batch_submit = workload.batch_submit;
        job.batch_complete_min = std::min(workload.batch_complete_min, job.iodepth);
        job.batch_complete_max = workload.batch_complete_max.value_or(job.batch_complete_min);
        job.completion_wait = workload.completion_wait;
        job.like_fio = workload.like_fio;
        job.ramp = workload.ramp.value_or(profile.ramp);
        job.runtime = workload.runtime.value_or(profile.runtime);
        job.sqpoll_cpu = workload.sqpoll_cpu;
        if (names.insert(job.name()).second) out.push_back(job);
      }
    }
  }
}

// The names of two workloads that expand to a common job, or nullopt: each workload's own
// repeats (psync at several depths) are one job, not a clash.
std::optional<std::pair<std::string, std::string>> job_in_two_workloads(const Profile& profile) {
  std::map<std::string, const std::string*> owner;
  for (const auto& workload : profile.workloads) {
    std::set<std::string> names;
    std::vector<ProbeJob> jobs;
    expand_workload(profile, workload, names, jobs);
    for (const std::string& name : names) {
      const auto [at, added] = owner.emplace(name, &workload.name);
      if (!added) return std::pair{*at->second, workload.name};
    }
  }
  return std::nullopt;
}

}  // namespace

std::vector<ProbeJob> Profile::jobs() const {
  std::vector<ProbeJob> out;
  // psync at qd1 and qd16 is the same job, and overrides can make two workloads the same job:
  // each runs once.
  std::set<std::string> names;
  for (const auto& workload : workloads)
    expand_workload(*this, workload, names, out);
  return out;
}

bool Profile::writes() const {
  return std::any_of(workloads.begin(), workloads.end(),
                     [](const Workload& workload) { return pattern_writes(workload.rw); });
}

Status apply_overrides(Profile& profile, const ProfileOverrides& overrides) {
  if (overrides.ramp) profile.ramp = *overrides.ramp;
  if (overrides.runtime) profile.runtime = *overrides.runtime;
  if (overrides.file_size) profile.file_size = *overrides.file_size;
  for (auto& workload : profile.workloads) {
    if (overrides.engines) workload.engines = *overrides.engines;
    if (overrides.rw) workload.rw = *overrides.rw;
    if (overrides.rwmixread) workload.rwmixread = *overrides.rwmixread;
    if (overrides.block_sizes) workload.block_sizes = *overrides.block_sizes;
    if (overrides.iodepths) workload.iodepths = *overrides.iodepths;
    if (overrides.batch_submit) workload.batch_submit = *overrides.batch_submit;
    if (overrides.batch_complete_min) workload.batch_complete_min = *overrides.batch_complete_min;
    if (overrides.batch_complete_max) workload.batch_complete_max = overrides.batch_complete_max;
    if (overrides.completion_wait) workload.completion_wait = *overrides.completion_wait;
    if (overrides.like_fio) workload.like_fio = true;
    if (overrides.ramp) workload.ramp = overrides.ramp;
    if (overrides.runtime) workload.runtime = overrides.runtime;
    if (overrides.uring_modes.sqpoll_cpu) workload.sqpoll_cpu = overrides.uring_modes.sqpoll_cpu;
    for (auto& mode : workload.engines) {
      if (mode.kind != EngineKind::kIoUring) continue;
      mode.iopoll = mode.iopoll || overrides.uring_modes.iopoll;
      mode.sqpoll = mode.sqpoll || overrides.uring_modes.sqpoll;
      mode.fixedbufs = mode.fixedbufs || overrides.uring_modes.fixedbufs;
      mode.regfiles = mode.regfiles || overrides.uring_modes.regfiles;
    }
    if (auto status = check_workload(workload); !status) {
      return content_error("workload \"" + workload.name + "\": " + status.error().describe());
    }
  }
  return check_job_count(profile.workloads);
}

Result<Profile> parse_profile(std::string_view text, const std::string& name,
                              const std::string& source) {
  const TomlReader reader(source);
  auto parsed = reader.parse(text);
  if (!parsed) return parsed.error();
  const toml::table& document = *parsed;
  if (auto status = reader.check_keys(
          document, {"description", "size", "ramp", "runtime", "precondition", "workload"}, "");
      !status) {
    return status.error();
  }
  Profile profile;
  profile.name = name;
  profile.source = source;
  profile.description = document["description"].value_or(std::string());
  if (const auto* node = document.get("size")) {
    auto size = reader.single<uint64_t>(
        *node, "size", [](const toml::node& item) { return size_of(item, check_file_size); });
    if (!size) return size.error();
    profile.file_size = *size;
  }
  if (auto status = read_durations(reader, document, "", &profile.ramp, &profile.runtime);
      !status) {
    return status.error();
  }
  if (const auto* node = document.get("precondition")) {
    const auto value = node->value<std::string>();
    if (value == "discard") {
      profile.precondition = Precondition::kDiscard;
    } else if (value != "none") {
      return reader.error_at(*node, "precondition: expected \"none\" or \"discard\"");
    }
  }
  const auto* workloads = document["workload"].as_array();
  if (workloads == nullptr || workloads->empty()) {
    return reader.error("no [[workload]] tables");
  }
  for (size_t index = 0; index < workloads->size(); ++index) {
    const auto* table = (*workloads)[index].as_table();
    if (table == nullptr) return reader.error_at((*workloads)[index], "workload is not a table");
    auto workload = parse_workload(reader, *table, index);
    if (!workload) return workload.error();
    profile.workloads.push_back(std::move(*workload));
  }
  if (auto counted = check_job_count(profile.workloads); !counted) {
    return reader.error(counted.error().context);
  }
  if (auto twin = job_in_two_workloads(profile)) {
    return reader.error("workloads \"" + twin->first + "\" and \"" + twin->second +
                        "\" give the same job; give them different parameters");
  }
  return profile;
}

Result<Profile> load_profile(const std::string& name_or_path) {
  const bool is_path =
      name_or_path.find('/') != std::string::npos || name_or_path.ends_with(".toml");
  if (!is_path) {
    for (const auto& [name, text] : embedded_profile_texts()) {
      if (name == name_or_path) {
        return parse_profile(text, std::string(name),
                             "profiles/" + std::string(name) + ".toml (embedded)");
      }
    }
    std::string known;
    for (const auto& [name, text] : embedded_profile_texts()) {
      known += (known.empty() ? "" : ", ") + std::string(name);
    }
    return make_error(ENOENT, "no profile \"" + name_or_path + "\" (built in: " + known +
                                  "; or give a .toml file)");
  }
  auto text = read_toml_file(name_or_path);
  if (!text) return text.error();
  std::string stem = name_or_path.substr(name_or_path.rfind('/') + 1);
  if (stem.ends_with(".toml")) stem.resize(stem.size() - 5);
  return parse_profile(*text, stem, name_or_path);
}

Result<std::vector<Profile>> embedded_profiles() {
  std::vector<Profile> profiles;
  for (const auto& [name, text] : embedded_profile_texts()) {
    auto profile = load_profile(std::string(name));
    if (!profile) return profile.error();
    profiles.push_back(std::move(*profile));
  }
  std::sort(profiles.begin(), profiles.end(),
            [](const Profile& a, const Profile& b) { return a.name < b.name; });
  return profiles;
}

}  // namespace kdrift
