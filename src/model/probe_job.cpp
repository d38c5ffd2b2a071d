#include "model/probe_job.h"

#include <array>
#include <cmath>
#include <utility>

#include "snapshot/json_access.h"
#include "util/text.h"
#include "util/units.h"

namespace kdrift {
namespace {

constexpr std::array<std::pair<Pattern, std::string_view>, 5> kPatterns = {{
    {Pattern::kRead, "read"},
    {Pattern::kWrite, "write"},
    {Pattern::kRandRead, "randread"},
    {Pattern::kRandWrite, "randwrite"},
    {Pattern::kRandRw, "randrw"},
}};

constexpr std::array<std::pair<EngineKind, std::string_view>, 4> kEngines = {{
    {EngineKind::kIoUring, "io_uring"},
    {EngineKind::kLibaio, "libaio"},
    {EngineKind::kPsync, "psync"},
    {EngineKind::kPvsync2, "pvsync2"},
}};

}  // namespace

Result<EngineMode> EngineMode::parse(std::string_view text) {
  const auto parts = split(trim(text), '+');
  EngineMode mode;
  bool known = false;
  for (const auto& [kind, name] : kEngines) {
    if (parts.front() == name) {
      mode.kind = kind;
      known = true;
    }
  }
  if (!known) {
    return make_error(EINVAL, "unknown engine " + quote_value(parts.front()) +
                                  " (io_uring, libaio, psync, pvsync2)");
  }
  for (size_t i = 1; i < parts.size(); ++i) {
    const auto& flag = parts[i];
    const bool uring = mode.kind == EngineKind::kIoUring;
    if (uring && flag == "iopoll") {
      mode.iopoll = true;
    } else if (uring && flag == "sqpoll") {
      mode.sqpoll = true;
    } else if (uring && flag == "fixedbufs") {
      mode.fixedbufs = true;
    } else if (uring && flag == "regfiles") {
      mode.regfiles = true;
    } else if (mode.kind == EngineKind::kPvsync2 && flag == "hipri") {
      mode.hipri = true;
    } else {
      return make_error(EINVAL, "engine " + quote_value(text) + ": no mode " + quote_value(flag) +
                                    " (io_uring takes iopoll, sqpoll, fixedbufs, regfiles; "
                                    "pvsync2 takes hipri)");
    }
  }
  return mode;
}

std::string EngineMode::label() const {
  std::string out;
  for (const auto& [engine, name] : kEngines) {
    if (engine == kind) out = name;
  }
  if (iopoll) out += "+iopoll";
  if (sqpoll) out += "+sqpoll";
  if (fixedbufs) out += "+fixedbufs";
  if (regfiles) out += "+regfiles";
  if (hipri) out += "+hipri";
  return out;
}

std::optional<CompletionWait> parse_completion_wait(std::string_view text) {
  if (text == "sleep") return CompletionWait::kSleep;
  if (text == "spin") return CompletionWait::kSpin;
  return std::nullopt;
}

std::string_view completion_wait_name(CompletionWait wait) {
  return wait == CompletionWait::kSpin ? "spin" : "sleep";
}

std::optional<Pattern> parse_pattern(std::string_view text) {
  for (const auto& [pattern, name] : kPatterns) {
    if (text == name) return pattern;
  }
  return std::nullopt;
}

std::string_view pattern_name(Pattern pattern) {
  for (const auto& [candidate, name] : kPatterns) {
    if (candidate == pattern) return name;
  }
  return "?";
}

bool pattern_writes(Pattern pattern) {
  return pattern == Pattern::kWrite || pattern == Pattern::kRandWrite ||
         pattern == Pattern::kRandRw;
}

bool pattern_reads(Pattern pattern) {
  return pattern == Pattern::kRead || pattern == Pattern::kRandRead || pattern == Pattern::kRandRw;
}

bool pattern_random(Pattern pattern) {
  return pattern == Pattern::kRandRead || pattern == Pattern::kRandWrite ||
         pattern == Pattern::kRandRw;
}

std::string ProbeJob::name() const {
  std::string out = engine.label() + " " + std::string(pattern_name(rw));
  if (rw == Pattern::kRandRw) out += std::to_string(rwmixread);
  return out + " " + format_size(block_size) + " qd" + std::to_string(effective_iodepth()) +
         variant();
}

std::string ProbeJob::variant() const {
  std::string out;
  if (batch_complete_min > 1) out += " window" + std::to_string(batch_complete_min);
  if (completion_wait == CompletionWait::kSpin && !engine.synchronous()) out += " spin";
  if (like_fio) out += " like-fio";
  return out;
}

namespace {

double seconds_of(std::chrono::microseconds span) {
  return static_cast<double>(static_cast<uint64_t>(span.count()) * 1000) / 1e9;
}

}  // namespace

Json ProbeJob::to_json() const {
  Json out = {{"name", name()},
              {"workload", workload},
              {"engine", engine.label()},
              {"rw", pattern_name(rw)},
              {"bs", block_size},
              {"iodepth", effective_iodepth()},
              {"batch",
               {{"submit", batch_submit},
                {"complete_min", batch_complete_min},
                {"complete_max", batch_complete_max}}},
              {"completion_wait", completion_wait_name(completion_wait)},
              {"ramp_s", seconds_of(ramp)},
              {"runtime_s", seconds_of(runtime)}};
  if (rw == Pattern::kRandRw) out["rwmixread"] = rwmixread;
  if (like_fio) out["like_fio"] = true;
  return out;
}

namespace {

using json_take::as_count;
using json_take::as_measure;
using json_take::as_text;
using json_take::take;

// A profile's numbers are 32-bit; a larger one was not written by kdrift.
std::optional<uint32_t> as_small_count(const Json& value) {
  const auto count = as_count(value);
  if (!count || *count > UINT32_MAX) return std::nullopt;
  return static_cast<uint32_t>(*count);
}

// Seconds as the runner writes them, back to the microseconds they were made from.
std::optional<std::chrono::microseconds> as_span(const Json& value) {
  const auto seconds = as_measure(value);
  if (!seconds || !std::isfinite(*seconds) || *seconds < 0 || *seconds > 1e9) return std::nullopt;
  return std::chrono::microseconds(std::llround(*seconds * 1e6));
}

Error member_error(const Json& entry, std::string_view key, std::string_view wanted) {
  const auto name = entry.find("name");
  const std::string job =
      name != entry.end() && name->is_string() ? quote_value(name->get<std::string>()) : "?";
  return content_error("probe job " + job + ": \"" + std::string(key) + "\" missing or not " +
                       std::string(wanted));
}

Result<ProbeJob> read_batch(const Json& entry, ProbeJob job) {
  const auto batch = entry.find("batch");
  if (batch == entry.end() || !batch->is_object()) return member_error(entry, "batch", "an object");
  for (const auto& [key, field] :
       {std::pair{"submit", &job.batch_submit}, std::pair{"complete_min", &job.batch_complete_min},
        std::pair{"complete_max", &job.batch_complete_max}}) {
    const auto value = batch->contains(key) ? as_small_count((*batch)[key]) : std::nullopt;
    if (!value) return member_error(entry, std::string("batch.") + key, "a count");
    *field = *value;
  }
  return job;
}

}  // namespace

Result<ProbeJob> ProbeJob::from_json(const Json& entry) {
  if (!entry.is_object()) return content_error("probe job: not an object");
  Json rest = entry;
  ProbeJob job;
  const auto workload = take(rest, "workload", as_text);
  const auto engine = take(rest, "engine", as_text);
  const auto rw = take(rest, "rw", as_text);
  const auto bs = take(rest, "bs", as_count);
  const auto depth = take(rest, "iodepth", as_small_count);
  const auto ramp = take(rest, "ramp_s", as_span);
  const auto runtime = take(rest, "runtime_s", as_span);
  if (!workload) return member_error(entry, "workload", "a string");
  if (!engine) return member_error(entry, "engine", "a string");
  auto mode = EngineMode::parse(*engine);
  if (!mode) return mode.error();
  const auto pattern = rw ? parse_pattern(*rw) : std::nullopt;
  if (!pattern) return member_error(entry, "rw", "a pattern (read, write, randread, ...)");
  if (!bs) return member_error(entry, "bs", "a size in bytes");
  if (!depth) return member_error(entry, "iodepth", "a count");
  if (!ramp || !runtime) return member_error(entry, ramp ? "runtime_s" : "ramp_s", "seconds");
  job.workload = *workload;
  job.engine = *mode;
  job.rw = *pattern;
  job.block_size = *bs;
  job.iodepth = *depth;
  job.ramp = *ramp;
  job.runtime = *runtime;
  job.completion_wait = CompletionWait::kSpin;
  if (const auto wait = take(rest, "completion_wait", as_text)) {
    const auto parsed = parse_completion_wait(*wait);
    if (!parsed) return member_error(entry, "completion_wait", "sleep or spin");
    job.completion_wait = *parsed;
  } else if (rest.contains("completion_wait")) {
    return member_error(entry, "completion_wait", "sleep or spin");
  }
  if (rest.contains("like_fio")) {
    const Json& like_fio = rest["like_fio"];
    if (!like_fio.is_boolean()) return member_error(entry, "like_fio", "true or false");
    job.like_fio = like_fio.get<bool>();
  }
  if (job.rw == Pattern::kRandRw) {
    const auto mix = take(rest, "rwmixread", as_small_count);
    if (!mix || *mix > 100) return member_error(entry, "rwmixread", "a percentage");
    job.rwmixread = *mix;
  }
  return read_batch(entry, job);
}

}  // namespace kdrift
