#include "boot/uefi_boot_next.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <sstream>

#include "boot/boot_modes.h"
#include "support/fixtures.h"

namespace kdrift {
namespace {

using testing::read_bytes;
using testing::TempDir;

const std::string kEsp = "/boot/efi";
const std::string kEfivars = "sys/firmware/efi/efivars";
const std::string kPartitionGuid = "3e1e0a1b-f3c2-40d4-b1e5-569a12345678";
const std::string kGlobal(kEfiGlobalGuid);

// The head of an x86 kernel as its EFI stub starts: a PE file whose boot protocol header ("HdrS"
// at 0x202) says it is Linux.
std::string x86_kernel(const std::string& tag) {
  std::string image = "MZ" + std::string(0x200, '\0') + "HdrS" + std::string(0x40, '\0');
  return image + tag;
}

EfiDevicePathNode esp_partition() {
  EfiHardDrive drive;
  drive.partition_number = 1;
  drive.start_lba = 0x800;
  drive.size_lba = 0x100000;
  drive.signature = *parse_efi_guid(kPartitionGuid);
  return hard_drive_node(drive);
}

std::string load_option(const std::string& description, const std::string& file,
                        const std::string& command_line) {
  EfiLoadOption option;
  option.description = description;
  option.file_path_list = {esp_partition(), *file_path_node(file), end_entire_node()};
  option.optional_data = command_line.empty() ? "" : *utf8_to_utf16le(command_line);
  return *build_efi_load_option(option);
}

// A host booted as an EFI stub by its firmware, below a temporary root: efibootmgr made Boot0001
// for the Debian kernel on the ESP (GPT partition 1 of vdz, mounted at /boot/efi), and the
// firmware has its own network entry Boot0000.
class UefiHost {
 public:
  UefiHost() {
    ::chmod(dir_.path().c_str(), 0755);
    write("boot/efi/EFI/debian/vmlinuz-6.1.efi", x86_kernel("6.1"));
    write("boot/efi/EFI/debian/vmlinuz-6.12.efi", x86_kernel("6.12"));
    write("boot/efi/EFI/debian/initrd.img-6.12", "initrd 6.12");
    write("boot/efi/EFI/debian/grubx64.efi", "MZ grub");
    write("boot/efi/EFI/BOOT/BOOTX64.EFI", "MZ" + std::string(0x300, 'x'));
    write("boot/vmlinuz-6.12", x86_kernel("6.12 outside the ESP"));
    write("boot/initrd.img-6.12", "initrd outside the ESP");
    dir_.symlink("boot/efi/EFI/debian/escape.efi", "/boot/vmlinuz-6.12");
    put("BootCurrent", encode_boot_number(1));
    put("BootOrder", encode_boot_order({1, 0}));
    put("Boot0001", load_option("Debian", "\\EFI\\debian\\vmlinuz-6.1.efi", "root=/dev/vda2 ro"));
    EfiLoadOption network;
    network.description = "UEFI PXEv4";
    network.file_path_list = {{0x01, 0x01, std::string(2, '\x03')}, end_entire_node()};
    put("Boot0000", *build_efi_load_option(network));
    put("Timeout", encode_boot_number(3));
    set_partition(1, 2048, 1048576);
  }

