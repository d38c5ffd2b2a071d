#pragma once
// fio's figures in the units they were written in, read as bytes and nanoseconds. fio 3.0 changed
// them: io_bytes went from KiB to bytes (io_kbytes and bw_bytes were added beside them) and the
// latency sections from microseconds (slat, clat, lat) to nanoseconds (slat_ns, clat_ns, lat_ns).
// Which units a direction uses is read from the members it has, not from the version string, so
// a build with an odd version ("fio-2.18-59-g618e") reads right; the version decides only where
// the members cannot.

#include <cstdint>
#include <optional>
#include <string_view>

#include "snapshot/snapshot.h"
#include "util/result.h"

namespace kdrift {

// What the document's "fio version" ("fio-2.18-59-g618e", "fio-3.33") says of its units; a
// version fio never wrote, or none, says nothing.
enum class FioEra { kUnknown, kBefore3, kFrom3 };
FioEra fio_era(const Json& document);

// A direction's io_bytes in bytes: bytes when io_kbytes is beside it or the version is 3.0 or
// later (a file trimmed of io_kbytes), KiB otherwise.
std::optional<uint64_t> fio_io_bytes(const Json& direction, FioEra era);
// A direction's bandwidth in bytes/s: bw_bytes (3.0 on), or bw (KiB/s in every version).
std::optional<double> fio_bw_bytes(const Json& direction);

struct FioLatency {
  const Json* section = nullptr;  // fio's object: min, max, mean, stddev, N?, percentile?, bins?
  uint64_t ns_per_unit = 1;       // 1 for "<name>_ns", 1000 for "<name>" (microseconds)
};
// A direction's slat, clat or lat section (name without the _ns), whichever fio wrote.
std::optional<FioLatency> fio_latency(const Json& direction, std::string_view name);

// [low, high] of the latencies fio's histogram bin holds, in fio's unit. fio splits every power
// of two into 2^bits bins (bits = 6 in every version) and is exact below 2^(bits+1). json+ in
// 3.x keys a bin by the value fio reports for it (the middle of the bin); in 2.x by its index.
struct FioBinRange {
  uint64_t low;
  uint64_t high;
};
std::optional<FioBinRange> fio_bin_of_value(uint64_t value, int bits);
std::optional<FioBinRange> fio_bin_of_index(uint64_t index, int bits);

// json+'s "bins" of a latency section as the project's histogram layout, in nanoseconds:
// {count, buckets[{low, high, count}]} (what the trace section's latency histograms hold), so
// that any percentile can be computed again. Errors name what is wrong with the bins.
Result<Json> fio_histogram(const Json& bins, uint64_t ns_per_unit);

}  // namespace kdrift
