#include "bisect/knob_switch.h"

#include <fcntl.h>
#include <unistd.h>

#include <string_view>
#include <utility>

#include "snapshot/json_access.h"
#include "util/bounded_json.h"
#include "util/text.h"
#include "util/unique_fd.h"

namespace kdrift {
namespace {

constexpr std::string_view kRecordSchema = "kdrift.bisect-knobs.applied/1";
// A record lists a knob and the scheduler's tunables: a few KB.
constexpr size_t kMaxRecordBytes = size_t{1} << 20;
constexpr JsonLimits kRecordLimits{.max_depth = 8, .max_values = 100'000};

// Files a scheduler switch resets besides the elevator's own tunables.
constexpr std::string_view kResetByScheduler[] = {"nr_requests", "wbt_lat_usec"};

bool below_sys(const std::string& path) {
  if (!starts_with(path, "/sys/")) return false;
  for (const std::string& part : split(path, '/')) {
    if (part == "..") return false;
  }
  return true;
}

Json record_json(const std::string& path, const std::string& applied,
                 const std::vector<KnobValue>& saved) {
  Json restore = Json::array();
  for (const KnobValue& value : saved)
    restore.push_back({{"path", value.path}, {"value", value.value}});
  return {{"schema", kRecordSchema},
          {"applied", {{"path", path}, {"value", applied}}},
          {"restore", std::move(restore)}};
}

struct Record {
  std::string applied;  // the knob the run applied
  std::vector<KnobValue> restore;
};

Result<Record> parse_record(const std::string& text, const std::string& path) {
  auto parsed = parse_bounded_json(text, path, kRecordLimits);
  if (!parsed) return parsed.error();
  const Json& record = *parsed;
  if (text_member(record, "schema") != kRecordSchema) {
    return content_error(path + ": not a " + std::string(kRecordSchema) + " record");
  }
  const Json* applied = object_member(record, "applied");
  const Json* applied_path = applied != nullptr ? member(*applied, "path") : nullptr;
  if (applied_path == nullptr || !applied_path->is_string()) {
    return content_error(path + ": no applied knob path");
  }
  const Json* restore = array_member(record, "restore");
  if (restore == nullptr) return content_error(path + ": no restore list");
  Record result{applied_path->get<std::string>(), {}};
  result.restore.reserve(restore->size());
  for (const Json& entry : *restore) {
    const Json* file = member(entry, "path");
    const Json* value = member(entry, "value");
    if (file == nullptr || !file->is_string() || value == nullptr || !value->is_string()) {
      return content_error(path + ": a restore entry without path and value: " + entry.dump());
    }
    result.restore.push_back({file->get<std::string>(), value->get<std::string>()});
  }
  return result;
}

// Why path cannot be in the record of the knob applied at applied, or empty: only what
// values_to_restore saves for that knob may be there.
std::string restore_refusal(const std::string& applied, const std::string& path) {
  if (path == applied) return {};
  const auto slash = applied.rfind('/');
  const std::string queue = applied.substr(0, slash + 1);
  if (applied.substr(slash + 1) == "scheduler" && starts_with(path, queue)) {
    const std::string file = path.substr(queue.size());
    for (const std::string_view name : kResetByScheduler) {
      if (file == name) return {};
    }
    const std::string_view iosched = "iosched/";
    const std::string tunable =
        starts_with(file, iosched) ? file.substr(iosched.size()) : std::string();
    if (!tunable.empty() && tunable != "." && tunable != ".." &&
        tunable.find('/') == std::string::npos) {
      return {};
    }
  }
  return "not a file that applying " + applied + " changes";
}

}  // namespace

Result<std::string> read_knob(const SysRoot& root, const std::string& path) {
  auto text = root.read_value(path);
  if (!text) return text.error();
  if (const auto choice = parse_bracketed_choice(*text)) return choice->active;
  return std::move(*text);
}

Status write_knob(const SysRoot& root, const std::string& path, const std::string& value) {
  if (!below_sys(path)) {
    return content_error(path + ": refused, runtime knobs are written below /sys only");
  }
  auto file = root.host_path(path);
  if (!file) return file.error();
  // As echo does (O_TRUNC is ignored by sysfs and matters for a test tree's regular files):
  // sysfs takes a value in one write, and a short write is the kernel refusing the rest.
  UniqueFd fd(::open(file->c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC));
  if (!fd) return make_error(errno, "open " + path + " for writing");
  const auto written = ::write(fd.get(), value.data(), value.size());
  if (written < 0) return make_error(errno, "write " + quote_value(value) + " to " + path);
  if (static_cast<size_t>(written) != value.size()) {
    return content_error("write " + quote_value(value) + " to " + path + ": only " +
                         std::to_string(written) + " bytes taken");
  }
  return ok_status();
}

namespace {

// write_knob, then the value read back: a kernel may take a write and keep another value.
Status set_knob(const SysRoot& root, const std::string& path, const std::string& value) {
  if (auto written = write_knob(root, path, value); !written) return written.error();
  auto now = read_knob(root, path);
  if (!now) return now.error();
  if (*now != value) {
    return content_error(path + ": wrote " + quote_value(value) + ", reads back " +
                         quote_value(*now));
  }
  return ok_status();
}

// Every entry before any is written: a record someone else made, or a damaged one, is refused
// whole rather than half restored. The knob it applied must exist here (its device or policy).
Status check_record(const SysRoot& root, const Record& record, const std::string& record_path) {
  if (!is_runtime_knob_path(record.applied)) {
    return content_error(record_path + ": " + quote_value(record.applied) +
                         " is not a runtime knob kdrift changes; nothing restored");
  }
  if (auto live = read_knob(root, record.applied); !live) {
    return content_error(record_path + ": the knob it applied cannot be read here (" +
                         live.error().describe() + "); nothing restored");
  }
  for (const KnobValue& entry : record.restore) {
    if (const std::string why = restore_refusal(record.applied, entry.path); !why.empty()) {
      return content_error(record_path + ": restore entry " + quote_value(entry.path) +
                           " refused: " + why + "; nothing restored");
    }
  }
  return ok_status();
}

Status remove_record(const TrustedDir& records) {
  // Not made durable: a record that reappears after a crash only restores values already in force.
  return records.remove_file(kAppliedKnobRecord);
}

}  // namespace

Status restore_knobs(const SysRoot& root, const std::vector<KnobValue>& values) {
  for (const KnobValue& wanted : values) {
    auto now = read_knob(root, wanted.path);
    if (now && *now == wanted.value) continue;
    if (auto set = set_knob(root, wanted.path, wanted.value); !set) return set.error();
  }
  return ok_status();
}

Result<std::vector<KnobValue>> values_to_restore(const SysRoot& root, const RuntimeKnob& knob) {
  std::vector<KnobValue> values;
  auto current = read_knob(root, knob.path);
  if (!current) return current.error();
  values.push_back({knob.path, *current});
  const auto slash = knob.path.rfind('/');
  if (knob.device.empty() || knob.path.substr(slash + 1) != "scheduler") return values;
  const std::string queue = knob.path.substr(0, slash);
  // The old elevator's tunables come back at their defaults when it is chosen again; a file
  // that cannot be read (write-only) has no value to put back.
  if (auto entries = root.list_entries(queue + "/iosched")) {
    for (const DirEntry& entry : *entries) {
      if (entry.kind != EntryKind::kFile) continue;
      const std::string path = queue + "/iosched/" + entry.name;
      if (auto value = read_knob(root, path)) values.push_back({path, *value});
    }
  }
  for (const std::string_view name : kResetByScheduler) {
    const std::string path = queue + "/" + std::string(name);
    if (auto value = read_knob(root, path)) values.push_back({path, *value});
  }
  return values;
}

AppliedKnob::AppliedKnob(SysRoot root, const TrustedDir& records, std::vector<KnobValue> saved)
    : root_(std::move(root)), records_(records), saved_(std::move(saved)) {}

AppliedKnob::AppliedKnob(AppliedKnob&& other) noexcept
    : root_(std::move(other.root_)),
      records_(other.records_),
      saved_(std::move(other.saved_)),
      applied_(std::exchange(other.applied_, false)) {}

AppliedKnob::~AppliedKnob() {
  // A failed restore keeps the record: the next run puts the values back.
  if (applied_) (void)restore();
}

Result<AppliedKnob> AppliedKnob::apply(const SysRoot& root, const TrustedDir& records,
                                       const RuntimeKnob& knob) {
  if (!is_runtime_knob_path(knob.path)) {
    return content_error(knob.path + ": refused, not a runtime knob kdrift changes");
  }
  auto saved = values_to_restore(root, knob);
  if (!saved) return saved.error();
  const std::string record = record_json(knob.path, knob.bad, *saved).dump(2) + "\n";
  if (auto recorded = records.replace_file(kAppliedKnobRecord, record); !recorded) {
    return recorded.error();
  }
  AppliedKnob held(root, records, std::move(*saved));
  if (auto set = set_knob(root, knob.path, knob.bad); !set) {
    if (auto restored = held.restore(); !restored) return restored.error();
    return set.error();
  }
  return held;
}

Status AppliedKnob::restore() {
  if (!applied_) return ok_status();
  if (auto restored = restore_knobs(root_, saved_); !restored) return restored.error();
  applied_ = false;
  return remove_record(records_);
}

Result<std::vector<KnobValue>> read_leftover(const SysRoot& root, const TrustedDir& records) {
  const std::string record_path = records.path_of(kAppliedKnobRecord);
  auto text = records.read_file(kAppliedKnobRecord, kMaxRecordBytes);
  if (!text) {
    if (text.error().code == ENOENT) return std::vector<KnobValue>{};
    return text.error();
  }
  auto record = parse_record(*text, record_path);
  if (!record) return record.error();
  if (auto checked = check_record(root, *record, record_path); !checked) return checked.error();
  return std::move(record->restore);
}

Result<std::vector<KnobValue>> restore_leftover(const SysRoot& root, const TrustedDir& records) {
  auto values = read_leftover(root, records);
  if (!values) return values.error();
  if (auto restored = restore_knobs(root, *values); !restored) return restored.error();
  if (auto removed = remove_record(records); !removed) return removed.error();
  return values;
}

}  // namespace kdrift
