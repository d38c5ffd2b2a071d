#include "util/systemd_unit.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/fixtures.h"
#include "support/system.h"
#include "util/atomic_file.h"

namespace kdrift {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

constexpr const char* kUnit =
    "[Service]\nType=oneshot\nExecStart=@KDRIFT@ history record\nExecStartPost=@KDRIFT@ "
    "--version\n\n[Install]\nWantedBy=multi-user.target\n";

TEST(SystemdUnit, InstallWritesTheUnitForTheProgramAndEnablesItAsSystemctlWould) {
  const TempDir tmp;
  const std::string dir = tmp.path() + "/etc/systemd/system";
  ASSERT_TRUE(
      install_unit(dir, "kdrift-x.service", kUnit, "/usr/local/bin/kdrift", "multi-user.target"));
  EXPECT_EQ(testing::read_bytes(dir + "/kdrift-x.service"),
            "[Service]\nType=oneshot\nExecStart=/usr/local/bin/kdrift history record\n"
            "ExecStartPost=/usr/local/bin/kdrift --version\n\n[Install]\n"
            "WantedBy=multi-user.target\n");
  const fs::path link = dir + "/multi-user.target.wants/kdrift-x.service";
  ASSERT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(fs::read_symlink(link), fs::path(dir + "/kdrift-x.service"));

  // Again for another binary: both replaced, nothing left behind.
  ASSERT_TRUE(
      install_unit(dir, "kdrift-x.service", kUnit, "/opt/kdrift/bin/kdrift", "multi-user.target"));
  EXPECT_NE(testing::read_bytes(dir + "/kdrift-x.service")
                .find("ExecStart=/opt/kdrift/bin/kdrift history"),
            std::string::npos);
  size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(link.parent_path()))
    ++entries;
  EXPECT_EQ(entries, 1u);
}

// What the Debian package installs: the unit with ExecStart naming /usr/bin/kdrift.
void write_vendor_unit(const std::string& vendor_dir, const std::string& program) {
  fs::create_directories(vendor_dir);
  auto text = unit_text_for(kUnit, program);
  ASSERT_TRUE(text);
  ASSERT_TRUE(write_file_atomically(vendor_dir + "/kdrift-x.service", *text, 0644));
}

TEST(SystemdUnit, ThePackagedUnitIsEnabledWhenItRunsThisSameProgram) {
  const TempDir tmp;
  const std::string dir = tmp.path() + "/etc/systemd/system";
  const std::string vendor = tmp.path() + "/usr/lib/systemd/system";
  write_vendor_unit(vendor, "/usr/bin/kdrift");
  // An earlier install from a build tree left its own copy, which would override the package's.
  ASSERT_TRUE(install_unit(dir, "kdrift-x.service", kUnit, "/work/build/kdrift",
                           "multi-user.target", vendor));
  ASSERT_TRUE(fs::exists(dir + "/kdrift-x.service"));

  const auto installed =
      install_unit(dir, "kdrift-x.service", kUnit, "/usr/bin/kdrift", "multi-user.target", vendor);
  ASSERT_TRUE(installed) << installed.error().describe();
  EXPECT_EQ(*installed, vendor + "/kdrift-x.service");
  EXPECT_FALSE(fs::exists(fs::symlink_status(dir + "/kdrift-x.service")));
  EXPECT_EQ(fs::read_symlink(dir + "/multi-user.target.wants/kdrift-x.service"),
            fs::path(vendor + "/kdrift-x.service"));

  // Removing it disables it and leaves the package's file alone.
  ASSERT_TRUE(remove_unit(dir, "kdrift-x.service", "multi-user.target"));
  EXPECT_FALSE(fs::exists(fs::symlink_status(dir + "/multi-user.target.wants/kdrift-x.service")));
  EXPECT_TRUE(fs::exists(vendor + "/kdrift-x.service"));
}

TEST(SystemdUnit, APackagedUnitForAnotherProgramOrTextIsNotUsed) {
  const TempDir tmp;
  const std::string dir = tmp.path() + "/etc/systemd/system";
  const std::string vendor = tmp.path() + "/usr/lib/systemd/system";
  write_vendor_unit(vendor, "/usr/bin/kdrift");
  // kdrift run from a build tree: its own unit, for its own path.
  auto installed = install_unit(dir, "kdrift-x.service", kUnit, "/work/build/kdrift",
                                "multi-user.target", vendor);
  ASSERT_TRUE(installed);
  EXPECT_EQ(*installed, dir + "/kdrift-x.service");
  EXPECT_NE(testing::read_bytes(*installed).find("ExecStart=/work/build/kdrift "),
            std::string::npos);
  // The packaged kdrift, but the package's file was edited (or is another version's): the
  // text kdrift means to run is written, never a unit it did not check.
  ASSERT_TRUE(
      write_file_atomically(vendor + "/kdrift-x.service", "[Service]\nExecStart=/bin/sh\n", 0644));
  installed =
      install_unit(dir, "kdrift-x.service", kUnit, "/usr/bin/kdrift", "multi-user.target", vendor);
  ASSERT_TRUE(installed);
  EXPECT_EQ(*installed, dir + "/kdrift-x.service");
  EXPECT_EQ(fs::read_symlink(dir + "/multi-user.target.wants/kdrift-x.service"),
            fs::path(dir + "/kdrift-x.service"));
}

