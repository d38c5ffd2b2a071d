// The kdrift binary as scripts use it: exit statuses and files, per the contract in docs/usage.md.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "snapshot/snapshot.h"
#include "support/fixtures.h"
#include "support/system.h"

namespace kdrift {
namespace {

using KdriftRun = testing::CommandRun;

KdriftRun kdrift(const std::string& arguments) {
  return testing::run_kdrift(arguments);
}

TEST(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(kdrift("").status, 2);
  EXPECT_EQ(kdrift("no-such-command").status, 2);
  EXPECT_EQ(kdrift("capture --no-such-flag").status, 2);
  const KdriftRun missing_root = kdrift("capture --root /nonexistent/dir");
  EXPECT_EQ(missing_root.status, 2);
  EXPECT_NE(missing_root.out.find("/nonexistent/dir"), std::string::npos);
}

TEST(Cli, CaptureWritesAValidSnapshotFile) {
  testing::TempDir dir;
  const KdriftRun run = kdrift("capture -o " + dir.path() + "/s.json");
  ASSERT_EQ(run.status, 0) << run.out;
  std::ifstream in(dir.path() + "/s.json");
  std::stringstream text;
  text << in.rdbuf();
  auto snapshot = parse_snapshot(text.str(), "s.json");
  ASSERT_TRUE(snapshot.ok()) << snapshot.error().describe();
  EXPECT_TRUE(snapshot->contains("kernel"));
}

// -o names a file kdrift makes; a device is refused before anything is written (stdout is -o -).
TEST(Cli, OutputToADeviceIsRefusedAndStdoutIsDash) {
  const KdriftRun refused = kdrift("capture -o /dev/null");
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.out.find("/dev/null is a character device"), std::string::npos) << refused.out;
  struct stat st {};
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/null must stay a character device";
  const KdriftRun dash = kdrift("capture -o -");
  EXPECT_EQ(dash.status, 0);
  EXPECT_NE(dash.out.find("\"schema\""), std::string::npos);
}

TEST(Cli, OutputFilesAre0600UnlessModeSaysOtherwise) {
  testing::TempDir dir;
  const std::string command = testing::kdrift_binary() + " capture -o " + dir.path();
  ASSERT_EQ(testing::run_command("umask 000 && " + command + "/default.json").status, 0);
  ASSERT_EQ(testing::run_command(command + "/shared.json --mode 0640").status, 0);
  const KdriftRun setuid = kdrift("capture --mode 4755 -o " + dir.path() + "/setuid.json");
  EXPECT_EQ(setuid.status, 2);
  EXPECT_NE(setuid.out.find("setuid"), std::string::npos) << setuid.out;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/setuid.json"));
  struct stat st {};
  ASSERT_EQ(stat((dir.path() + "/default.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  ASSERT_EQ(stat((dir.path() + "/shared.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
}

TEST(Cli, DumpThenCaptureFromArchive) {
  testing::TempDir dir;
  ASSERT_EQ(kdrift("dump-sysroot -o " + dir.path() + "/d.tar.gz").status, 0);
  const KdriftRun run =
      kdrift("capture --root " + dir.path() + "/d.tar.gz -o " + dir.path() + "/s.json");
  EXPECT_EQ(run.status, 0) << run.out;
}

TEST(Cli, GarbageArchiveIsAnInputError) {
  testing::TempDir dir;
  dir.write("bad.tar.gz", "this is not an archive");
  const KdriftRun run = kdrift("capture --root " + dir.path() + "/bad.tar.gz");
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.out.find("bad.tar.gz"), std::string::npos) << run.out;
}

TEST(Cli, ATreeWithoutAHostIsAnInputErrorSayingWhatItHolds) {
  testing::TempDir dir;
  dir.write("photos/cat.jpg", "x");
  dir.write("notes.txt", "x");
  for (const char* command : {"capture", "audit --probe none", "dump-sysroot -o -"}) {
    const KdriftRun run = kdrift(std::string(command) + " --root " + dir.path());
    EXPECT_EQ(run.status, 2) << command << ": " << run.out;
    EXPECT_NE(run.out.find("(found notes.txt, photos/)"), std::string::npos) << run.out;
  }
}

TEST(Cli, ADumpRepackedUnderOneTopFolderCapturesAsTheDumpItself) {
  testing::TempDir dir;
  ASSERT_EQ(kdrift("dump-sysroot -o " + dir.path() + "/d.tar.gz").status, 0);
  dir.mkdir("unpacked/host-1");
  ASSERT_EQ(testing::run_command("tar -C " + dir.path() + "/unpacked/host-1 -xzf " + dir.path() +
                                 "/d.tar.gz && tar -C " + dir.path() + "/unpacked -cJf " +
                                 dir.path() + "/foldered.tar.xz host-1")
                .status,
            0);
  for (const std::string root : {"/d.tar.gz", "/foldered.tar.xz", "/unpacked"}) {
    const KdriftRun run =
        kdrift("capture --root " + dir.path() + root + " -o " + dir.path() + "/s.json");
    ASSERT_EQ(run.status, 0) << root << ": " << run.out;
    std::ifstream in(dir.path() + "/s.json");
    std::stringstream text;
    text << in.rdbuf();
    auto snapshot = parse_snapshot(text.str(), "s.json");
    ASSERT_TRUE(snapshot.ok()) << snapshot.error().describe();
    EXPECT_FALSE((*snapshot)["kernel"]["release"].get<std::string>().empty()) << root;
  }
}

// A default sos report of a server holds journal exports and logs of 25 MiB each and a symbol
// table; none is read by a capture, so none may refuse the archive or fill memory.
TEST(Cli, ASosReportWithLargeLogsCapturesAsWithoutThem) {
  testing::TempDir dir;
  const std::string name = "sosreport-vm-2026-12-01-oykriwp";
  const std::string fixture = testing::source_dir() + "/tests/fixtures/sos/" + name + ".tar.xz";
  const std::string report = dir.path() + "/" + name;
  ASSERT_EQ(testing::run_command("tar -C " + dir.path() + " -xJf " + fixture + " && mkdir -p " +
                                 report + "/sos_commands/logs " + report + "/var/log && head -c " +
                                 "100M /dev/zero > " + report +
                                 "/sos_commands/logs/journalctl_--no-pager && head -c 20M " +
                                 "/dev/urandom > " + report + "/var/log/syslog && tar -C " +
                                 dir.path() + " -czf " + dir.path() + "/large.tar.gz " + name)
                .status,
            0);
  Json snapshots[2];
  const std::string roots[2] = {fixture, dir.path() + "/large.tar.gz"};
  for (int i = 0; i < 2; ++i) {
    const KdriftRun run = kdrift("capture --root " + roots[i] + " -o " + dir.path() + "/s.json");
    ASSERT_EQ(run.status, 0) << roots[i] << ": " << run.out;
    std::ifstream in(dir.path() + "/s.json");
    std::stringstream text;
    text << in.rdbuf();
    auto snapshot = parse_snapshot(text.str(), "s.json");
    ASSERT_TRUE(snapshot.ok()) << snapshot.error().describe();
    snapshots[i] = std::move(*snapshot);
    snapshots[i].erase("capture");  // when and from where
  }
  EXPECT_EQ(snapshots[0], snapshots[1]);
}

TEST(Cli, AuditPrintsASummaryAndProbesTheCurrentDirectory) {
  testing::TempDir dir;
  const KdriftRun run =
      testing::run_command("cd " + dir.path() + " && " + testing::kdrift_binary() + " audit");
  // audit exits as check does: 1 when this host has a finding at warning or above.
  EXPECT_TRUE(run.status == 0 || run.status == 1) << run.out;
  EXPECT_NE(run.out.find("Kernel"), std::string::npos);
  EXPECT_NE(run.out.find("What this boot can do"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("kdrift check: this host"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("io_uring randread 4k qd32"), std::string::npos) << run.out;
  EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "the probe file must not outlive audit";
}

std::string fixture_snapshot_file(const testing::TempDir& dir, const std::string& fixture) {
  const std::string path = dir.path() + "/" + fixture + ".json";
  const KdriftRun run = kdrift("capture --root " + testing::source_dir() +
                               "/tests/fixtures/sysroots/" + fixture + ".tar.gz -o " + path);
  EXPECT_EQ(run.status, 0) << run.out;
  return path;
}

TEST(Cli, DiffExitStatusFollowsTheFindings) {
  testing::TempDir dir;
  const std::string off = fixture_snapshot_file(dir, "no-iommu");
  const std::string strict = fixture_snapshot_file(dir, "intel-strict");
  EXPECT_EQ(kdrift("diff " + off + " " + off).status, 0);
  const KdriftRun worse = kdrift("diff " + off + " " + strict + " --format json");
  ASSERT_EQ(worse.status, 1) << worse.out;
  const Json report = Json::parse(worse.out);
  EXPECT_EQ(report["schema"], "kdrift.report/1");
  EXPECT_EQ(report["findings"][0]["id"], "iommu.dma-translation");
  EXPECT_EQ(report["findings"][0]["severity"], "critical");
  EXPECT_EQ(kdrift("check " + strict + " --baseline " + off + " --format markdown").status, 1);
  EXPECT_EQ(kdrift("check " + off).status, 0);
  const KdriftRun single = kdrift("check " + strict + " --format json");
  EXPECT_EQ(single.status, 1) << "translated DMA on the NVMe is a finding on its own";
  EXPECT_EQ(Json::parse(single.out)["findings"][0]["id"], "iommu.dma-translation");
}

TEST(Cli, DiffTakesSeveralSnapshotsASideSplitByADoubleDash) {
  const std::string dir = testing::source_dir() + "/tests/fixtures/snapshots/";
  const std::string off = dir + "no-iommu.json.gz";
  const std::string off_polled = dir + "poll-queues-2.json.gz";
  const std::string strict = dir + "intel-strict.json.gz";
  const std::string lazy = dir + "intel-lazy.json.gz";
  const KdriftRun run =
      kdrift("diff " + off + " " + off_polled + " -- " + strict + " " + lazy + " --format json");
  ASSERT_EQ(run.status, 1) << run.out;
  const Json report = Json::parse(run.out);
  EXPECT_EQ(report["a"]["snapshots"].size(), 2u);
  EXPECT_EQ(report["b"]["snapshots"].size(), 2u);
  EXPECT_EQ(report["probe"]["unit"], "snapshot");
  EXPECT_EQ(report["findings"][0]["id"], "iommu.dma-translation");
  for (const char* format : {"text", "markdown", "html"}) {
    const KdriftRun rendered = kdrift("diff " + off + " " + strict + " -- " + lazy + " " +
                                      off_polled + " --format " + format);
    // Nothing found, and two lab boots a side cannot decide a job: undecided, not a pass.
    EXPECT_EQ(rendered.status, 3) << format << rendered.out;
    EXPECT_NE(rendered.out.find("ithin a side"), std::string::npos) << format << rendered.out;
    EXPECT_EQ(rendered.out.find("Nothing that matters"), std::string::npos) << format;
  }
  EXPECT_EQ(kdrift("diff " + off + " " + off + " " + strict).status, 2) << "three and no --";
  // Only diff's own `--` splits sides: another command's "diff" and "--" are its arguments.
  const KdriftRun other = kdrift("check diff -- " + strict);
  EXPECT_EQ(other.status, 2);
  EXPECT_EQ(other.out.find("candidates"), std::string::npos) << other.out;
  EXPECT_EQ(kdrift("diff " + off + " " + off + " -- " + strict).status, 2) << "one file twice";
  const KdriftRun baselines = kdrift("check " + strict + " --baseline " + off + " --baseline " +
                                     off_polled + " --format json");
  ASSERT_EQ(baselines.status, 1) << baselines.out;
  EXPECT_EQ(Json::parse(baselines.out)["a"]["snapshots"].size(), 2u);
}

TEST(Cli, DiffWritesEveryFormatToAFile) {
  testing::TempDir dir;
  const std::string a = fixture_snapshot_file(dir, "intel-lazy");
  const std::string b = fixture_snapshot_file(dir, "intel-pt");
  for (const char* format : {"text", "markdown", "json", "html"}) {
    SCOPED_TRACE(format);
    const std::string out = dir.path() + "/report." + format;
    const KdriftRun run = kdrift("diff " + a + " " + b + " --format " + format + " -o " + out);
    EXPECT_EQ(run.status, 0) << "an improvement alone is info: " << run.out;
    std::ifstream in(out);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_NE(text.str().find("iommu.dma-translation"), std::string::npos);
  }
}

TEST(Cli, BadSnapshotsAreInputErrorsNamingTheFile) {
  testing::TempDir dir;
  const std::string good = fixture_snapshot_file(dir, "no-iommu");
  std::ifstream in(good);
  std::stringstream whole;
  whole << in.rdbuf();
  dir.write("truncated.json", whole.str().substr(0, whole.str().size() / 2));
  dir.write("schema.json", R"({"schema": "kdrift.snapshot/9"})");
  dir.write("types.json", R"({"schema": "kdrift.snapshot/1", "kernel": [1, 2]})");
  dir.write("huge.json", R"({"schema": "kdrift.snapshot/1", "x": 429E4967295})");
  dir.write("deep.json", R"({"schema": "kdrift.snapshot/1", "x": )" + std::string(200, '[') +
                             std::string(200, ']') + "}");
  const std::pair<const char*, const char*> cases[] = {
      {"truncated.json", "not valid JSON"},
      {"schema.json", R"(schema "kdrift.snapshot/9" is not supported)"},
      {"types.json", R"(section "kernel" is a array, not an object)"},
      {"deep.json", "nested deeper than 64 levels"},
      {"huge.json", "number overflow"},
      {"missing.json", "cannot open"},
  };
  for (const auto& [file, message] : cases) {
    SCOPED_TRACE(file);
    const KdriftRun run = kdrift("diff " + good + " " + dir.path() + "/" + file);
    EXPECT_EQ(run.status, 2) << run.out;
    EXPECT_NE(run.out.find(file), std::string::npos) << run.out;
    EXPECT_NE(run.out.find(message), std::string::npos) << run.out;
  }
}

TEST(Cli, MalformedRuleFileIsAnInputErrorNamingFileAndLine) {
  testing::TempDir dir;
  const std::string snapshot = fixture_snapshot_file(dir, "no-iommu");
  dir.write("rules/broken.toml",
            "id = \"site.rule\"\nseverity = \"warning\"\ntitle = \"t\"\nexplanation = \"e\"\n"
            "remedy = \"r\"\n[[match]]\nvalue = \"sysctl.x\"\nabove = \"many\"\n");
  const KdriftRun run = kdrift("check " + snapshot + " --checks " + dir.path() + "/rules");
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.out.find("rules/broken.toml:8: match: above: expected a number"), std::string::npos)
      << run.out;
}

TEST(Cli, UserRulesAddFindings) {
  testing::TempDir dir;
  const std::string snapshot = fixture_snapshot_file(dir, "no-iommu");
  dir.write("rules/swappiness.toml",
            "id = \"site.swappiness\"\nseverity = \"warning\"\ntitle = \"Swappy\"\n"
            "explanation = \"e\"\nremedy = \"sysctl -w vm.swappiness=10\"\n[[match]]\n"
            "value = 'sysctl.\"vm.swappiness\"'\nabove = 10\n");
  const KdriftRun run =
      kdrift("check " + snapshot + " --checks " + dir.path() + "/rules --format json");
  ASSERT_EQ(run.status, 1) << "the user's rule is a warning: " << run.out;
  bool found = false;
  const Json report = Json::parse(run.out);
  for (const auto& finding : report["findings"]) {
    found = found || finding["id"] == "site.swappiness";
  }
  EXPECT_TRUE(found) << run.out;
}

TEST(Cli, RedactedReportsNameNoHostOrSerial) {
  testing::TempDir dir;
  const std::string a = fixture_snapshot_file(dir, "no-iommu");
  const std::string b = fixture_snapshot_file(dir, "intel-strict");
  for (const char* format : {"text", "json", "html"}) {
    SCOPED_TRACE(format);
    const KdriftRun run = kdrift("diff " + a + " " + b + " --redact --format " + format);
    EXPECT_EQ(run.status, 1);
    EXPECT_EQ(run.out.find("kdrift-lab-0001"), std::string::npos) << "the NVMe serial";
  }
}

}  // namespace
}  // namespace kdrift
