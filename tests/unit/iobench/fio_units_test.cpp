#include "iobench/fio_units.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

// fio's plat_idx_to_val (stat.c), the value json+ writes for a bin: the middle of its range.
uint64_t fio_value_of_index(uint64_t index, int bits) {
  if (index < (uint64_t{2} << bits)) return index;
  const uint64_t error_bits = (index >> bits) - 1;
  const uint64_t base = uint64_t{1} << (error_bits + static_cast<uint64_t>(bits));
  const uint64_t k = index % (uint64_t{1} << bits);
  return base + static_cast<uint64_t>((static_cast<double>(k) + 0.5) *
                                      static_cast<double>(uint64_t{1} << error_bits));
}

// Every bin of fio 3.x's histogram (FIO_IO_U_PLAT_NR = 29 groups of 64): the value fio writes
// for it names the same range as its index, the ranges tile the line, and the value is inside.
TEST(FioUnits, BinsByValueAndByIndexAgreeOnEveryBin) {
  uint64_t next_low = 0;
  for (uint64_t index = 0; index < 29 * 64; ++index) {
    const auto by_index = fio_bin_of_index(index, 6);
    const auto by_value = fio_bin_of_value(fio_value_of_index(index, 6), 6);
    ASSERT_TRUE(by_index && by_value) << index;
    EXPECT_EQ(by_index->low, by_value->low) << index;
    EXPECT_EQ(by_index->high, by_value->high) << index;
    EXPECT_EQ(by_index->low, next_low) << index;
    next_low = by_index->high + 1;
  }
  EXPECT_FALSE(fio_bin_of_value(130, 6));  // 130 is no bin's middle: bins 128-129, 130-131
  EXPECT_FALSE(fio_bin_of_index(5000, 6));
}

TEST(FioUnits, BytesAndLatenciesReadInTheUnitsOfTheirEra) {
  const Json v2 = Json::parse(R"({"io_bytes": 16, "bw": 2, "clat": {"min": 3}})");
  const Json v3 = Json::parse(
      R"({"io_bytes": 16, "io_kbytes": 0, "bw": 2, "bw_bytes": 2100, "clat_ns": {"min": 3}})");
  EXPECT_EQ(fio_io_bytes(v2, FioEra::kUnknown), 16u * 1024);
  EXPECT_EQ(fio_io_bytes(v2, FioEra::kBefore3), 16u * 1024);
  EXPECT_EQ(fio_io_bytes(v3, FioEra::kUnknown), 16u);
  // A 3.x file trimmed of io_kbytes: the version says bytes.
  EXPECT_EQ(fio_io_bytes(v2, FioEra::kFrom3), 16u);
  EXPECT_EQ(fio_era(Json::parse(R"({"fio version": "fio-2.18-59-g618e"})")), FioEra::kBefore3);
  EXPECT_EQ(fio_era(Json::parse(R"({"fio version": "fio-3.42-6-g219f"})")), FioEra::kFrom3);
  EXPECT_EQ(fio_era(Json::parse(R"({"fio version": "kdrift-0.1"})")), FioEra::kUnknown);
  EXPECT_EQ(fio_era(Json::object()), FioEra::kUnknown);
  EXPECT_EQ(fio_bw_bytes(v2), 2048.0);
  EXPECT_EQ(fio_bw_bytes(v3), 2100.0);
  EXPECT_EQ(fio_latency(v2, "clat")->ns_per_unit, 1000u);
  EXPECT_EQ(fio_latency(v3, "clat")->ns_per_unit, 1u);
  EXPECT_FALSE(fio_latency(v3, "slat"));
}

TEST(FioUnits, HistogramsOfBothLayoutsInNanoseconds) {
  auto v3 = fio_histogram(Json::parse(R"({"129": 2, "3": 1, "1000000": 0})"), 1);
  ASSERT_TRUE(v3.ok()) << v3.error().describe();
  EXPECT_EQ((*v3)["count"], 3);
  EXPECT_EQ((*v3)["buckets"], Json::parse(R"([{"low": 3, "high": 3, "count": 1},
                                               {"low": 128, "high": 129, "count": 2}])"));
  // 2.x: by index, in microseconds, with fio's layout constants beside the bins.
  auto v2 = fio_histogram(Json::parse(R"({"128": 4, "0": 0, "FIO_IO_U_PLAT_BITS": 6,
                                          "FIO_IO_U_PLAT_VAL": 64, "FIO_IO_U_PLAT_NR": 1216})"),
                          1000);
  ASSERT_TRUE(v2.ok()) << v2.error().describe();
  EXPECT_EQ((*v2)["buckets"], Json::parse(R"([{"low": 128000, "high": 129999, "count": 4}])"));
  EXPECT_FALSE(fio_histogram(Json::parse(R"({"x": 1})"), 1).ok());
  EXPECT_FALSE(fio_histogram(Json::parse(R"({"130": 1})"), 1).ok());
}

}  // namespace
}  // namespace kdrift