// The vendor directory is root's, but a FIFO left there must not hang `history install`, and a
// file that only begins with the unit kdrift would write (then goes on) is not that unit.
TEST(SystemdUnit, AVendorFifoOrOversizedFileIsNeitherWaitedOnNorUsed) {
  const TempDir tmp;
  const std::string dir = tmp.path() + "/etc/systemd/system";
  const std::string vendor = tmp.path() + "/usr/lib/systemd/system";
  fs::create_directories(vendor);
  ASSERT_EQ(mkfifo((vendor + "/kdrift-x.service").c_str(), 0644), 0);
  auto installed =
      install_unit(dir, "kdrift-x.service", kUnit, "/usr/bin/kdrift", "multi-user.target", vendor);
  ASSERT_TRUE(installed) << installed.error().describe();
  EXPECT_EQ(*installed, dir + "/kdrift-x.service");
  EXPECT_TRUE(fs::is_fifo(vendor + "/kdrift-x.service"));

  auto text = unit_text_for(kUnit, "/usr/bin/kdrift");
  ASSERT_TRUE(text);
  fs::remove(vendor + "/kdrift-x.service");
  ASSERT_TRUE(write_file_atomically(vendor + "/kdrift-x.service",
                                    *text + std::string(kMaxUnitBytes, '#'), 0644));
  installed =
      install_unit(dir, "kdrift-x.service", kUnit, "/usr/bin/kdrift", "multi-user.target", vendor);
  ASSERT_TRUE(installed) << installed.error().describe();
  EXPECT_EQ(*installed, dir + "/kdrift-x.service");
  EXPECT_EQ(testing::read_bytes(*installed), *text);
  EXPECT_EQ(fs::read_symlink(dir + "/multi-user.target.wants/kdrift-x.service"),
            fs::path(dir + "/kdrift-x.service"));
}

TEST(SystemdUnit, ARelativeUnitDirectoryStillLinksByAbsolutePath) {
  const TempDir tmp;
  const fs::path saved = fs::current_path();
  fs::current_path(tmp.path());
  const auto installed =
      install_unit("units", "a.service", kUnit, "/bin/true", "multi-user.target");
  fs::current_path(saved);
  ASSERT_TRUE(installed);
  EXPECT_EQ(fs::read_symlink(tmp.path() + "/units/multi-user.target.wants/a.service"),
            fs::path(tmp.path() + "/units/a.service"));
}

TEST(SystemdUnit, RemoveUndoesInstallAndIsIdempotent) {
  const TempDir tmp;
  ASSERT_TRUE(install_unit(tmp.path(), "a.service", kUnit, "/bin/true", "multi-user.target"));
  ASSERT_TRUE(remove_unit(tmp.path(), "a.service", "multi-user.target"));
  EXPECT_FALSE(fs::exists(tmp.path() + "/a.service"));
  EXPECT_FALSE(fs::is_symlink(tmp.path() + "/multi-user.target.wants/a.service"));
  EXPECT_TRUE(remove_unit(tmp.path(), "a.service", "multi-user.target"));
  EXPECT_TRUE(remove_unit(tmp.path() + "/never-made", "a.service", "multi-user.target"));
}

TEST(SystemdUnit, ProgramPathsAreEscapedOrRefusedAsSystemdWouldReadThem) {
  const TempDir tmp;
  ASSERT_TRUE(
      install_unit(tmp.path(), "a.service", kUnit, "/opt/100%/$HOME/kdrift", "multi-user.target"));
  EXPECT_NE(testing::read_bytes(tmp.path() + "/a.service")
                .find("ExecStart=/opt/100%%/$$HOME/kdrift history"),
            std::string::npos);
  const auto spaced =
      install_unit(tmp.path(), "b.service", kUnit, "/opt/my tools/kdrift", "multi-user.target");
  ASSERT_FALSE(spaced);
  EXPECT_NE(spaced.error().describe().find("whitespace"), std::string::npos);
  EXPECT_FALSE(fs::exists(tmp.path() + "/b.service"));
  EXPECT_FALSE(install_unit(tmp.path(), "../b.service", kUnit, "/bin/true", "multi-user.target"));
  EXPECT_FALSE(install_unit(tmp.path(), "b.service", kUnit, "/bin/true", "../etc"));
  EXPECT_FALSE(remove_unit(tmp.path(), "../a.service", "multi-user.target"));
}

