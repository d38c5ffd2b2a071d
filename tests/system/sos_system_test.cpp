// sos reports made for real by this machine's sos (Debian's sosreport), read with --root: the
// archive as a customer sends it and the folder it unpacks to.

#include <gtest/gtest.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "snapshot/snapshot.h"
#include "support/fixtures.h"
#include "support/system.h"
#include "util/text.h"

namespace kdrift {
namespace {

namespace fs = std::filesystem;
using testing::run_command;
using testing::run_kdrift;

// The plugins a capture reads from, and no more: each plugin adds seconds.
constexpr std::string_view kCapturePlugins = "block,kernel,processor";
// What a support engineer asks for when storage is slow.
constexpr std::string_view kSupportPlugins =
    "block,kernel,processor,hardware,pci,devicemapper,scsi,nvme,memory,boot,filesys,numa";

std::string skip_reason() {
  if (!testing::is_root()) return "needs root: sos report reads what only root may";
  if (run_command("command -v sos").status != 0) {
    return "sos is not installed (scripts/setup --with-test-tools installs sosreport)";
  }
  return "";
}

// The archive sos made in directory, or nullopt with the output in why.
std::optional<std::string> make_report(const std::string& directory, std::string_view plugins,
                                       std::string* why) {
  fs::create_directories(directory);
  const auto started = std::chrono::steady_clock::now();
  const auto run = run_command("sos report --batch --quiet --tmp-dir " + directory + " -o " +
                               std::string(plugins));
  const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started);
  std::cout << "sos report -o " << plugins << ": " << seconds.count() << " s\n";
  for (const auto& entry : fs::directory_iterator(directory)) {
    const auto name = entry.path().filename().string();
    if (starts_with(name, "sosreport-") && name.ends_with(".tar.xz")) return entry.path().string();
  }
  *why = "sos report made no archive (status " + std::to_string(run.status) + "): " + run.out;
  return std::nullopt;
}

// The one folder an archive unpacks to.
std::string unpack(const std::string& archive, const std::string& directory) {
  fs::create_directories(directory);
  EXPECT_EQ(run_command("tar -xJf " + archive + " -C " + directory).status, 0);
  for (const auto& entry : fs::directory_iterator(directory))
    return entry.path().string();
  return directory;
}

Json capture(const std::string& root, const std::string& output) {
  const auto run = run_kdrift("capture --probe none --root " + root + " -o " + output);
  EXPECT_EQ(run.status, 0) << run.out;
  std::ifstream in(output);
  std::stringstream text;
  text << in.rdbuf();
  Json snapshot = Json::parse(text.str(), nullptr, false);
  EXPECT_TRUE(snapshot.is_object()) << root;
  return snapshot.is_object() ? snapshot : Json::object();
}

std::string queue_value(const Json& snapshot, const std::string& device, const char* key) {
  const Json queue = snapshot.value("block", Json::object())
                         .value("devices", Json::object())
                         .value(device, Json::object())
                         .value("queue", Json::object());
  return queue.contains(key) ? queue[key].dump() : "(absent)";
}

TEST(SosReport, DiffOfTwoReportsNamesTheChangedQueueSetting) {
  if (const auto why = skip_reason(); !why.empty()) GTEST_SKIP() << why;
  testing::TempDir work;
  std::string why;
  auto loop = testing::LoopDevice::create_sparse(work.path(), "64M", &why);
  if (!loop) GTEST_SKIP() << "no loop device: " << why;
  const std::string setting = "/sys/block/" + loop->name() + "/queue/read_ahead_kb";
  const auto before = make_report(work.path() + "/a", kCapturePlugins, &why);
  ASSERT_TRUE(before) << why;
  std::optional<std::string> after;
  {
    testing::ScopedSysctl changed(setting, "4096");
    ASSERT_TRUE(changed.ok()) << setting;
    after = make_report(work.path() + "/b", kCapturePlugins, &why);
  }
  ASSERT_TRUE(after) << why;

  // The archive as sent, and the other report as unpacked: both are sysroots.
  const Json a = capture(*before, work.path() + "/a.json");
  const Json b = capture(unpack(*after, work.path() + "/b-tree"), work.path() + "/b.json");
  EXPECT_NE(queue_value(a, loop->name(), "read_ahead_kb"), "4096");
  EXPECT_EQ(queue_value(b, loop->name(), "read_ahead_kb"), "4096");

  const auto diff = run_kdrift("diff " + work.path() + "/a.json " + work.path() + "/b.json");
  // A loop device is no physical disk, so no rule ranks its readahead: the change is listed.
  EXPECT_TRUE(diff.status == 0 || diff.status == 1) << diff.status << diff.out;
  EXPECT_NE(diff.out.find(loop->name()), std::string::npos) << diff.out;
  EXPECT_NE(diff.out.find("block.devices." + loop->name() + ".queue.read_ahead_kb"),
            std::string::npos)
      << diff.out;
  const auto check = run_kdrift("check " + work.path() + "/a.json");
  EXPECT_TRUE(check.status == 0 || check.status == 1) << check.status << check.out;
}

TEST(SosReport, TheSupportPluginSetCapturesThisHost) {
  if (const auto why = skip_reason(); !why.empty()) GTEST_SKIP() << why;
  testing::TempDir work;
  std::string why;
  const auto report = make_report(work.path() + "/r", kSupportPlugins, &why);
  ASSERT_TRUE(report) << why;
  Json snapshot = capture(*report, work.path() + "/s.json");
  utsname names{};
  ASSERT_EQ(uname(&names), 0);
  EXPECT_EQ(snapshot["kernel"]["release"], names.release);
  EXPECT_EQ(snapshot["cpu"]["cpus"]["online"]["count"], sysconf(_SC_NPROCESSORS_ONLN))
      << snapshot["cpu"]["cpus"];
  EXPECT_TRUE(snapshot["block"]["devices"].contains("vda")) << snapshot["block"];
  EXPECT_EQ(snapshot["capture"]["live"], false);
  const auto check = run_kdrift("check " + work.path() + "/s.json");
  EXPECT_TRUE(check.status == 0 || check.status == 1) << check.status << check.out;
}

}  // namespace
}  // namespace kdrift
