#include "iobench/fio_import.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "report/fio_json.h"
#include "support/fixtures.h"

namespace kdrift {
namespace {

std::string fio_output(const std::string& name) {
  std::ifstream in(testing::source_dir() + "/tests/fixtures/fio/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Both files are fio 3.33 runs on a zram device of this VM.
TEST(FioImport, RealFioOutputBecomesAProbeSection) {
  const std::string text = fio_output("zram-io_uring-randread-qd16.json");
  const Json fio = Json::parse(text);
  auto section = import_fio(text, "zram-io_uring-randread-qd16.json");
  ASSERT_TRUE(section.ok()) << section.error().describe();
  ASSERT_EQ((*section)["jobs"].size(), 1u);
  const Json& job = (*section)["jobs"][0];
  EXPECT_EQ(job["engine"], "io_uring");
  EXPECT_EQ(job["rw"], "randread");
  EXPECT_EQ(job["bs"], 4096);
  EXPECT_EQ(job["iodepth"], 16);
  EXPECT_EQ(job["status"], "ok");
  EXPECT_EQ(job["read"]["ios"], fio["jobs"][0]["read"]["total_ios"]);
  EXPECT_DOUBLE_EQ(job["read"]["iops"].get<double>(), fio["jobs"][0]["read"]["iops"].get<double>());
  EXPECT_EQ(job["read"]["clat_ns"]["percentile"]["99.000000"],
            fio["jobs"][0]["read"]["clat_ns"]["percentile"]["99.000000"]);
  EXPECT_FALSE(job.contains("write"));
  EXPECT_EQ((*section)["imported_from"]["version"], "fio-3.33");
}

TEST(FioImport, WriteJobsAndLeadingWarnings) {
  auto section = import_fio(
      "fio: some warning on stderr\n" + fio_output("zram-libaio-randwrite-qd4.json"), "w.json");
  ASSERT_TRUE(section.ok()) << section.error().describe();
  const Json& job = (*section)["jobs"][0];
  EXPECT_EQ(job["engine"], "libaio");
  EXPECT_GT(job["write"]["iops"].get<double>(), 0);
  EXPECT_FALSE(job.contains("read"));
}

TEST(FioImport, BadInputIsAnErrorNamingTheFile) {
  const std::string text = fio_output("zram-libaio-randwrite-qd4.json");
  for (const std::string& bad :
       {std::string(""), std::string("not json"), text.substr(0, text.size() / 2),
        std::string(R"({"jobs": 3})"), std::string(R"({"jobs": [{"jobname": 7}]})"),
        std::string(R"({"jobs": [{"job options": {"iodepth": [1]}}]})")}) {
    auto section = import_fio(bad, "bad.json");
    ASSERT_FALSE(section.ok()) << bad;
    EXPECT_NE(section.error().describe().find("bad.json"), std::string::npos);
  }
}

TEST(FioImport, HostileShapesAreRefusedWhileParsing) {
  // A percentile nested 500,000 deep once overflowed the stack.
  const std::string deep = R"({"jobs": [{"read": {"clat_ns": {"percentile": {"99.0": )" +
                           std::string(500000, '[') + "0" + std::string(500000, ']') + "}}}}]}";
  auto refused = import_fio(deep, "deep.json");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().describe(), "deep.json: nested deeper than 32 levels");
  std::string wide = R"({"jobs": [)";
  for (int i = 0; i < 1000000; ++i)
    wide += "[],";
  wide += "[]]}";
  refused = import_fio(wide, "wide.json");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().describe(), "wide.json: more than 1000000 values");
}

// Found by the fio_import fuzzer: 1e84 where fio writes an integer was converted to int.
TEST(FioImport, NumbersOutOfRangeForTheirFieldReadAsAbsent) {
  auto imported = import_fio(
      R"({"fio version": "fio-3.33", "timestamp": 1e300, "jobs": [{"jobname": "j", "error": )"
      R"(7.77e83, "read": {"total_ios": 10, "io_bytes": 4096.5, "iops": 1.0}}]})",
      "huge.json");
  ASSERT_TRUE(imported.ok()) << imported.error().describe();
  const auto& job = (*imported)["jobs"][0];
  EXPECT_FALSE(job.contains("status"));
  EXPECT_EQ(job["unavailable"]["status"], "not in this fio output");
  EXPECT_EQ(job["read"]["ios"], 10);
  EXPECT_EQ(job["read"]["bytes"], 4096);  // a count's fraction dropped; fio 3.x: bytes
  // A direction whose I/O count is out of range is one with none.
  const auto none =
      import_fio(R"({"jobs": [{"read": {"total_ios": 1.847e27, "iops": 1.0}}]})", "none.json");
  ASSERT_TRUE(none.ok()) << none.error().describe();
  EXPECT_FALSE((*none)["jobs"][0].contains("read"));
}

// A file that states nothing but its figures: nothing is filled in for it.
TEST(FioImport, NothingIsInventedForWhatTheFileDoesNotSay) {
  auto imported = import_fio(R"({"jobs": [{"read": {"io_bytes": 8, "iops": 2.0}}]})", "bare");
  ASSERT_TRUE(imported.ok()) << imported.error().describe();
  const Json& job = (*imported)["jobs"][0];
  for (const char* key :
       {"engine", "rw", "bs", "iodepth", "numjobs", "group_reporting", "status", "cpu"}) {
    EXPECT_FALSE(job.contains(key)) << key;
    EXPECT_EQ(job["unavailable"][key], "not in this fio output") << key;
  }
  EXPECT_EQ(job["read"]["bytes"], 8 * 1024);  // no io_kbytes beside it: fio before 3.0, KiB
  EXPECT_EQ(job["unavailable"]["elapsed_s"], "fio reported no runtime");  // once 0
  EXPECT_EQ(job["read"]["unavailable"]["clat_ns"], "not in this fio output");
  EXPECT_EQ((*imported)["imported_from"]["unavailable"]["version"], "not in this fio output");
}

// Found by the fio_import fuzzer: a snapshot's 1e50 where a count belongs was cast to uint64_t.
TEST(FioJson, NumbersOutOfRangeForACountRenderAsZero) {
  const Json probe = Json::parse(R"({"jobs": [{"name": "j", "bs": 1e300, "iodepth": -3,
      "elapsed_s": 1e300, "failure": {"errno": 1e84}, "cpu": {"voluntary_ctx": -1e30},
      "read": {"ios": 1.76e50, "bytes": -1, "bw_bytes": 1e300, "iops": 1.0,
               "clat_ns": {"min": 1e40, "max": "x"}, "iops_per_second": {"min": -2e20}}}]})");
  const Json fio = render_fio_json(probe, "test");
  const Json& job = fio["jobs"][0];
  EXPECT_EQ(job["job options"]["bs"], "0");
  EXPECT_EQ(job["job options"]["iodepth"], "0");
  EXPECT_EQ(job["error"], 0);
  EXPECT_EQ(job["ctx"], 0u);
  EXPECT_EQ(job["read"]["total_ios"], 0u);
  EXPECT_EQ(job["read"]["io_bytes"], 0u);
  EXPECT_EQ(job["read"]["bw_bytes"], 0u);
  EXPECT_EQ(job["read"]["runtime"], 0u);
  EXPECT_EQ(job["read"]["clat_ns"]["min"], 0u);
  EXPECT_EQ(job["read"]["clat_ns"]["max"], 0u);
  EXPECT_EQ(job["read"]["iops_min"], 0u);
}

TEST(FioJson, ImportedSectionRendersBackInFioShape) {
  const std::string text = fio_output("zram-io_uring-randread-qd16.json");
  const Json fio = Json::parse(text);
  auto section = import_fio(text, "x.json");
  ASSERT_TRUE(section.ok());
  const Json rendered = render_fio_json(*section, "test");
  const Json& job = rendered["jobs"][0];
  EXPECT_DOUBLE_EQ(job["read"]["iops"].get<double>(), fio["jobs"][0]["read"]["iops"].get<double>());
  EXPECT_EQ(job["read"]["clat_ns"]["percentile"], fio["jobs"][0]["read"]["clat_ns"]["percentile"]);
  EXPECT_EQ(job["read"]["total_ios"], fio["jobs"][0]["read"]["total_ios"]);
  EXPECT_DOUBLE_EQ(job["usr_cpu"].get<double>(), fio["jobs"][0]["usr_cpu"].get<double>());
  EXPECT_EQ(rendered["fio version"], "kdrift-test");
  EXPECT_TRUE(rendered["disk_util"].is_array());
}

}  // namespace
}  // namespace kdrift