  std::string root() const { return dir_.path(); }
  std::string efivars() const { return dir_.path() + "/" + kEfivars; }
  void write(const std::string& relative, const std::string& bytes) const {
    dir_.write(relative, bytes);
  }
  void put(const std::string& name, const std::string& data, const std::string& guid = kGlobal,
           uint32_t attributes = kEfiVariableDefaultAttributes) const {
    std::string bytes(4, '\0');
    for (int i = 0; i < 4; ++i)
      bytes[i] = static_cast<char>(attributes >> (8 * i));
    dir_.write(kEfivars + "/" + name + "-" + guid, bytes + data);
  }
  std::string variable(const std::string& name) const {
    return read_bytes(efivars() + "/" + name + "-" + kGlobal);
  }
  // sysfs as the kernel shows the partition mounted at /boot/efi: the device the directory is on
  // in this test, with the number and sectors given.
  void set_partition(int number, uint64_t start, uint64_t size) const {
    struct stat esp {};
    ::stat((root() + kEsp).c_str(), &esp);
    const std::string device =
        std::to_string(major(esp.st_dev)) + ":" + std::to_string(minor(esp.st_dev));
    const std::string partition = "sys/devices/virtual/block/vdz/vdz1/";
    write(partition + "partition", std::to_string(number) + "\n");
    write(partition + "start", std::to_string(start) + "\n");
    write(partition + "size", std::to_string(size) + "\n");
    write("sys/devices/virtual/block/vdz/queue/logical_block_size", "512\n");
    if (!std::filesystem::is_symlink(root() + "/sys/dev/block/" + device)) {
      dir_.symlink("sys/dev/block/" + device, "../../devices/virtual/block/vdz/vdz1");
    }
  }
  // Every variable and its bytes: what a refusal must leave as it was.
  std::map<std::string, std::string> variables() const {
    std::map<std::string, std::string> found;
    for (const auto& entry : std::filesystem::directory_iterator(efivars())) {
      found[entry.path().filename().string()] = read_bytes(entry.path());
    }
    return found;
  }
  UefiBootNext method(const std::string& bisect_id = "b1") const {
    return UefiBootNext(sysroot_, root(), kEsp, efivars(), bisect_id);
  }

