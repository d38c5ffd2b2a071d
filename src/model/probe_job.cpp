#include "model/probe_job.h"

#include <array>
#include <utility>

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
  out += " " + format_size(block_size) + " qd" + std::to_string(effective_iodepth());
  if (batch_complete_min > 1) out += " window" + std::to_string(batch_complete_min);
  if (completion_wait == CompletionWait::kSpin && !engine.synchronous()) out += " spin";
  return out;
}

}  // namespace kdrift
