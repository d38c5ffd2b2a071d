// kdrift history through the real binary: recording this boot into a temporary history, the
// check it runs when the boot before had another kernel, the listing, and the bootcheck unit
// installed into a temporary unit directory.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "snapshot/snapshot.h"
#include "support/fixtures.h"
#include "support/system.h"
#include "util/gzip.h"

namespace kdrift {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

std::vector<std::string> boot_files(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir))
    names.push_back(entry.path().string());
  std::sort(names.begin(), names.end());
  return names;
}

class HistoryCli : public ::testing::Test {
 protected:
  void SetUp() override {
    // The capture reads the live host; without root much of it is unavailable.
    if (!testing::is_root()) GTEST_SKIP() << "needs root (captures the live host)";
  }
  testing::CommandRun history(const std::string& dir, const std::string& arguments,
                              bool split_stderr = false) {
    return testing::run_kdrift("history --dir " + dir + " " + arguments, split_stderr);
  }
  // This boot as history record stores it (recorded into a scratch history and read back).
  Json this_boot() {
    const std::string scratch = tmp_.path() + "/scratch";
    EXPECT_EQ(history(scratch, "record").status, 0);
    auto snapshot = read_snapshot_text(testing::read_bytes(boot_files(scratch).at(0)), "scratch");
    EXPECT_TRUE(snapshot) << snapshot.error().describe();
    return snapshot ? *snapshot : Json::object();
  }
  // Places snapshot in boots_ as the bootcheck unit would have left it on an earlier boot.
  void place_boot_before(Json snapshot) {
    snapshot["kernel"]["boot_id"] = "00000000-1111-2222-3333-444444444444";
    snapshot["capture"]["captured_at"] = "2000-01-01T00:00:00Z";
    auto packed = gzip(to_text(snapshot), previous_);
    ASSERT_TRUE(packed);
    tmp_.write("boots/20000101T000000Z-00000000.json.gz", *packed);
  }
  TempDir tmp_;
  const std::string boots_ = tmp_.path() + "/boots";
  const std::string previous_ = boots_ + "/20000101T000000Z-00000000.json.gz";
};

