// Every file in tests/fixtures/fio (README.md there says where each comes from) imported, with
// the values it must give: read from the file's own normal report where fio wrote one beside
// the JSON, otherwise the file's figures in the units of its fio version.

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>

#include "iobench/fio_import.h"
#include "model/job_result.h"
#include "support/fixtures.h"

namespace kdrift {
namespace {

const char* const kNotIn = "not in this fio output";

Json imported(const std::string& name) {
  auto section = import_fio(testing::fio_fixture(name), name);
  EXPECT_TRUE(section.ok()) << section.error().describe();
  return section.ok() ? *section : Json::object();
}

std::string reason(const Json& object, const char* key) {
  return object.value("unavailable", Json::object()).value(key, std::string());
}

// What fio's normal report of one job says (3.x): "read: IOPS=192k, BW=751MiB/s
// (787MB/s)(752MiB/1002msec)", "issued rwts: total=R,W,T,S", "cpu : usr=U%, sys=S%", and the
// clat percentiles in the unit its heading names.
struct NormalReport {
  std::string direction;
  double iops = 0;
  uint64_t runtime_ms = 0;
  uint64_t ios[2] = {0, 0};
  double usr = 0;
  double sys = 0;
  std::map<std::string, double> clat_percentiles_ns;
};

NormalReport normal_report(const std::string& text) {
  NormalReport out;
  std::smatch m;
  const std::regex io(
      R"((read|write): IOPS=([0-9.]+)(k?), BW=[^(]*\([^)]*\)\([^/]*/([0-9]+)msec\))");
  EXPECT_TRUE(std::regex_search(text, m, io));
  out.direction = m[1];
  out.iops = std::stod(m[2]) * (m[3] == "k" ? 1000 : 1);
  out.runtime_ms = std::stoull(m[4]);
  EXPECT_TRUE(std::regex_search(text, m, std::regex(R"(issued rwts: total=(\d+),(\d+),)")));
  out.ios[0] = std::stoull(m[1]);
  out.ios[1] = std::stoull(m[2]);
  EXPECT_TRUE(std::regex_search(text, m, std::regex(R"(cpu\s*: usr=([0-9.]+)%, sys=([0-9.]+)%)")));
  out.usr = std::stod(m[1]);
  out.sys = std::stod(m[2]);
  EXPECT_TRUE(std::regex_search(text, m, std::regex(R"(clat percentiles \((usec|nsec)\):)")));
  const double unit = m[1] == "usec" ? 1000 : 1;
  const std::string rest = m.suffix();
  const std::string block = rest.substr(0, rest.find("\n   bw"));
  const std::regex entry(R"(([0-9.]+)th=\[\s*(\d+)\])");
  for (std::sregex_iterator it(block.begin(), block.end(), entry), end; it != end; ++it) {
    char key[32];
    std::snprintf(key, sizeof key, "%f", std::stod((*it)[1]));
    out.clat_percentiles_ns[key] = std::stod((*it)[2]) * unit;
  }
  return out;
}

// The imported job against fio's own normal report of it.
void expect_agrees(const Json& job, const NormalReport& report) {
  const Json& stats = job[report.direction];
  EXPECT_EQ(stats["ios"], report.ios[report.direction == "read" ? 0 : 1]);
  EXPECT_DOUBLE_EQ(stats["runtime_s"].get<double>() * 1000, report.runtime_ms);
  // fio prints IOPS to three significant figures ("143k").
  EXPECT_NEAR(stats["iops"].get<double>(), report.iops, report.iops * 0.005);
  EXPECT_NEAR(job["cpu"]["usr_pct"].get<double>(), report.usr, 0.005);
  EXPECT_NEAR(job["cpu"]["sys_pct"].get<double>(), report.sys, 0.005);
  ASSERT_EQ(report.clat_percentiles_ns.size(), 17u);
  for (const auto& [key, ns] : report.clat_percentiles_ns) {
    // The report rounds to its unit: within one of it.
    const double imported_ns = stats["clat_ns"]["percentile"][key].get<double>();
    EXPECT_NEAR(imported_ns, ns, 1000) << key;
  }
}

TEST(FioFixtures, JsonThenNormalText) {
  const std::string name = "fio-3.33-json-normal-write-psync.txt";
  const Json section = imported(name);
  EXPECT_TRUE(section["imported_from"]["surrounded_by_text"]);
  const Json& job = section["jobs"][0];
  expect_agrees(job, normal_report(testing::fio_fixture(name).substr(
                         testing::fio_fixture(name).rfind("\n}") + 2)));
  EXPECT_EQ(job["engine"], "psync");
  EXPECT_EQ(job["bs"], 4096);
  EXPECT_EQ(reason(job, "iodepth"), kNotIn);  // psync at depth 1 by default: not stated here
  EXPECT_EQ(job["write"]["bytes"], 587206656);
  EXPECT_EQ(reason(job["write"], "slat_ns"),
            "not measured: fio counted 0 samples (this engine does not time it)");
}

// Asked for normal,json, fio 3.33 still writes the document first.
TEST(FioFixtures, NormalJsonOrderAsFioWritesIt) {
  const std::string name = "fio-3.33-normal-json-read-psync.txt";
  const Json section = imported(name);
  const std::string text = testing::fio_fixture(name);
  expect_agrees(section["jobs"][0], normal_report(text.substr(text.rfind("\n}") + 2)));
}

// The same file with the normal report moved in front of the document.
TEST(FioFixtures, NormalTextThenJson) {
  const std::string text = testing::fio_fixture("fio-3.33-json-normal-write-psync.txt");
  const size_t end = text.rfind("\n}") + 2;
  const size_t start = text.find("\n{") + 1;
  const std::string swapped = text.substr(end) + "\n" + text.substr(start, end - start);
  auto section = import_fio(swapped, "swapped");
  ASSERT_TRUE(section.ok()) << section.error().describe();
  expect_agrees((*section)["jobs"][0], normal_report(text.substr(end)));
}

// --status-interval with json,normal: a document and a normal report each second; the last pair
// is the run's result.
TEST(FioFixtures, StatusIntervalImportsTheFinalReport) {
  const std::string name = "fio-3.33-json-normal-status-interval.txt";
  const Json section = imported(name);
  EXPECT_EQ(section["imported_from"]["earlier_reports"], 2);
  const std::string text = testing::fio_fixture(name);
  expect_agrees(section["jobs"][0], normal_report(text.substr(text.rfind("\n}") + 2)));
  const Json bare = imported("fio-3.33-json-status-interval.json");
  EXPECT_EQ(bare["imported_from"]["earlier_reports"], 3);
  EXPECT_EQ(bare["jobs"][0]["read"]["ios"], 23812);  // once the first second's 7533
  EXPECT_EQ(bare["jobs"][0]["elapsed_s"], 3.004);
}

// fio --client with json+,normal: normal report first, then the document with bins.
TEST(FioFixtures, ClientJsonPlusAfterNormalText) {
  const std::string name = "fio-3.33-client-jsonplus-normal.txt";
  const Json section = imported(name);
  EXPECT_EQ(section["imported_from"]["format"], "json+");
  EXPECT_EQ(section["imported_from"]["layout"], "client_stats");
  const Json& job = section["jobs"][0];
  EXPECT_EQ(job["name"], "cs @localhost");
  EXPECT_EQ(job["host"], "localhost");
  EXPECT_EQ(job["port"], 18765);
  const std::string text = testing::fio_fixture(name);
  expect_agrees(job, normal_report(text.substr(0, text.find("\n{"))));
}

// json+ bins kept as the job's histogram: fio's own percentiles are computed again from them.
TEST(FioFixtures, JsonPlusBinsRecomputeFiosPercentiles) {
  const Json section = imported("fio-3.33-jsonplus-randread-libaio-qd4.json");
  EXPECT_EQ(section["imported_from"]["format"], "json+");
  const Json& clat = section["jobs"][0]["read"]["clat_ns"];
  ASSERT_TRUE(clat.contains("buckets"));
  uint64_t total = 0;
  for (const auto& bucket : clat["buckets"])
    total += bucket["count"].get<uint64_t>();
  EXPECT_EQ(total, 3682u);
  EXPECT_EQ(clat["count"], 3682);
  // fio's rule (stat.c calc_clat_percentiles): the first bin whose running sum reaches p% of the
  // samples; the value it reports is the bin's middle.
  for (const auto& [key, fio_value] : clat["percentile"].items()) {
    const double wanted = std::stod(key) / 100 * static_cast<double>(total);
    uint64_t sum = 0;
    uint64_t value = 0;
    for (const auto& bucket : clat["buckets"]) {
      sum += bucket["count"].get<uint64_t>();
      if (static_cast<double>(sum) >= wanted) {
        const auto low = bucket["low"].get<uint64_t>();
        value = low + (bucket["high"].get<uint64_t>() + 1 - low) / 2;
        break;
      }
    }
    EXPECT_EQ(value, fio_value.get<uint64_t>()) << key;
  }
}

TEST(FioFixtures, ClientServerTwoHostsAndTheirSum) {
  const Json section = imported("fio-3.33-client-two-hosts-json.json");
  ASSERT_EQ(section["jobs"].size(), 2u);
  EXPECT_EQ(section["jobs"][0]["name"], "cs @localhost");
  EXPECT_EQ(section["jobs"][0]["read"]["ios"], 4201);
  EXPECT_EQ(section["jobs"][1]["name"], "cs2 @127.0.0.1");
  EXPECT_EQ(section["jobs"][1]["write"]["ios"], 85788);
  ASSERT_EQ(section["skipped"].size(), 1u);
  EXPECT_EQ(section["skipped"][0]["jobname"], "All clients");
  const Json single = imported("fio-3.33-client-json.json");
  EXPECT_EQ(single["jobs"][0]["read"]["bytes"], 18759680);
  EXPECT_FALSE(single.contains("skipped"));
}

TEST(FioFixtures, NumjobsAndGroupReporting) {
  const Json clones = imported("fio-3.33-json-numjobs2.json");
  ASSERT_EQ(clones["jobs"].size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const Json& job = clones["jobs"][i];
    EXPECT_EQ(job["numjobs"], 2);
    EXPECT_EQ(job["group_reporting"], false);
    EXPECT_EQ(job["clone"], i + 1);
    EXPECT_EQ(job["name"], "nj (clone " + std::to_string(i + 1) + " of 2)");
  }
  EXPECT_EQ(clones["jobs"][0]["read"]["ios"], 6401);
  EXPECT_EQ(clones["jobs"][1]["read"]["ios"], 6238);
  // --group_reporting on the command line is not written to the JSON: one entry for two clones.
  const Json flag = imported("fio-3.33-json-numjobs2-group-reporting-flag.json");
  ASSERT_EQ(flag["jobs"].size(), 1u);
  EXPECT_EQ(flag["jobs"][0]["group_reporting"], true);
  EXPECT_EQ(flag["jobs"][0]["name"], "njg");
  EXPECT_EQ(flag["jobs"][0]["read"]["ios"], 13968);
  const Json file = imported("fio-3.33-json-numjobs2-group-reporting-jobfile.json");
  EXPECT_EQ(file["jobs"][0]["group_reporting"], true);
  EXPECT_EQ(file["jobs"][0]["bs"], 4096);  // from the global options
}

TEST(FioFixtures, GtodReduceLatenciesAreUnavailableNotZero) {
  const Json section = imported("fio-3.33-json-gtod-reduce.json");
  const Json& read = section["jobs"][0]["read"];
  for (const char* key : {"slat_ns", "clat_ns", "lat_ns"}) {
    EXPECT_FALSE(read.contains(key)) << key;
    EXPECT_EQ(reason(read, key), "not measured: gtod_reduce=1 stops fio timing each I/O");
  }
  EXPECT_EQ(read["ios"], 4542);
  EXPECT_EQ(read["iops_samples"]["mean"], 4510.5);
  EXPECT_FALSE(read.contains("iops_per_second"));
}

TEST(FioFixtures, ReadOnlyWriteOnlyAndRandrw) {
  const Json randrw = imported("fio-3.33-json-randrw-psync.json")["jobs"][0];
  EXPECT_EQ(randrw["rw"], "randrw");
  EXPECT_EQ(randrw["rwmixread"], 70);
  EXPECT_EQ(randrw["read"]["ios"], 5142);
  EXPECT_EQ(randrw["write"]["ios"], 2285);
  EXPECT_EQ(randrw["write"]["clat_ns"]["percentile"]["99.000000"], 50432);
  const Json read = imported("fio-3.33-json-read-io_uring-qd16.json")["jobs"][0];
  EXPECT_EQ(read["engine"], "io_uring");
  EXPECT_EQ(read["iodepth"], 16);
  EXPECT_EQ(read["read"]["bytes"], 493817856);
  EXPECT_FALSE(read.contains("write"));
  const Json write = imported("fio-3.33-json-randwrite-libaio-qd8.json")["jobs"][0];
  EXPECT_EQ(write["write"]["bw_bytes"], 337840207.0);
  EXPECT_FALSE(write.contains("read"));
}

// fio 2.1.4 (PerfKitBenchmarker's test data): no job options, no total_ios, no timestamp;
// io_bytes in KiB, bw in KiB/s, latencies in microseconds.
TEST(FioFixtures, Fio214KiBAndMicroseconds) {
  const Json section = imported("pkb-fio-2.1.4-sample-result.json");
  EXPECT_EQ(section["imported_from"]["version"], "fio-2.1.4");
  EXPECT_EQ(reason(section["imported_from"], "timestamp"), kNotIn);
  ASSERT_EQ(section["jobs"].size(), 5u);
  const Json& write = section["jobs"][0];
  EXPECT_EQ(write["name"], "sequential_write");
  for (const char* key : {"engine", "rw", "bs", "iodepth", "numjobs"})
    EXPECT_EQ(reason(write, key), kNotIn) << key;
  EXPECT_FALSE(write.contains("read"));
  const Json& stats = write["write"];
  EXPECT_EQ(stats["bytes"], 361984u * 1024);
  EXPECT_EQ(stats["bw_bytes"], 68118.0 * 1024);
  EXPECT_EQ(reason(stats, "ios"), kNotIn);
  EXPECT_EQ(stats["clat_ns"]["percentile"]["99.000000"], 823296u * 1000);
  // fio's list here (with 25 and 75) is 19 long; its "0.00" padding is no percentile.
  EXPECT_EQ(stats["clat_ns"]["percentile"].size(), 19u);
  EXPECT_FALSE(stats["clat_ns"]["percentile"].contains("0.00"));
  EXPECT_EQ(stats["slat_ns"]["min"], 33000);
  EXPECT_DOUBLE_EQ(stats["lat_ns"]["mean"].get<double>(), 478737.47 * 1000);
  // The file's own figures agree once read in its units: bytes / runtime = bandwidth.
  EXPECT_NEAR(stats["bytes"].get<double>() / stats["runtime_s"].get<double>(),
              stats["bw_bytes"].get<double>(), stats["bw_bytes"].get<double>() * 0.001);
  EXPECT_EQ(section["jobs"][1]["read"]["bytes"], 361984u * 1024);
}

// fio 2.1.11 (OPNFV StorPerf's test data): four jobs of one name, no job options, no total_ios,
// fio's "0.00" padding written three times in each percentile list (duplicate keys).
TEST(FioFixtures, Fio2111FourJobsOfOneName) {
  const Json section = imported("storperf-fio-2.1.11-randread-4jobs.json");
  EXPECT_EQ(section["imported_from"]["version"], "fio-2.1.11");
  ASSERT_EQ(section["jobs"].size(), 4u);
  EXPECT_EQ(section["jobs"][0]["name"], "random-read");
  EXPECT_EQ(section["jobs"][3]["name"], "random-read #4");
  const Json& job = section["jobs"][0];
  EXPECT_FALSE(job.contains("write"));  // a direction that moved no byte
  const Json& stats = job["read"];
  EXPECT_EQ(stats["bytes"], 44920u * 1024);
  EXPECT_EQ(stats["bw_bytes"], 21.0 * 1024);
  EXPECT_EQ(stats["iops"], 5.0);
  EXPECT_EQ(reason(stats, "ios"), kNotIn);
  EXPECT_EQ(stats["clat_ns"]["percentile"].size(), 17u);
  EXPECT_EQ(stats["clat_ns"]["percentile"]["99.000000"], 506u * 1000);
  EXPECT_EQ(stats["clat_ns"]["percentile"]["99.990000"], 2992u * 1000);
  EXPECT_DOUBLE_EQ(stats["lat_ns"]["mean"].get<double>(), 255.56 * 1000);
  EXPECT_NE(reason(stats, "slat_ns").find("not measured"), std::string::npos);
  // bytes / runtime = bandwidth within fio's rounding of bw to whole KiB/s.
  EXPECT_NEAR(stats["bytes"].get<double>() / stats["runtime_s"].get<double>(),
              stats["bw_bytes"].get<double>(), 1024);
  EXPECT_EQ(section["jobs"][3]["read"]["bytes"], 44820u * 1024);
}

// fio 2.17 (PerfKitBenchmarker): numjobs=2 under a global group_reporting=1, 16 KiB blocks.
TEST(FioFixtures, Fio217GroupReportedClones) {
  const Json section = imported("pkb-fio-2.17-randread-numjobs2-group.json");
  const Json& job = section["jobs"][0];
  EXPECT_EQ(job["engine"], "libaio");
  EXPECT_EQ(job["bs"], 16384);
  EXPECT_EQ(job["numjobs"], 2);
  EXPECT_EQ(job["group_reporting"], true);
  const Json& read = job["read"];
  EXPECT_EQ(read["ios"], 80891);
  // total_ios x bs = io_bytes: the KiB reading is the right one.
  EXPECT_EQ(read["bytes"], 80891u * 16384);
  EXPECT_EQ(read["clat_ns"]["percentile"]["99.000000"], 1352000);
  EXPECT_EQ(section["jobs"][1]["write"]["ios"], 24580);
  EXPECT_EQ(section["jobs"][1]["write"]["bytes"], 24580u * 16384);
}

// fio-2.18-59-g618e and fio 3.1 / 3.16 (fio-plot's example data).
TEST(FioFixtures, FioPlotOutputsOfThreeVersions) {
  const Json v218 = imported("fioplot-fio-2.18-randread-qd8.json")["jobs"][0];
  EXPECT_EQ(v218["iodepth"], 8);  // written "08"
  EXPECT_EQ(v218["read"]["bytes"], 17921u * 4096);
  EXPECT_EQ(v218["read"]["clat_ns"]["percentile"]["99.000000"], 102912000);
  const Json v31 = imported("fioplot-fio-3.1-randread-numjobs16-group.json")["jobs"][0];
  EXPECT_EQ(v31["numjobs"], 16);
  EXPECT_EQ(v31["read"]["bytes"], uint64_t{2748987} * 4096);  // 3.1: bytes, and bw still KiB/s
  EXPECT_EQ(v31["read"]["bw_bytes"], 183259.0 * 1024);
  EXPECT_EQ(v31["read"]["clat_ns"]["percentile"]["99.000000"], 477184);
  const Json v316 = imported("fioplot-fio-3.16-randread-numjobs16-fsync.json")["jobs"][0];
  EXPECT_EQ(v316["read"]["bytes"], 224616448);
  EXPECT_EQ(v316["read"]["ios"], 54838);
}

// The figures of every direction fio's entry moved I/O in, against the imported job.
void expect_figures_of(const Json& job, const Json& fio_job) {
  for (const char* direction : {"read", "write"}) {
    const Json& fio = fio_job[direction];
    if (fio["total_ios"] == 0) {
      EXPECT_FALSE(job.contains(direction)) << direction;
      continue;
    }
    const Json& stats = job[direction];
    EXPECT_EQ(stats["ios"], fio["total_ios"]) << direction;
    EXPECT_EQ(stats["bytes"], fio["io_bytes"]) << direction;
    EXPECT_DOUBLE_EQ(stats["iops"].get<double>(), fio["iops"].get<double>()) << direction;
    EXPECT_EQ(stats["clat_ns"]["percentile"], fio["clat_ns"]["percentile"]) << direction;
    EXPECT_EQ(stats["lat_ns"]["max"], fio["lat_ns"]["max"]) << direction;
  }
}

// fio 3.39 on writes an option given without a value as "": a flag that is set.
TEST(FioFixtures, Fio342FlagsWithoutAValueAreSet) {
  const std::string name = "fio-3.42-json-valueless-flags.json";
  const Json fio = Json::parse(testing::fio_fixture(name));
  ASSERT_EQ(fio["global options"]["group_reporting"], "");
  const Json section = imported(name);
  ASSERT_EQ(section["jobs"].size(), 1u);
  const Json& job = section["jobs"][0];
  EXPECT_EQ(job["name"], "flags");  // once "flags (clone 1 of 2)": "" read as false
  EXPECT_EQ(job["group_reporting"], true);
  EXPECT_EQ(job["numjobs"], 2);
  EXPECT_FALSE(job.contains("clone"));
  EXPECT_EQ(job["engine"], "io_uring+fixedbufs+regfiles");
  EXPECT_EQ(job["iodepth"], 8);
  EXPECT_EQ(job["bs"], 4096);                  // from the global options
  EXPECT_EQ(reason(job, "engine_flags"), "");  // 3.42 writes every flag it was given
  expect_figures_of(job, fio["jobs"][0]);
  EXPECT_EQ(job["read"]["ios"], 107762);
  EXPECT_EQ(job["read"]["clat_ns"]["percentile"]["99.000000"], 2113536);

  // One client: the global options are still an object. No numjobs: once a refused file.
  const std::string client_name = "fio-3.42-client-json-valueless-flags.json";
  const Json client_fio = Json::parse(testing::fio_fixture(client_name));
  const Json client = imported(client_name)["jobs"][0];
  EXPECT_EQ(client["name"], "single @localhost");
  EXPECT_EQ(client["port"], 18766);
  EXPECT_EQ(client["group_reporting"], true);
  EXPECT_EQ(reason(client, "numjobs"), kNotIn);
  EXPECT_EQ(client["engine"], "libaio");
  EXPECT_EQ(client["iodepth"], 4);
  expect_figures_of(client, client_fio["client_stats"][0]);
}

// fio 3.39 on, a client of several servers lists each client's global options apart.
TEST(FioFixtures, Fio342EachClientTakesItsOwnGlobalOptions) {
  const std::string name = "fio-3.42-client-two-ports-json.json";
  const Json fio = Json::parse(testing::fio_fixture(name));
  ASSERT_TRUE(fio["global options"].is_array());
  const Json section = imported(name);
  ASSERT_EQ(section["jobs"].size(), 2u);
  ASSERT_EQ(section["skipped"].size(), 1u);
  // One host, two servers, one job name: the port tells them apart.
  const Json& read = section["jobs"][0];
  EXPECT_EQ(read["name"], "cs @localhost:18765");
  EXPECT_EQ(read["port"], 18765);
  EXPECT_EQ(read["engine"], "libaio");
  EXPECT_EQ(read["bs"], 4096);
  EXPECT_EQ(read["iodepth"], 4);
  EXPECT_EQ(read["rw"], "randread");
  EXPECT_EQ(read["numjobs"], 2);
  EXPECT_EQ(read["group_reporting"], true);
  expect_figures_of(read, fio["client_stats"][0]);
  const Json& write = section["jobs"][1];
  EXPECT_EQ(write["name"], "cs @localhost:18766");
  EXPECT_EQ(write["engine"], "psync");
  EXPECT_EQ(write["bs"], 8192);
  EXPECT_EQ(write["rw"], "randwrite");
  EXPECT_EQ(write["group_reporting"], false);  // 3.42 writes it when given: not given
  EXPECT_EQ(reason(write, "iodepth"), kNotIn);
  expect_figures_of(write, fio["client_stats"][1]);
  EXPECT_EQ(write["write"]["ios"], 153601);
  EXPECT_EQ(write["write"]["clat_ns"]["percentile"]["99.000000"], 3344);
}

// Three clients; the one without a [global] section has no entry in fio's list.
TEST(FioFixtures, Fio342AClientWithoutGlobalOptions) {
  const std::string name = "fio-3.42-client-three-clients-json.json";
  const Json fio = Json::parse(testing::fio_fixture(name));
  ASSERT_EQ(fio["global options"].size(), 2u);
  const Json section = imported(name);
  ASSERT_EQ(section["jobs"].size(), 3u);
  EXPECT_EQ(section["jobs"][0]["name"], "cs @localhost:18766");
  EXPECT_EQ(section["jobs"][0]["bs"], 8192);
  EXPECT_EQ(section["jobs"][1]["name"], "cs @localhost:18765");
  EXPECT_EQ(section["jobs"][1]["engine"], "libaio");
  const Json& own = section["jobs"][2];
  EXPECT_EQ(own["name"], "cs @127.0.0.1");  // the only client on its host
  EXPECT_EQ(own["engine"], "psync");
  EXPECT_EQ(own["bs"], 4096);
  EXPECT_EQ(own["rw"], "read");
  EXPECT_EQ(own["group_reporting"], false);
  for (size_t i = 0; i < 3; ++i)
    expect_figures_of(section["jobs"][i], fio["client_stats"][i]);
}

// One server given twice: fio runs both, names both alike and lists two different sets of
// global options for them. No job says which set it ran with.
TEST(FioFixtures, Fio342OneServerGivenTwice) {
  const std::string name = "fio-3.42-client-same-server-twice-json.json";
  const Json fio = Json::parse(testing::fio_fixture(name));
  const Json section = imported(name);
  ASSERT_EQ(section["jobs"].size(), 2u);
  EXPECT_EQ(section["jobs"][0]["name"], "cs @localhost");
  EXPECT_EQ(section["jobs"][1]["name"], "cs @localhost #2");
  for (size_t i = 0; i < 2; ++i) {
    const Json& job = section["jobs"][i];
    for (const char* key : {"engine", "bs", "iodepth", "group_reporting"}) {
      EXPECT_FALSE(job.contains(key)) << key;
      EXPECT_NE(reason(job, key).find("two different sets of global options for clients at "
                                      "localhost:18765"),
                std::string::npos)
          << key;
    }
    EXPECT_FALSE(job.contains("clone"));
    expect_figures_of(job, fio["client_stats"][i]);
  }
  EXPECT_EQ(section["jobs"][0]["rw"], "randwrite");  // job options are the job's own
  EXPECT_EQ(section["jobs"][1]["numjobs"], 2);
}

// Whatever import-fio writes reads back through the model unchanged.
TEST(FioFixtures, EveryImportRoundTripsThroughTheModel) {
  for (const char* name :
       {"fio-3.33-client-jsonplus-normal.txt", "fio-3.33-json-gtod-reduce.json",
        "fio-3.33-json-numjobs2.json", "pkb-fio-2.1.4-sample-result.json",
        "pkb-fio-2.17-randread-numjobs2-group.json", "storperf-fio-2.1.11-randread-4jobs.json",
        "fioplot-fio-3.1-randread-numjobs16-group.json",
        "fio-3.33-jsonplus-randread-libaio-qd4.json", "fio-3.42-json-valueless-flags.json",
        "fio-3.42-client-two-ports-json.json", "fio-3.42-client-same-server-twice-json.json"}) {
    const Json section = imported(name);  // held: the loop below walks into it
    for (const auto& entry : section["jobs"]) {
      auto job = JobResult::from_json(entry);
      ASSERT_TRUE(job.ok()) << name;
      EXPECT_EQ(job->to_json(), entry) << name;
    }
  }
}

}  // namespace
}  // namespace kdrift