 private:
  TempDir dir_;
  SysRoot sysroot_{dir_.path()};
};

const BootImage kNewKernel{"/boot/efi/EFI/debian/vmlinuz-6.12.efi",
                           "/boot/efi/EFI/debian/initrd.img-6.12",
                           "root=/dev/vda2 ro kdrift.bisect=b1.1", "k-6.12"};
const BootImage kOldKernel{"/boot/efi/EFI/debian/vmlinuz-6.1.efi", "",
                           "root=/dev/vda2 ro kdrift.bisect=b1.2", "k-6.1"};

constexpr BootOptions kNoReboot{false, false};

std::string with_entry(const std::string& name) {
  return name + "-" + kGlobal;
}

TEST(UefiBootNext, TheOneShotBootWritesItsEntryAndBootNextAndNothingElse) {
  const UefiHost host;
  const auto before = host.variables();
  UefiBootNext method = host.method();
  const auto prepared = method.prepare(kNewKernel);
  ASSERT_TRUE(prepared) << prepared.error().describe();
  EXPECT_EQ(host.variables(), before) << "prepare changes nothing";
  std::ostringstream log;
  const auto booted = method.boot(kNewKernel, kNoReboot, log);
  ASSERT_TRUE(booted) << booted.error().describe();

  auto after = host.variables();
  const std::string entry = after[with_entry("Boot1000")];
  const std::string next = after[with_entry("BootNext")];
  after.erase(with_entry("Boot1000"));
  after.erase(with_entry("BootNext"));
  EXPECT_EQ(after, before);
  EXPECT_EQ(next, std::string("\x07\x00\x00\x00\x00\x10", 6));
  const std::string expected =
      load_option("kdrift bisect b1", "\\EFI\\debian\\vmlinuz-6.12.efi",
                  "initrd=\\EFI\\debian\\initrd.img-6.12 root=/dev/vda2 ro kdrift.bisect=b1.1 "
                  "panic=10");
  EXPECT_EQ(entry, std::string("\x07\x00\x00\x00", 4) + expected);
  EXPECT_NE(log.str().find("Boot1000"), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("BootOrder is unchanged"), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("reboot when ready"), std::string::npos) << log.str();
}

TEST(UefiBootNext, ASecondStepRewritesTheSameEntry) {
  const UefiHost host;
  UefiBootNext method = host.method();
  std::ostringstream log;
  ASSERT_TRUE(method.prepare(kNewKernel));
  ASSERT_TRUE(method.boot(kNewKernel, kNoReboot, log));
  // The firmware deletes BootNext as it boots the candidate; BootCurrent is then kdrift's entry.
  ASSERT_EQ(::unlink((host.efivars() + "/" + with_entry("BootNext")).c_str()), 0);
  host.put("BootCurrent", encode_boot_number(0x1000));
  const auto prepared = method.prepare(kOldKernel);
  ASSERT_TRUE(prepared) << prepared.error().describe();
  ASSERT_TRUE(method.boot(kOldKernel, kNoReboot, log));
  const auto after = host.variables();
  EXPECT_EQ(after.count(with_entry("Boot1001")), 0u);
  EXPECT_EQ(host.variable("Boot1000"),
            std::string("\x07\x00\x00\x00", 4) +
                load_option("kdrift bisect b1", "\\EFI\\debian\\vmlinuz-6.1.efi",
                            "root=/dev/vda2 ro kdrift.bisect=b1.2 panic=10"));
  EXPECT_EQ(host.variable("BootNext"), std::string("\x07\x00\x00\x00\x00\x10", 6));
}

TEST(UefiBootNext, UndoRestoresTheDirectoryExactly) {
  const UefiHost host;
  const auto before = host.variables();
  UefiBootNext method = host.method();
  std::ostringstream log;
  ASSERT_TRUE(method.prepare(kNewKernel));
  ASSERT_TRUE(method.boot(kNewKernel, kNoReboot, log));
  std::ostringstream undone;
  ASSERT_TRUE(method.undo(undone));
  EXPECT_EQ(host.variables(), before);
  EXPECT_NE(undone.str().find("deleted BootNext (it named Boot1000)"), std::string::npos)
      << undone.str();
  EXPECT_NE(undone.str().find("deleted Boot1000 (kdrift bisect b1)"), std::string::npos)
      << undone.str();
  std::ostringstream again;
  ASSERT_TRUE(method.undo(again)) << "undo twice";
  EXPECT_EQ(again.str(), "");
  EXPECT_EQ(host.variables(), before);
}

TEST(UefiBootNext, UndoLeavesOtherEntriesAndABootNextOfSomeoneElse) {
  const UefiHost host;
  // Another bisect's entry and someone's own Boot1000: the new entry takes the next number.
  host.put("Boot1000", load_option("my own kernel", "\\EFI\\debian\\vmlinuz-6.1.efi", ""));
  host.put("Boot1001", load_option("kdrift bisect b2", "\\EFI\\debian\\vmlinuz-6.1.efi", ""));
  const auto before = host.variables();
  UefiBootNext method = host.method();
  std::ostringstream log;
  ASSERT_TRUE(method.prepare(kNewKernel));
  ASSERT_TRUE(method.boot(kNewKernel, kNoReboot, log));
  EXPECT_EQ(host.variable("BootNext"), std::string("\x07\x00\x00\x00\x02\x10", 6));
  EXPECT_EQ(host.variables().size(), before.size() + 2);
  // Someone points BootNext elsewhere after kdrift's step: reset leaves their choice.
  host.put("BootNext", encode_boot_number(0));
  ASSERT_TRUE(method.undo(log));
  auto after = host.variables();
  EXPECT_EQ(after[with_entry("BootNext")], std::string("\x07\x00\x00\x00\x00\x00", 6));
  after.erase(with_entry("BootNext"));
  EXPECT_EQ(after, before);
}

TEST(UefiBootNext, ADryRunSaysWhatItWouldWriteAndChangesNothing) {
  const UefiHost host;
  const auto before = host.variables();
  UefiBootNext method = host.method();
  ASSERT_TRUE(method.prepare(kNewKernel));
  std::ostringstream log;
  ASSERT_TRUE(method.boot(kNewKernel, {true, true}, log));
  EXPECT_EQ(host.variables(), before);
  EXPECT_NE(log.str().find("# would write Boot1000"), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("File(\\EFI\\debian\\vmlinuz-6.12.efi)"), std::string::npos)
      << log.str();
  EXPECT_NE(log.str().find("# would set BootNext=1000, then reboot"), std::string::npos)
      << log.str();
}

TEST(UefiBootNext, BootsOnlyTheImageItsCheckSaw) {
  const UefiHost host;
  UefiBootNext method = host.method();
  std::ostringstream log;
  EXPECT_FALSE(method.boot(kNewKernel, kNoReboot, log));
  ASSERT_TRUE(method.prepare(kNewKernel));
  EXPECT_FALSE(method.boot(kOldKernel, kNoReboot, log));
  EXPECT_EQ(host.variables().count(with_entry("Boot1000")), 0u);
}

TEST(UefiBootNext, SkipsAVariablePlantedAsASymlink) {
  const UefiHost host;
  host.write("elsewhere", "untouched");
  std::filesystem::create_symlink(host.root() + "/elsewhere",
                                  host.efivars() + "/" + with_entry("Boot1000"));
  UefiBootNext method = host.method();
  std::ostringstream log;
  ASSERT_TRUE(method.prepare(kNewKernel));
  ASSERT_TRUE(method.boot(kNewKernel, kNoReboot, log));
  EXPECT_EQ(host.variable("BootNext"), std::string("\x07\x00\x00\x00\x01\x10", 6));
  EXPECT_EQ(read_bytes(host.root() + "/elsewhere"), "untouched");
  ASSERT_TRUE(method.undo(log));
  EXPECT_TRUE(std::filesystem::is_symlink(host.efivars() + "/" + with_entry("Boot1000")));
}

TEST(UefiBootNext, TakesAUnifiedKernelImageAsTheRunningKernel) {
  const UefiHost host;
  host.put("Boot0001", load_option("UKI", "\\EFI\\BOOT\\BOOTX64.EFI", ""));
  host.put("StubInfo", *utf8_to_utf16le("systemd-stub 255.4"), std::string(kSystemdBootLoaderGuid));
  UefiBootNext method = host.method();
  const auto prepared = method.prepare(kNewKernel);
  EXPECT_TRUE(prepared) << prepared.error().describe();
}

// Each refusal: prepare fails saying what is wrong, and nothing below the efivars changed.
void expect_refusal(const UefiHost& host, const BootImage& image, const std::string& why) {
  const auto before = std::filesystem::exists(host.efivars())
                          ? host.variables()
                          : std::map<std::string, std::string>{};
  UefiBootNext method = host.method();
  const auto prepared = method.prepare(image);
  ASSERT_FALSE(prepared) << why;
  EXPECT_NE(prepared.error().describe().find(why), std::string::npos)
      << prepared.error().describe();
  std::ostringstream log;
  EXPECT_FALSE(method.boot(image, kNoReboot, log));
  if (std::filesystem::exists(host.efivars())) {
    EXPECT_EQ(host.variables(), before);
  }
}

TEST(UefiBootNext, RefusesAHostThatDidNotBootThroughUefi) {
  const UefiHost host;
  std::filesystem::remove_all(host.root() + "/sys/firmware");
  expect_refusal(host, kNewKernel, "this host did not boot through UEFI");
  std::filesystem::create_directories(host.root() + "/sys/firmware/efi");
  expect_refusal(host, kNewKernel, "efivarfs is not mounted at");
}

TEST(UefiBootNext, RefusesWithoutBootCurrentOrItsEntry) {
  const UefiHost host;
  std::filesystem::remove(host.efivars() + "/" + with_entry("BootCurrent"));
  expect_refusal(host, kNewKernel, "BootCurrent is not set");
  host.put("BootCurrent", encode_boot_number(7));
  expect_refusal(host, kNewKernel, "BootCurrent names Boot0007, which is not in");
  host.put("BootCurrent", std::string("\x01", 1));
  expect_refusal(host, kNewKernel, "a boot number of 1 bytes, not 2");
}

TEST(UefiBootNext, RefusesARunningEntryItCannotParse) {
  const UefiHost host;
  const std::string entry = host.variable("Boot0001").substr(4);
  host.put("Boot0001", entry.substr(0, 30));
  expect_refusal(host, kNewKernel, "Boot0001 (the entry this host booted from) cannot be read");
}

TEST(UefiBootNext, RefusesAHostThatBootsThroughALoader) {
  const UefiHost host;
  host.put("Boot0001", load_option("debian", "\\EFI\\debian\\grubx64.efi", ""));
  expect_refusal(host, kNewKernel, "this host boots through GRUB (Boot0001 \"debian\": HD(1,GPT,");
  expect_refusal(host, kNewKernel, "grubx64.efi)); use that");
  host.put("Boot0001", load_option("debian", "\\EFI\\debian\\shimx64.efi", ""));
  expect_refusal(host, kNewKernel, "this host boots through shim");
  host.put("Boot0001",
           load_option("Linux Boot Manager", "\\EFI\\systemd\\systemd-bootx64.efi", ""));
  expect_refusal(host, kNewKernel, "this host boots through systemd-boot");
  // A loader copied to the fallback path, known by the variable it sets.
  host.put("Boot0001", load_option("Linux", "\\EFI\\debian\\vmlinuz-6.1.efi", ""));
  host.put("LoaderInfo", *utf8_to_utf16le("systemd-boot 255.4"),
           std::string(kSystemdBootLoaderGuid));
  expect_refusal(host, kNewKernel, "this host boots through systemd-boot 255.4 (it set LoaderInfo");
}

TEST(UefiBootNext, RefusesARunningImageThatIsNotALinuxKernel) {
  const UefiHost host;
  host.put("Boot0001", load_option("Fallback", "\\EFI\\BOOT\\BOOTX64.EFI", ""));
  expect_refusal(host, kNewKernel,
                 "this host boots through \\EFI\\BOOT\\BOOTX64.EFI (Boot0001 \"Fallback\"");
  expect_refusal(host, kNewKernel, "which is not a Linux kernel booted as an EFI stub; use that");
}

TEST(UefiBootNext, RefusesARunningEntryThatIsNoFileOnAPartition) {
  const UefiHost host;
  host.put("BootCurrent", encode_boot_number(0));
  expect_refusal(host, kNewKernel,
                 "Boot0000 \"UEFI PXEv4\", the entry this host booted from, boots Node(0x1,0x1), "
                 "not a file on a hard drive partition");
}

TEST(UefiBootNext, RefusesAnEspThatIsNotThePartitionTheHostBootsFrom) {
  const UefiHost host;
  host.set_partition(2, 1050624, 1048576);
  expect_refusal(host, kNewKernel, "/boot/efi is on partition 2 (sectors from 1050624");
  expect_refusal(host, kNewKernel, "is the EFI system partition mounted there?");
  // The running kernel's file is not below the ESP's mount point either.
  const UefiHost elsewhere;
  std::filesystem::remove(elsewhere.root() + "/boot/efi/EFI/debian/vmlinuz-6.1.efi");
  expect_refusal(elsewhere, kNewKernel, "names a file that is not below /boot/efi");
}

TEST(UefiBootNext, RefusesAKernelOrInitrdOffTheEsp) {
  const UefiHost host;
  BootImage image = kNewKernel;
  image.kernel = "/boot/vmlinuz-6.12";
  expect_refusal(host, image, "kernel /boot/vmlinuz-6.12 is not on the EFI system partition");
  image.kernel = "/boot/efi/EFI/debian/escape.efi";
  expect_refusal(host, image, "(/boot/vmlinuz-6.12) is not on the EFI system partition");
  image.kernel = "/boot/efi/../vmlinuz-6.12";
  expect_refusal(host, image, "is not on the EFI system partition");
  image = kNewKernel;
  image.initrd = "/boot/initrd.img-6.12";
  expect_refusal(host, image, "initrd /boot/initrd.img-6.12 is not on the EFI system partition");
  image.initrd = "/boot/efi/EFI/debian/absent.img";
  expect_refusal(host, image, "initrd /boot/efi/EFI/debian/absent.img");
}

TEST(UefiBootNext, RefusesAKernelOthersCanChange) {
  const UefiHost host;
  ::chmod((host.root() + "/boot/efi/EFI/debian/vmlinuz-6.12.efi").c_str(), 0666);
  expect_refusal(host, kNewKernel, "writable by its group or others");
}

TEST(UefiBootNext, RefusesABisectIdThatIsNotAPlainName) {
  const UefiHost host;
  UefiBootNext method = host.method("b1 x");
  EXPECT_FALSE(method.prepare(kNewKernel));
}

TEST(UefiBootNext, RefusesReadOnlyEfivarsBeforeAnyChange) {
  const UefiHost host;
  const auto before = host.variables();
  const std::string efivars = host.efivars();
  const pid_t pid = ::fork();
  if (pid == 0) {
    // The child's own mount namespace: the read-only bind mount is seen by nobody else.
    if (::unshare(CLONE_NEWNS) != 0 ||
        ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        ::mount(efivars.c_str(), efivars.c_str(), nullptr, MS_BIND, nullptr) != 0 ||
        ::mount(nullptr, efivars.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) !=
            0) {
      ::_exit(77);
    }
    UefiBootNext method = host.method();
    const auto prepared = method.prepare(kNewKernel);
    if (prepared) ::_exit(1);
    const bool said =
        prepared.error().describe().find("efivarfs is mounted read-only") != std::string::npos;
    ::_exit(said ? 0 : 2);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) GTEST_SKIP() << "no mount namespace for this user";
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(host.variables(), before);
}

TEST(UefiBootNext, IsTheRebootOfAHostItsFirmwareBootsAKernel) {
  const UefiHost host;
  const SysRoot root(host.root());
  const BootModes modes = survey_boot_modes(root, "");
  ASSERT_FALSE(modes.loaders.empty());
  EXPECT_EQ(modes.loaders.front().place.loader, "uefi");
  EXPECT_EQ(modes.loaders.front().place.directory, "/boot/efi");
  EXPECT_TRUE(modes.loaders.front().usable) << modes.loaders.front().why;
  EXPECT_NE(modes.loaders.front().why.find("Boot0001"), std::string::npos);
  std::ostringstream notes;
  auto method = make_boot_method("reboot", {"uefi", "/boot/efi"}, root, "b1", notes);
  ASSERT_TRUE(method) << method.error().describe();
  EXPECT_EQ((*method)->name(), "uefi");
  EXPECT_TRUE((*method)->prepare(kNewKernel));
  // Booted through GRUB: BootNext is offered, not usable, and says why.
  host.put("Boot0001", load_option("debian", "\\EFI\\debian\\grubx64.efi", ""));
  const BootModes through_grub = survey_boot_modes(SysRoot(host.root()), "");
  ASSERT_FALSE(through_grub.loaders.empty());
  EXPECT_FALSE(through_grub.loaders.back().usable);
  EXPECT_NE(through_grub.loaders.back().why.find("this host boots through GRUB"),
            std::string::npos);
}

TEST(UefiBootNext, NamesItsEntries) {
  EXPECT_EQ(uefi_entry_description("b1"), "kdrift bisect b1");
  EXPECT_EQ(kFirstKdriftBootEntry, 0x1000);
  const UefiHost host;
  EXPECT_EQ(host.method().name(), "uefi");
}

}  // namespace
}  // namespace kdrift
