#include "boot/systemd_boot.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <sstream>

#include "boot/efi_vars.h"
#include "support/fixtures.h"

namespace kdrift {
namespace {

using testing::read_bytes;
using testing::TempDir;

const std::string kOld = "6.1.0-50-amd64";
const std::string kNew = "6.12.57+deb12-amd64";
const std::string kMachine = "0f4e1a2b3c4d5e6f708192a3b4c5d6e7";
const std::string kOneShotFile = "LoaderEntryOneShot-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f";

// A Debian host with systemd-boot: kernel-install's entries and copies on the ESP at /boot/efi,
// the kernels in /boot, and efivarfs as a plain directory.
class SystemdBootHost {
 public:
  SystemdBootHost() {
    for (const std::string& release : {kOld, kNew}) {
      dir_.write("boot/efi/loader/entries/" + kMachine + "-" + release + ".conf",
                 "title      Debian GNU/Linux 12 (bookworm)\nversion    " + release +
                     "\nmachine-id " + kMachine +
                     "\nsort-key   debian\noptions    root=UUID=x "
                     "ro console=ttyS0\nlinux      /" +
                     kMachine + "/" + release + "/linux\ninitrd     /" + kMachine + "/" + release +
                     "/initrd.img-" + release + "\n");
      dir_.write("boot/vmlinuz-" + release, "kernel " + release);
      dir_.write("boot/initrd.img-" + release, "initrd " + release);
    }
    dir_.write("boot/efi/loader/loader.conf",
               "default " + kMachine + "-" + kOld + ".conf\ntimeout 0\n");
    dir_.mkdir("sys/firmware/efi/efivars");
    dir_.write("state/bzImage", "a kernel kdrift built");
    ::chmod(dir_.path().c_str(), 0755);
  }
  std::string root() const { return dir_.path(); }
  std::string efivars() const { return dir_.path() + "/sys/firmware/efi/efivars"; }
  std::map<std::string, std::string> files() const {
    std::map<std::string, std::string> found;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_.path())) {
      if (entry.is_regular_file()) found[entry.path().string()] = read_bytes(entry.path());
    }
    return found;
  }
  SystemdBoot method() const { return SystemdBoot(sysroot_, root(), "/boot/efi", "b1"); }
  TempDir dir_;

 private:
  SysRoot sysroot_{dir_.path()};
};

BootImage image_of(const std::string& release) {
  return {"/boot/vmlinuz-" + release, "/boot/initrd.img-" + release,
          "root=UUID=x ro kdrift.bisect=b1.1", "k-" + release};
}

TEST(SystemdBoot, BootsTheCandidatesEntryOnceAndResetLeavesNothing) {
  SystemdBootHost host;
  const auto before = host.files();
  SystemdBoot boot = host.method();
  std::ostringstream log;
  const auto prepared = boot.prepare(image_of(kNew));
  ASSERT_TRUE(prepared) << prepared.error().describe();
  ASSERT_TRUE(boot.boot(image_of(kNew), {false, false}, log));
  const std::string entry = read_bytes(host.root() + "/boot/efi/loader/entries/kdrift-b1.conf");
  const auto parsed = parse_bls_entry(entry, "kdrift-b1.conf");
  ASSERT_TRUE(parsed) << entry;
  EXPECT_EQ(parsed->linux_path, "/" + kMachine + "/" + kNew + "/linux");
  EXPECT_EQ(parsed->initrd_paths,
            (std::vector<std::string>{"/" + kMachine + "/" + kNew + "/initrd.img-" + kNew}));
  EXPECT_EQ(parsed->options, "root=UUID=x ro kdrift.bisect=b1.1 panic=10");
  EXPECT_EQ(parsed->version, kNew);
  // The variable systemd-boot reads: attributes NV|BS|RT, then the entry's id in UTF-16LE.
  const std::string variable = read_bytes(host.efivars() + "/" + kOneShotFile);
  ASSERT_EQ(variable.substr(0, 4), std::string("\x07\x00\x00\x00", 4));
  EXPECT_EQ(*utf16le_to_utf8(variable.substr(4)), "kdrift-b1.conf");
  EXPECT_NE(log.str().find("LoaderEntryOneShot=kdrift-b1.conf"), std::string::npos);

  ASSERT_TRUE(boot.undo(log));
  EXPECT_EQ(host.files(), before);
  ASSERT_TRUE(boot.undo(log)) << "undo twice";
}

TEST(SystemdBoot, CopiesABuiltKernelOntoTheEsp) {
  SystemdBootHost host;
  SystemdBoot boot = host.method();
  const BootImage built{"/state/bzImage", "", "root=UUID=x ro kdrift.bisect=b1.2", "7f23e140"};
  std::ostringstream log;
  ASSERT_TRUE(boot.prepare(built)) << boot.prepare(built).error().describe();
  ASSERT_TRUE(boot.boot(built, {false, false}, log));
  EXPECT_EQ(read_bytes(host.root() + "/boot/efi/kdrift-b1/linux"), "a kernel kdrift built");
  ASSERT_TRUE(boot.undo(log));
  EXPECT_FALSE(std::filesystem::exists(host.root() + "/boot/efi/kdrift-b1"));
}

TEST(SystemdBoot, AnEspThatIsNotMountedOrAHostWithoutUefiIsRefusedBeforeAnyChange) {
  for (const std::string missing : {"boot/efi/loader", "sys/firmware/efi/efivars"}) {
    SystemdBootHost host;
    std::filesystem::remove_all(host.root() + "/" + missing);
    const auto before = host.files();
    SystemdBoot boot = host.method();
    const auto prepared = boot.prepare(image_of(kNew));
    ASSERT_FALSE(prepared) << missing;
    EXPECT_NE(
        prepared.error().describe().find(missing == "boot/efi/loader" ? "not mounted" : "UEFI"),
        std::string::npos)
        << prepared.error().describe();
    std::ostringstream log;
    EXPECT_FALSE(boot.boot(image_of(kNew), {false, false}, log));
    EXPECT_EQ(host.files(), before);
  }
}

TEST(SystemdBoot, RefusesACommandLineThatWouldBecomeTwoLines) {
  SystemdBootHost host;
  SystemdBoot boot = host.method();
  BootImage image = image_of(kNew);
  image.command_line = "ro\nlinux /evil";
  EXPECT_FALSE(boot.prepare(image));
}

}  // namespace
}  // namespace kdrift
