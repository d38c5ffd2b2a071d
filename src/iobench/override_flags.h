#pragma once
// The probe's command-line overrides as they were given (text as typed, counts as the argument
// parser read them), turned into ProfileOverrides with every value checked by
// iobench/job_validation.h: the rules a profile's TOML values are held to, with the flag named in
// the error instead of the file and key.

#include <cstdint>
#include <optional>
#include <string>

#include "iobench/profile.h"
#include "util/result.h"

namespace kdrift {

struct OverrideFlags {
  std::string engines;  // --engine, comma-separated
  bool iopoll = false;  // --iopoll, --sqpoll, --fixedbufs, --regfiles
  bool sqpoll = false;
  bool fixedbufs = false;
  bool regfiles = false;
  int sqpoll_cpu = -1;  // --sqpoll-cpu; negative: not given
  std::string rw;
  std::optional<int64_t> rwmixread;
  std::string block_sizes;  // --bs, comma-separated
  std::string iodepths;     // --iodepth, comma-separated
  std::string runtime;
  std::string ramp;
  std::string size;
  std::optional<int64_t> batch_submit;
  std::optional<int64_t> batch_complete_min;
  std::optional<int64_t> batch_complete_max;
  std::string completion_wait;
  bool like_fio = false;
};

// Empty texts and unset counts override nothing. An error reads
// "--iodepth: cannot use \"0\": from 1 to 4096, not 0".
Result<ProfileOverrides> parse_override_flags(const OverrideFlags& flags);

}  // namespace kdrift