TEST_F(HistoryCli, RecordingTwiceInOneBootStoresOneSnapshot) {
  const auto first = history(boots_, "record");
  ASSERT_EQ(first.status, 0) << first.out;
  EXPECT_NE(first.out.find("recorded this boot: " + boots_ + "/"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("no earlier boot is recorded"), std::string::npos) << first.out;
  const auto second = history(boots_, "record");
  ASSERT_EQ(second.status, 0) << second.out;
  EXPECT_NE(second.out.find("this boot was recorded before"), std::string::npos) << second.out;
  ASSERT_EQ(boot_files(boots_).size(), 1u);

  auto stored = read_snapshot_text(testing::read_bytes(boot_files(boots_)[0]), "stored");
  ASSERT_TRUE(stored) << stored.error().describe();
  std::ifstream boot_id_file("/proc/sys/kernel/random/boot_id");
  std::string boot_id;
  boot_id_file >> boot_id;
  EXPECT_EQ((*stored)["kernel"]["boot_id"], boot_id);
  EXPECT_NE(boot_files(boots_)[0].find("-" + boot_id.substr(0, 8) + ".json.gz"), std::string::npos);

  const auto listed = history(boots_, "--format json", true);
  ASSERT_EQ(listed.status, 0) << listed.out;
  const Json listing = Json::parse(listed.out);
  ASSERT_EQ(listing["boots"].size(), 1u);
  EXPECT_EQ(listing["boots"][0]["this_boot"], true);
  EXPECT_EQ(listing["boots"][0]["kernel_changed"], false);
}

// The pre/post-upgrade check: the boot before ran another kernel (a snapshot of this host with
// another release, placed in the history as the unit would have left it), so record reports
// exactly what kdrift check --baseline PREVIOUS THIS reports, with its exit status.
TEST_F(HistoryCli, AnotherKernelOnTheBootBeforeRunsTheBaselineCheck) {
  const Json now = this_boot();
  Json before = now;
  before["kernel"]["release"] = "5.10.0-kdrift-test";
  place_boot_before(before);
  const auto text = history(boots_, "record");
  EXPECT_LE(text.status, 1) << text.out;
  EXPECT_NE(text.out.find("kernel changed since the boot before: 5.10.0-kdrift-test -> " +
                          now["kernel"]["release"].get<std::string>()),
            std::string::npos)
      << text.out;
  ASSERT_EQ(boot_files(boots_).size(), 2u);
  const std::string current = boot_files(boots_)[1];

  const auto recorded = history(boots_, "record --format json", true);
  const auto checked =
      testing::run_kdrift("check --baseline " + previous_ + " " + current + " --format json", true);
  EXPECT_EQ(recorded.status, checked.status);
  EXPECT_EQ(recorded.status, text.status);
  ASSERT_EQ(recorded.out, checked.out);
  const Json report = Json::parse(recorded.out);
  EXPECT_EQ(report["kind"], "diff");
  bool release_changed = false;
  for (const Json& change : report["changes"]) {
    release_changed = release_changed || change.dump().find("kernel.release") != std::string::npos;
  }
  EXPECT_TRUE(release_changed) << report["changes"].dump();

  const auto listed = history(boots_, "--format json", true);
  ASSERT_EQ(listed.status, 0);
  const Json listing = Json::parse(listed.out);
  ASSERT_EQ(listing["boots"].size(), 2u);
  EXPECT_EQ(listing["boots"][1]["kernel_changed"], true);
  EXPECT_EQ(listing["boots"][1]["previous_release"], "5.10.0-kdrift-test");
  const auto table = history(boots_, "");
  EXPECT_NE(table.out.find("kernel changed (was 5.10.0-kdrift-test); this boot"), std::string::npos)
      << table.out;
}

TEST_F(HistoryCli, TheSameKernelAsTheBootBeforeIsSaidAndClean) {
  place_boot_before(this_boot());
  const std::string whole = testing::read_bytes(previous_);
  // A damaged file in the history is listed and skipped, not fatal.
  tmp_.write("boots/20000102T000000Z-deadbeef.json.gz", whole.substr(0, whole.size() / 3));
  const auto same = history(boots_, "record");
  EXPECT_EQ(same.status, 0) << same.out;
  EXPECT_NE(same.out.find("same kernel as the boot before"), std::string::npos) << same.out;
  const auto listed = history(boots_, "");
  EXPECT_EQ(listed.status, 0) << listed.out;
  EXPECT_NE(listed.out.find("unreadable: "), std::string::npos) << listed.out;
  EXPECT_NE(listed.out.find("truncated"), std::string::npos) << listed.out;
}

// Installing writes files only (no systemd here is asked anything unless it is PID 1), so this
// needs no root; the unit is then checked as systemd would load it.
TEST(HistoryInstall, InstallsTheBootcheckUnitForThisBinaryAndUninstallsIt) {
  const TempDir tmp;
  const std::string unit_dir = tmp.path() + "/system";
  const auto installed = testing::run_kdrift("history install --unit-dir " + unit_dir);
  ASSERT_EQ(installed.status, 0) << installed.out;
  const std::string unit = testing::read_bytes(unit_dir + "/kdrift-bootcheck.service");
  const std::string binary = fs::canonical(testing::kdrift_binary()).string();
  EXPECT_NE(unit.find("ExecStart=" + binary + " history record\n"), std::string::npos) << unit;
  EXPECT_EQ(unit.find("@KDRIFT@"), std::string::npos);
  // Byte for byte the shipped file apart from the program: the embedded copy is current.
  std::string shipped =
      testing::read_bytes(testing::source_dir() + "/dist/systemd/kdrift-bootcheck.service");
  for (size_t at = shipped.find("@KDRIFT@"); at != std::string::npos; at = shipped.find("@KDRIFT@"))
    shipped.replace(at, 8, binary);
  EXPECT_EQ(unit, shipped);
  EXPECT_TRUE(fs::is_symlink(unit_dir + "/multi-user.target.wants/kdrift-bootcheck.service"));
  if (testing::run_command("command -v systemd-analyze").status == 0) {
    const auto verify = testing::run_command("cd " + tmp.path() +
                                             " && systemd-analyze verify "
                                             "--man=no " +
                                             unit_dir + "/kdrift-bootcheck.service");
    EXPECT_EQ(verify.status, 0) << verify.out;
    EXPECT_EQ(verify.out, "");
  }

  ASSERT_EQ(testing::run_kdrift("history uninstall --unit-dir " + unit_dir).status, 0);
  EXPECT_FALSE(fs::exists(unit_dir + "/kdrift-bootcheck.service"));
  EXPECT_FALSE(fs::is_symlink(unit_dir + "/multi-user.target.wants/kdrift-bootcheck.service"));
  EXPECT_EQ(testing::run_kdrift("history uninstall --unit-dir " + unit_dir).status, 0);
}

}  // namespace
}  // namespace kdrift
