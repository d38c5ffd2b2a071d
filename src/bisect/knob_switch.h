#pragma once
// Applying a runtime knob's bad value to the live host so that nothing is lost: before the write,
// what must be put back is recorded in a file (atomically replaced); after the good values are
// written back and read back, the record is removed. A run killed with a knob applied leaves the
// record, and the next run restores it before anything else. Reads go through SysRoot like every
// other /sys read; writes go to the same root (the live host is "/", a test's tree stands in),
// only below /sys, one write(2) per value as echo does.
//
// Whoever writes the record chooses what root writes where on the next run, so the record lives
// only in a TrustedDir (no other user can write it or a directory above it), and a record is
// restored only when every entry is a file applying its knob saves (the knob, which must be one
// of the catalogue's (knobs.h) on a device or policy that exists, and for a scheduler switch
// the same queue's iosched tunables, nr_requests and wbt_lat_usec): anything else refuses the
// whole record before a single value is written.

#include <string>
#include <vector>

#include "bisect/knobs.h"
#include "util/result.h"
#include "util/sysroot.h"
#include "util/trusted_dir.h"

namespace kdrift {

// The record's name in its directory.
inline constexpr const char* kAppliedKnobRecord = "applied.json";

struct KnobValue {
  std::string path;  // as on the live host
  std::string value;
};

// The value as it would be written: a bracketed list's active entry ("none [mq-deadline]" ->
// "mq-deadline"), otherwise the trimmed text.
Result<std::string> read_knob(const SysRoot& root, const std::string& path);

// Writes value to path below root (root "/" is the live host). Refuses paths outside /sys.
Status write_knob(const SysRoot& root, const std::string& path, const std::string& value);

// Puts each value back in order, writing only those that differ, and reads each back.
Status restore_knobs(const SysRoot& root, const std::vector<KnobValue>& values);

// What must be put back after knob is written, with the values in force now: the knob itself,
// then what the kernel resets along with it (changing the elevator recreates the scheduler's
// tunables under queue/iosched and resets nr_requests and wbt_lat_usec).
Result<std::vector<KnobValue>> values_to_restore(const SysRoot& root, const RuntimeKnob& knob);

// A knob held at its bad value; the destructor restores it when restore() was not called or
// failed (then the record stays for the next run), so an exception puts the host back too.
class AppliedKnob {
 public:
  // Records what to restore in records (which must outlive the object), then writes knob.bad
  // and reads it back. On failure nothing stays changed and no record is left.
  static Result<AppliedKnob> apply(const SysRoot& root, const TrustedDir& records,
                                   const RuntimeKnob& knob);
  AppliedKnob(AppliedKnob&& other) noexcept;
  AppliedKnob& operator=(AppliedKnob&&) = delete;
  AppliedKnob(const AppliedKnob&) = delete;
  AppliedKnob& operator=(const AppliedKnob&) = delete;
  ~AppliedKnob();

  // Writes the good values back, verifies them, then removes the record.
  Status restore();
  const std::vector<KnobValue>& saved() const { return saved_; }

 private:
  AppliedKnob(SysRoot root, const TrustedDir& records, std::vector<KnobValue> saved);
  SysRoot root_;
  const TrustedDir& records_;
  std::vector<KnobValue> saved_;
  bool applied_ = true;
};

// What a killed run left applied (the record in records), checked as above; empty when there is
// no record. An error names the record and the entry refused.
Result<std::vector<KnobValue>> read_leftover(const SysRoot& root, const TrustedDir& records);

// read_leftover, restored and its record removed. An error leaves the record in place.
Result<std::vector<KnobValue>> restore_leftover(const SysRoot& root, const TrustedDir& records);

}  // namespace kdrift
