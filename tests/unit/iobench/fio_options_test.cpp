// fio's options as the importer reads them: flags as fio parses them, each client's global
// options, and the shapes no fio writes, which get a clear error or a defined reading.

#include "iobench/fio_options.h"

#include <gtest/gtest.h>

#include <set>

#include "iobench/fio_import.h"
#include "support/fixtures.h"

namespace kdrift {
namespace {

std::string why_unavailable(const Json& object, const char* key) {
  return object.value("unavailable", Json::object()).value(key, std::string());
}

// A fio 3.42 client document: global options as given, one job per (hostname, port, options).
Json client_document(Json global, Json jobs) {
  for (auto& job : jobs) {
    job["read"] = {{"total_ios", 10}, {"io_bytes", 40960}, {"iops", 10.0}};
    if (!job.contains("jobname")) job["jobname"] = "j";
  }
  return {{"fio version", "fio-3.42"},
          {"global options", std::move(global)},
          {"client_stats", std::move(jobs)}};
}

Result<Json> import_document(const Json& document) {
  return import_fio(document.dump(), "clients.json");
}

TEST(FioFlag, ReadAsFioParsesAFlagOption) {
  for (const char* set : {"", "1", "2", "0x1", "0X10", "4294967295"}) {
    EXPECT_EQ(fio_flag_value(set), FioFlag::kSet) << set;
  }
  for (const char* unset : {"0", "00", "0x0"}) {
    EXPECT_EQ(fio_flag_value(unset), FioFlag::kUnset) << unset;
  }
  // fio refuses these: no flag fio ran with.
  for (const char* refused : {"yes", "true", "-1", " 1", "1abc", "0x", "1.0"}) {
    EXPECT_EQ(fio_flag_value(refused), FioFlag::kUnknown) << refused;
  }
}

TEST(FioFlag, AnAbsentFlagIsUnsetOnlyWhereFioWouldHaveWrittenIt) {
  const Json job = {{"ioengine", "io_uring"}, {"hipri", ""}, {"fixedbufs", "0"}};
  const Json global = Json::object();
  const FioOptions from_342(job, &global, {}, true);
  EXPECT_EQ(from_342.flag("hipri").state, FioFlag::kSet);
  EXPECT_EQ(from_342.flag("fixedbufs").state, FioFlag::kUnset);
  EXPECT_EQ(from_342.flag("sqthread_poll").state, FioFlag::kUnset);
  const FioOptions from_333(job, &global, {}, false);
  const auto absent = from_333.flag("sqthread_poll");
  EXPECT_EQ(absent.state, FioFlag::kUnknown);
  EXPECT_EQ(absent.why_unknown, "fio before 3.39 leaves out an option given without a value");
  const FioOptions unknown_global(job, nullptr, "which client's is not known", true);
  EXPECT_EQ(unknown_global.flag("sqthread_poll").why_unknown, "which client's is not known");
  EXPECT_EQ(unknown_global.why_absent(), "which client's is not known");
  EXPECT_EQ(unknown_global.flag("hipri").state, FioFlag::kSet);  // the job's own options
}

TEST(FioFlag, TheEngineLabelSaysOnlyWhatTheFileShows) {
  auto imported = import_fio(
      R"({"fio version": "fio-3.42", "jobs": [{"jobname": "j", "job options": {"ioengine":)"
      R"( "io_uring", "hipri": "yes", "sqthread_poll": ""}, "read": {"total_ios": 1}}]})",
      "flags.json");
  ASSERT_TRUE(imported.ok()) << imported.error().describe();
  const Json& job = (*imported)["jobs"][0];
  EXPECT_EQ(job["engine"], "io_uring+sqpoll");
  EXPECT_EQ(why_unavailable(job, "engine_flags"),
            "whether hipri was set: hipri=\"yes\" is not a value fio takes for it");
  imported = import_fio(
      R"({"fio version": "fio-3.42", "jobs": [{"jobname": "j", "job options": {"ioengine":)"
      R"( "io_uring_cmd", "hipri": ""}, "read": {"total_ios": 1}}]})",
      "cmd.json");
  ASSERT_TRUE(imported.ok()) << imported.error().describe();
  EXPECT_EQ((*imported)["jobs"][0]["engine"], "io_uring_cmd+iopoll");
  // fio 3.33 leaves a flag given without a value out: its absence says nothing.
  imported = import_fio(
      R"({"fio version": "fio-3.33", "jobs": [{"jobname": "j", "job options": {"ioengine":)"
      R"( "io_uring", "hipri": "1"}, "read": {"total_ios": 1}}]})",
      "old.json");
  ASSERT_TRUE(imported.ok()) << imported.error().describe();
  EXPECT_EQ((*imported)["jobs"][0]["engine"], "io_uring+iopoll");
  EXPECT_EQ(why_unavailable((*imported)["jobs"][0], "engine_flags"),
            "whether sqthread_poll, fixedbufs, registerfiles were set: fio before 3.39 leaves "
            "out an option given without a value");
}

// Which fio writes a flag given without a value, by its version (3.4 is before 3.39).
TEST(FioFlag, AbsentFlagsOfWhichVersionsSayNotSet) {
  for (const auto& [version, says] :
       std::initializer_list<std::pair<const char*, bool>>{{"fio-3.39", true},
                                                           {"fio-3.39-12-g6f77155", true},
                                                           {"fio-4.0", true},
                                                           {"fio-3.4", false},
                                                           {"fio-3.38", false},
                                                           {"fio-2.99", false},
                                                           {"fio-3", false},
                                                           {"3.42", false}}) {
    const Json document = {{"fio version", version},
                           {"jobs",
                            {{{"jobname", "j"},
                              {"job options", {{"ioengine", "io_uring"}}},
                              {"read", {{"total_ios", 1}}}}}}};
    const auto imported = import_fio(document.dump(), "v.json");
    ASSERT_TRUE(imported.ok()) << imported.error().describe();
    const Json& job = (*imported)["jobs"][0];
    EXPECT_EQ(job["engine"], "io_uring") << version;
    EXPECT_EQ(why_unavailable(job, "engine_flags").empty(), says) << version;
  }
}

// A single job, group_reporting "0" or "": never named a clone of itself, never refused.
TEST(FioFlag, GroupReportingOfASingleJob) {
  for (const char* value : {"0", "", "1"}) {
    for (const char* numjobs : std::initializer_list<const char*>{"1", nullptr}) {
      Json options = {{"group_reporting", value}};
      if (numjobs != nullptr) options["numjobs"] = numjobs;
      const Json document = {
          {"fio version", "fio-3.42"},
          {"jobs", {{{"jobname", "one"}, {"job options", options}, {"read", {{"total_ios", 3}}}}}}};
      const auto imported = import_fio(document.dump(), "one.json");
      ASSERT_TRUE(imported.ok()) << imported.error().describe();
      const Json& job = (*imported)["jobs"][0];
      EXPECT_EQ(job["name"], "one") << value;
      EXPECT_EQ(job["group_reporting"], std::string(value) != "0") << value;
      EXPECT_FALSE(job.contains("clone"));
    }
  }
}

TEST(FioGlobalOptionsList, ShapesNoFioWritesAreClearErrors) {
  const Json job = {{"hostname", "h"}, {"port", 1}};
  const std::pair<Json, std::string> cases[] = {
      {Json::array({{{"hostname", "h"}, {"port", 1}}, 7}),
       "clients.json: global options entry 2 is not an object"},
      {Json::array({{{"port", 1}, {"bs", "4k"}}}),
       "clients.json: global options entry 1 names no client: \"hostname\" is missing or not a "
       "string"},
      {Json::array({{{"hostname", 5}, {"port", 1}}}),
       "clients.json: global options entry 1 names no client: \"hostname\" is missing or not a "
       "string"},
      {Json::array({{{"hostname", "h"}, {"port", "1"}}}),
       "clients.json: global options entry 1 names no client: \"port\" is missing or not a port "
       "number"},
      {Json::array({{{"hostname", "h"}, {"port", 1}, {"bs", 4096}}}),
       "clients.json: global options entry 1: option \"bs\" is not a string"},
      {Json("bs=4k"), "clients.json: global options are neither an object nor a list"},
      {Json{{"bs", Json::array()}}, "clients.json: global options: option \"bs\" is not a string"},
  };
  for (const auto& [global, error] : cases) {
    const auto imported = import_document(client_document(global, Json::array({job})));
    ASSERT_FALSE(imported.ok()) << global.dump();
    EXPECT_EQ(imported.error().describe(), error);
  }
}

// 10,000 servers, every one on the same host: each job takes its own client's block size, and
// every name is its own.
TEST(FioGlobalOptionsList, TenThousandClients) {
  Json global = Json::array();
  Json jobs = Json::array();
  for (uint64_t port = 1; port <= 10000; ++port) {
    global.push_back(
        {{"hostname", "h"}, {"port", port}, {"bs", std::to_string(512 * (port % 8 + 1))}});
    jobs.push_back({{"hostname", "h"}, {"port", port}});
  }
  const auto imported = import_document(client_document(global, jobs));
  ASSERT_TRUE(imported.ok()) << imported.error().describe();
  const Json& out = (*imported)["jobs"];
  ASSERT_EQ(out.size(), 10000u);
  std::set<std::string> names;
  for (uint64_t i = 0; i < out.size(); ++i) {
    const uint64_t port = i + 1;
    EXPECT_EQ(out[i]["bs"], 512 * (port % 8 + 1));
    names.insert(out[i]["name"].get<std::string>());
  }
  EXPECT_EQ(names.size(), 10000u);
  EXPECT_EQ(out[41]["name"], "j @h:42");
}

TEST(FioGlobalOptionsList, DefinedReadings) {
  const Json a = {{"hostname", "h"}, {"port", 1}, {"bs", "4k"}};
  const Json b = {{"hostname", "h"}, {"port", 1}, {"bs", "8k"}};
  // One client listed twice alike: its options are those.
  auto imported = import_document(
      client_document(Json::array({a, a}), Json::array({{{"hostname", "h"}, {"port", 1}}})));
  ASSERT_TRUE(imported.ok()) << imported.error().describe();
  EXPECT_EQ((*imported)["jobs"][0]["bs"], 4096);
  // Twice, differently: unknown.
  imported = import_document(
      client_document(Json::array({a, b}), Json::array({{{"hostname", "h"}, {"port", 1}}})));
  ASSERT_TRUE(imported.ok()) << imported.error().describe();
  EXPECT_EQ(why_unavailable((*imported)["jobs"][0], "bs"),
            "fio wrote two different sets of global options for clients at h:1: which this job "
            "ran with is not known");
  // A job that names no client (no port) finds none of the list's options.
  imported = import_document(client_document(Json::array({a}), Json::array({{{"hostname", "h"}}})));
  ASSERT_TRUE(imported.ok()) << imported.error().describe();
  EXPECT_NE(why_unavailable((*imported)["jobs"][0], "bs").find("names no client"),
            std::string::npos);
  // A client the list does not name had no global options; an empty list names none.
  for (const Json& global : {Json::array({a}), Json::array()}) {
    imported = import_document(client_document(
        global, Json::array({{{"hostname", "g"}, {"port", 1}, {"job options", {{"bs", "1k"}}}}})));
    ASSERT_TRUE(imported.ok()) << imported.error().describe();
    EXPECT_EQ((*imported)["jobs"][0]["bs"], 1024);
    EXPECT_EQ(why_unavailable((*imported)["jobs"][0], "iodepth"), "not in this fio output");
  }
  // A client with an empty hostname (fio writes "" for one it has none for) is still a client.
  imported =
      import_document(client_document(Json::array({{{"hostname", ""}, {"port", 7}, {"bs", "2k"}}}),
                                      Json::array({{{"hostname", ""}, {"port", 7}}})));
  ASSERT_TRUE(imported.ok()) << imported.error().describe();
  EXPECT_EQ((*imported)["jobs"][0]["bs"], 2048);
  EXPECT_EQ((*imported)["jobs"][0]["name"], "j");
}

TEST(FioGlobalOptionsList, PortsOfIpv6Hosts) {
  const auto imported = import_document(client_document(
      Json::array(),
      Json::array({{{"hostname", "::1"}, {"port", 1}}, {{"hostname", "::1"}, {"port", 2}}})));
  ASSERT_TRUE(imported.ok()) << imported.error().describe();
  EXPECT_EQ((*imported)["jobs"][0]["name"], "j @[::1]:1");
  EXPECT_EQ((*imported)["jobs"][1]["name"], "j @[::1]:2");
}

// Before 3.39, a client of several servers merged every server's global options into one
// object: they belong to no job in particular.
TEST(FioGlobalOptionsList, MergedGlobalOptionsOfSeveralClientsAreNobodys) {
  Json document = Json::parse(testing::fio_fixture("fio-3.33-client-two-hosts-json.json"));
  ASSERT_TRUE(document["global options"].empty());
  document["global options"] = {{"numjobs", "2"}, {"bs", "64k"}};
  const auto imported = import_fio(document.dump(), "merged.json");
  ASSERT_TRUE(imported.ok()) << imported.error().describe();
  for (const auto& job : (*imported)["jobs"]) {
    EXPECT_EQ(job["bs"], 4096);  // the job's own options still count
    EXPECT_EQ(why_unavailable(job, "numjobs"),
              "fio before 3.39 writes the global options of every client into one object: which "
              "client's options they are is not in the file");
  }
  // One client: the object is its own.
  Json single = Json::parse(testing::fio_fixture("fio-3.33-client-json.json"));
  single["global options"] = {{"numjobs", "2"}};
  const auto own = import_fio(single.dump(), "single.json");
  ASSERT_TRUE(own.ok()) << own.error().describe();
  EXPECT_EQ((*own)["jobs"][0]["numjobs"], 2);
}

}  // namespace
}  // namespace kdrift