TEST(SystemdUnit, PathValuesAreEscapedPerSettingOrRefused) {
  EXPECT_EQ(unit_path_value("/var/lib/kdrift/bisect", UnitSetting::kCommandLine).value_or(""),
            "/var/lib/kdrift/bisect");
  EXPECT_EQ(unit_path_value("/srv/100%/$HOME", UnitSetting::kCommandLine).value_or(""),
            "/srv/100%%/$$HOME");
  EXPECT_EQ(unit_path_value("/srv/100%/$HOME", UnitSetting::kOther).value_or(""),
            "/srv/100%%/$HOME")
      << "only command lines expand $";
  EXPECT_EQ(unit_path_value("/srv/état", UnitSetting::kOther).value_or(""), "/srv/état");
  const std::pair<const char*, const char*> refused[] = {
      {"/tmp/a\nExecStartPre=/tmp/evil", "control character"},
      {"/tmp/a\rb", "control character"},
      {"/tmp/a\tb", "control character"},
      {"/tmp/a\x1b[2Jb", "control character"},
      {"/tmp/a\xc2\x85"
       "b",
       "control character"},  // U+0085, NEL
      {"/tmp/\xff", "invalid UTF-8"},
      {"/tmp/a b", "whitespace"},
      {"/tmp/a\"b", "quote"},
      {"/tmp/a'b", "quote"},
      {"/tmp/a\\nb", "backslash"},
      {"relative/dir", "not an absolute path"},
      {"", "not an absolute path"}};
  for (const auto& [path, why] : refused) {
    for (const auto setting : {UnitSetting::kCommandLine, UnitSetting::kOther}) {
      const auto value = unit_path_value(path, setting);
      ASSERT_FALSE(value.ok()) << path;
      EXPECT_EQ(value.error().code, EINVAL);
      EXPECT_NE(value.error().describe().find(why), std::string::npos) << value.error().describe();
      EXPECT_EQ(value.error().describe().find('\n'), std::string::npos) << "the path is quoted";
    }
  }
}

TEST(SystemdUnit, AProgramWithANewlineIsRefusedAndNoUnitWritten) {
  const TempDir tmp;
  const auto installed = install_unit(tmp.path(), "a.service", kUnit,
                                      "/opt/kdrift\nExecStartPre=/tmp/evil", "multi-user.target");
  ASSERT_FALSE(installed);
  EXPECT_NE(installed.error().describe().find("control character"), std::string::npos);
  EXPECT_TRUE(fs::is_empty(tmp.path()));
}

TEST(SystemdUnit, TheUnitFileIsReadableByAll) {
  const TempDir tmp;
  const mode_t saved = ::umask(077);
  const auto installed =
      install_unit(tmp.path(), "a.service", kUnit, "/bin/true", "multi-user.target");
  ::umask(saved);
  ASSERT_TRUE(installed);
  EXPECT_EQ(fs::status(tmp.path() + "/a.service").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                fs::perms::others_read);
}

TEST(SystemdUnit, RunningExecutableIsThisProcessBinary) {
  auto program = running_executable();
  ASSERT_TRUE(program) << program.error().describe();
  EXPECT_TRUE(fs::path(*program).is_absolute());
  EXPECT_TRUE(fs::equivalent(*program, "/proc/self/exe"));
}

// The unit files kdrift ships (dist/systemd/), installed as kdrift installs them, must be
// what systemd accepts: systemd-analyze verify reports unknown keys, bad values and an ExecStart
// that is not executable. The test binary stands in for kdrift as a program that exists. A timer
// is verified beside the service it runs.
TEST(SystemdUnit, ShippedUnitsPassSystemdAnalyzeVerify) {
  if (testing::run_command("command -v systemd-analyze").status != 0) {
    GTEST_SKIP() << "systemd-analyze is not installed (Debian package systemd)";
  }
  auto program = running_executable();
  ASSERT_TRUE(program);
  const TempDir tmp;
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(testing::source_dir() + "/dist/systemd")) {
    const std::string name = entry.path().filename().string();
    const std::string text = testing::read_bytes(entry.path().string());
    if (entry.path().extension() == ".service") {
      EXPECT_NE(text.find("ExecStart=@KDRIFT@ "), std::string::npos) << name;
      ASSERT_TRUE(install_unit(tmp.path(), name, text, *program, "multi-user.target"));
    } else {
      ASSERT_EQ(entry.path().extension(), ".timer") << name;
      ASSERT_TRUE(write_file_atomically(tmp.path() + "/" + name, text, 0644));
    }
    names.push_back(name);
  }
  for (const std::string& name : names) {
    const auto verify = testing::run_command("cd " + tmp.path() +
                                             " && SYSTEMD_LOG_LEVEL=notice systemd-analyze "
                                             "verify --man=no " +
                                             tmp.path() + "/" + name);
    EXPECT_EQ(verify.status, 0) << name << ": " << verify.out;
    EXPECT_EQ(verify.out, "") << name;
  }
  EXPECT_EQ(names.size(), 4u);
  // The check can fail: a typo in a key is reported.
  std::string broken =
      testing::read_bytes(testing::source_dir() + "/dist/systemd/kdrift-bisect.service");
  broken.replace(broken.find("Type=oneshot"), 12, "Type=oneshoot");
  ASSERT_TRUE(install_unit(tmp.path(), "broken.service", broken, *program, "multi-user.target"));
  const auto verify =
      testing::run_command("systemd-analyze verify --man=no " + tmp.path() + "/broken.service");
  EXPECT_NE(verify.out.find("oneshoot"), std::string::npos) << verify.out;
}

}  // namespace
}  // namespace kdrift
