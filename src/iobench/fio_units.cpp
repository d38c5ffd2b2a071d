#include "iobench/fio_units.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "snapshot/json_access.h"
#include "util/text.h"

namespace kdrift {
namespace {

// fio's FIO_IO_U_PLAT_BITS: unchanged since json+ first wrote bins.
constexpr int kFioPlatBits = 6;
// Bins in fio's histogram (FIO_IO_U_PLAT_NR, 1216 in 2.x and 1856 in 3.x) are far fewer.
constexpr uint64_t kMaxBinIndex = 4096;

std::optional<uint64_t> scaled(uint64_t value, uint64_t factor) {
  if (value > std::numeric_limits<uint64_t>::max() / factor) return std::nullopt;
  return value * factor;
}

struct Bin {
  FioBinRange range;
  uint64_t count;
};

// 2.x: "<index>": count, with fio's layout constants beside them.
Result<std::vector<Bin>> bins_by_index(const Json& bins) {
  const auto bits = count_member(bins, "FIO_IO_U_PLAT_BITS");
  if (!bits || *bits == 0 || *bits > 16) return content_error("FIO_IO_U_PLAT_BITS is not usable");
  std::vector<Bin> out;
  for (const auto& [key, value] : bins.items()) {
    if (key.rfind("FIO_", 0) == 0) continue;
    const auto index = parse_uint(key);
    const auto count = json_take::as_count(value);
    if (!index || !count) return content_error("bin \"" + key + "\" is not index: count");
    if (*count == 0) continue;
    const auto range = fio_bin_of_index(*index, static_cast<int>(*bits));
    if (!range) return content_error("bin index " + key + " is beyond fio's histogram");
    out.push_back({*range, *count});
  }
  return out;
}

// 3.x: "<value>": count, only the bins that hold something.
Result<std::vector<Bin>> bins_by_value(const Json& bins) {
  std::vector<Bin> out;
  for (const auto& [key, value] : bins.items()) {
    const auto reported = parse_uint(key);
    const auto count = json_take::as_count(value);
    if (!reported || !count) return content_error("bin \"" + key + "\" is not value: count");
    if (*count == 0) continue;
    const auto range = fio_bin_of_value(*reported, kFioPlatBits);
    if (!range) return content_error("bin " + key + " is not a value fio reports for a bin");
    out.push_back({*range, *count});
  }
  return out;
}

}  // namespace

FioEra fio_era(const Json& document) {
  const std::string version = text_member(document, "fio version");
  if (version.rfind("fio-", 0) != 0) return FioEra::kUnknown;
  const std::string rest = version.substr(4);
  const auto major = parse_uint(rest.substr(0, rest.find('.')));
  if (!major) return FioEra::kUnknown;
  return *major < 3 ? FioEra::kBefore3 : FioEra::kFrom3;
}

std::optional<uint64_t> fio_io_bytes(const Json& direction, FioEra era) {
  const auto bytes = count_member(direction, "io_bytes");
  if (!bytes) return std::nullopt;
  if (direction.contains("io_kbytes") || era == FioEra::kFrom3) return bytes;
  return scaled(*bytes, 1024);
}

std::optional<double> fio_bw_bytes(const Json& direction) {
  if (const auto bytes = number_member(direction, "bw_bytes")) return bytes;
  const auto kib = number_member(direction, "bw");
  return kib ? std::optional(*kib * 1024) : std::nullopt;
}

std::optional<FioLatency> fio_latency(const Json& direction, std::string_view name) {
  if (const Json* section = object_member(direction, std::string(name) + "_ns")) {
    return FioLatency{section, 1};
  }
  if (const Json* section = object_member(direction, name)) return FioLatency{section, 1000};
  return std::nullopt;
}

std::optional<FioBinRange> fio_bin_of_value(uint64_t value, int bits) {
  if (value < (uint64_t{2} << bits)) return FioBinRange{value, value};
  const int top = 63 - __builtin_clzll(value);
  const int error_bits = top - bits;
  const uint64_t width = uint64_t{1} << error_bits;
  const uint64_t base = uint64_t{1} << top;
  const uint64_t low = base + ((value - base) >> error_bits) * width;
  // fio reports the bin's middle; anything else is not one of its bins.
  if (value != low + width / 2) return std::nullopt;
  return FioBinRange{low, low + width - 1};
}

std::optional<FioBinRange> fio_bin_of_index(uint64_t index, int bits) {
  if (index >= kMaxBinIndex) return std::nullopt;
  if (index < (uint64_t{2} << bits)) return FioBinRange{index, index};
  const uint64_t error_bits = (index >> bits) - 1;
  if (error_bits + static_cast<uint64_t>(bits) >= 63) return std::nullopt;
  const uint64_t width = uint64_t{1} << error_bits;
  const uint64_t base = uint64_t{1} << (error_bits + static_cast<uint64_t>(bits));
  const uint64_t low = base + (index % (uint64_t{1} << bits)) * width;
  return FioBinRange{low, low + width - 1};
}

Result<Json> fio_histogram(const Json& bins, uint64_t ns_per_unit) {
  if (!bins.is_object()) return content_error("bins is not an object");
  auto parsed = bins.contains("FIO_IO_U_PLAT_BITS") ? bins_by_index(bins) : bins_by_value(bins);
  if (!parsed) return parsed.error();
  std::vector<Bin>& list = *parsed;
  std::sort(list.begin(), list.end(),
            [](const Bin& a, const Bin& b) { return a.range.low < b.range.low; });
  Json buckets = Json::array();
  uint64_t total = 0;
  for (const auto& [range, count] : list) {
    const auto low = scaled(range.low, ns_per_unit);
    const auto high = scaled(range.high + 1, ns_per_unit);
    if (!low || !high || count > std::numeric_limits<uint64_t>::max() - total) {
      return content_error("bins out of range");
    }
    total += count;
    buckets.push_back({{"low", *low}, {"high", *high - 1}, {"count", count}});
  }
  return Json{{"count", total}, {"buckets", std::move(buckets)}};
}

}  // namespace kdrift
