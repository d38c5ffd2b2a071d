#include "iobench/override_flags.h"

#include <cstdint>
#include <functional>

#include "iobench/job_validation.h"
#include "util/text.h"
#include "util/units.h"

namespace kdrift {
namespace {

// The value of option, or the error naming it and what it takes.
template <typename T>
Result<T> named(const std::string& option, const std::string& given, Result<T> value) {
  if (value) return value;
  return content_error(option + ": cannot use " + quote_value(given) + ": " +
                       value.error().describe());
}

template <typename T, typename Parse>
Result<std::vector<T>> parse_list(const std::string& option, const std::string& text, Parse parse) {
  std::vector<T> values;
  for (const auto& item : split(text, ',')) {
    const std::string given(trim(item));
    auto value = named<T>(option, given, parse(given));
    if (!value) return value.error();
    values.push_back(*value);
  }
  return values;
}

Result<uint64_t> size_option(const std::string& text, Result<uint64_t> (*check)(uint64_t)) {
  auto size = parse_size(text);
  if (!size) return content_error("not a size (4k, 1m, or a number of bytes)");
  return check(*size);
}

Result<std::chrono::microseconds> duration_option(
    const std::string& text,
    Result<std::chrono::microseconds> (*check)(std::chrono::microseconds)) {
  auto duration = parse_duration(text);
  if (!duration) return content_error("not a duration (500ms, 5s)");
  return check(*duration);
}

Result<uint32_t> depth_option(const std::string& text) {
  auto depth = parse_uint(text);
  if (!depth || *depth > static_cast<uint64_t>(INT64_MAX)) return content_error("not a number");
  return check_iodepth(static_cast<int64_t>(*depth));
}

// field from text, unless no text was given.
template <typename T, typename Parse>
Status set_from(const std::string& text, std::optional<T>& field, Parse parse) {
  if (text.empty()) return ok_status();
  auto value = parse(text);
  if (!value) return value.error();
  field = *value;
  return ok_status();
}

Result<Pattern> rw_option(const std::string& text) {
  if (auto rw = parse_pattern(text)) return *rw;
  return content_error("--rw: expected randread, randwrite, read, write or randrw");
}

Result<CompletionWait> completion_wait_option(const std::string& text) {
  if (auto wait = parse_completion_wait(text)) return *wait;
  return content_error("--completion-wait: sleep or spin");
}

// --engine, --rw, --bs, --iodepth, --completion-wait, --runtime, --ramp, --size, in this order:
// the first refused is the error.
Status read_texts(const OverrideFlags& flags, ProfileOverrides& out) {
  using std::string;
  const std::function<Status()> reads[] = {
      [&] {
        return set_from(flags.engines, out.engines, [](const string& text) {
          return parse_list<EngineMode>("--engine", text, EngineMode::parse);
        });
      },
      [&] { return set_from(flags.rw, out.rw, rw_option); },
      [&] {
        return set_from(flags.block_sizes, out.block_sizes, [](const string& text) {
          return parse_list<uint64_t>(
              "--bs", text, [](const string& item) { return size_option(item, check_block_size); });
        });
      },
      [&] {
        return set_from(flags.iodepths, out.iodepths, [](const string& text) {
          return parse_list<uint32_t>("--iodepth", text, depth_option);
        });
      },
      [&] { return set_from(flags.completion_wait, out.completion_wait, completion_wait_option); },
      [&] {
        return set_from(flags.runtime, out.runtime, [](const string& text) {
          return named("--runtime", text, duration_option(text, check_runtime));
        });
      },
      [&] {
        return set_from(flags.ramp, out.ramp, [](const string& text) {
          return named("--ramp", text, duration_option(text, check_ramp));
        });
      },
      [&] {
        return set_from(flags.size, out.file_size, [](const string& text) {
          return named("--size", text, size_option(text, check_file_size));
        });
      }};
  for (const auto& read : reads) {
    if (auto status = read(); !status) return status;
  }
  return ok_status();
}

// --rwmixread and the batch counts.
Status read_counts(const OverrideFlags& flags, ProfileOverrides& out) {
  struct CountOption {
    const char* option;
    const std::optional<int64_t>& given;
    std::optional<uint32_t>& field;
    Result<uint32_t> (*check)(int64_t);
  };
  for (const auto& count :
       {CountOption{"--rwmixread", flags.rwmixread, out.rwmixread, check_rwmixread},
        CountOption{"--batch-submit", flags.batch_submit, out.batch_submit, check_batch_submit},
        CountOption{"--batch-complete-min", flags.batch_complete_min, out.batch_complete_min,
                    check_batch_complete_min},
        CountOption{"--batch-complete-max", flags.batch_complete_max, out.batch_complete_max,
                    check_batch_complete_max}}) {
    if (!count.given) continue;
    auto value = named(count.option, std::to_string(*count.given), count.check(*count.given));
    if (!value) return value.error();
    count.field = *value;
  }
  return ok_status();
}

}  // namespace

Result<ProfileOverrides> parse_override_flags(const OverrideFlags& flags) {
  ProfileOverrides overrides;
  if (auto status = read_texts(flags, overrides); !status) return status.error();
  if (auto status = read_counts(flags, overrides); !status) return status.error();
  overrides.uring_modes = {
      .iopoll = flags.iopoll,
      .sqpoll = flags.sqpoll,
      .fixedbufs = flags.fixedbufs,
      .regfiles = flags.regfiles,
      .sqpoll_cpu = flags.sqpoll_cpu >= 0 ? std::optional<int>(flags.sqpoll_cpu) : std::nullopt};
  overrides.like_fio = flags.like_fio;
  return overrides;
}

}  // namespace kdrift
