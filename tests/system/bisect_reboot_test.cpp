// A reboot bisect through the real binary over a machine made of files: the boot is a sysroot
// (--root) unpacked from the lab's fixtures below a Debian /boot with GRUB's grub.cfg and grubenv,
// and the firmware is a script that does what GRUB does on a reboot: it boots grubenv's
// next_entry once (clearing it, as save_env does) from kdrift's entry in custom.cfg, else the
// default kernel; intel-strict's /proc and /sys when the command line has iommu.strict=1,
// intel-lazy's otherwise, and the default after a candidate that panics. Step runs with --root,
// so it sets the entry and never reboots this machine. The bisect must name the candidate that
// added iommu.strict=1, record the one that never booted as "did not boot", and reset must leave
// GRUB's files byte for byte as they were.

#include <gtest/gtest.h>

#include <fstream>

#include "snapshot/snapshot.h"
#include "support/fixtures.h"
#include "support/grub_fixture.h"
#include "support/pe_image.h"
#include "support/system.h"

namespace kdrift {
namespace {

using testing::read_bytes;
using testing::TempDir;

const std::string kRelease = "6.1.0-50-amd64";

constexpr const char* kFirmware = R"py(import os, re, shutil, subprocess, sys, uuid
m = sys.argv[1]
root = m + "/root"
grubenv = root + "/boot/grub/grubenv"
block = open(grubenv, "rb").read()
cmdline = open(m + "/default-cmdline").read().strip()
booted = "default"
found = re.search(rb"^next_entry=(.*)\n", block, re.M)
if found:
    # GRUB's save_env: next_entry cleared in place before the entry boots.
    block = block.replace(found.group(0), b"") + b"#" * len(found.group(0))
    open(grubenv, "wb").write(block)
    custom = open(root + "/boot/grub/custom.cfg").read()
    entry = custom[custom.index("--id '%s'" % found.group(1).decode()):]
    linux = re.search(r"^\s*linux\s+(.*)$", entry, re.M).group(1)
    words = [word.strip("'") for word in linux.split()][1:]
    if "kdrift.test.panic" not in words:
        cmdline = " ".join(words)
        booted = found.group(1).decode()
fixture = "intel-strict" if "iommu.strict=1" in cmdline.split() else "intel-lazy"
unpack = m + "/unpack"
shutil.rmtree(unpack, ignore_errors=True)
os.mkdir(unpack)
subprocess.run(["tar", "xzf", m + "/" + fixture + ".tar.gz", "-C", unpack], check=True)
for part in ("proc", "sys", "dev"):
    shutil.rmtree(root + "/" + part, ignore_errors=True)
    shutil.move(unpack + "/" + part, root + "/" + part)
open(root + "/proc/cmdline", "w").write("BOOT_IMAGE=/boot/vmlinuz-6.1.0-50-amd64 " + cmdline + "\n")
open(root + "/proc/sys/kernel/random/boot_id", "w").write(str(uuid.uuid4()) + "\n")
print(booted)
)py";

class BisectReboot : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string fixtures = testing::source_dir() + "/tests/fixtures/sysroots/";
    for (const char* name : {"intel-lazy", "intel-strict"}) {
      ASSERT_EQ(testing::run_command("cp " + fixtures + name + ".tar.gz " + dir_.path()).status, 0);
    }
    dir_.write("firmware.py", kFirmware);
    base_ = "root=UUID=" + grub_fixture::kUuid + " ro console=ttyS0 intel_iommu=on";
    dir_.write("default-cmdline", base_);
    ASSERT_EQ(testing::run_command("cd " + dir_.path() +
                                   " && mkdir root && tar xzf intel-lazy.tar.gz -C root")
                  .status,
              0);
    dir_.write("root/boot/grub/grub.cfg", grub_fixture::grub_cfg({kRelease}));
    dir_.write("root/boot/grub/grubenv", grub_fixture::empty_grubenv());
    dir_.write("root/boot/vmlinuz-" + kRelease, "a kernel GRUB boots");
    dir_.write("root/boot/initrd.img-" + kRelease, "its initrd");
    std::string list;
    for (const auto& [name, words] :
         {std::pair{"c0", ""}, std::pair{"c1", " quiet"}, std::pair{"c2", " kdrift.test.panic"},
          std::pair{"c3", " nowatchdog"}, std::pair{"c4", " iommu.strict=1"},
          std::pair{"c5", " iommu.strict=1 quiet"}}) {
      list += std::string(name) + " kernel=/boot/vmlinuz-" + kRelease +
              " initrd=/boot/initrd.img-" + kRelease + " append=\"" + base_ + words + "\"\n";
    }
    dir_.write("list.txt", list);
    firmware();  // the machine's first boot: the default entry
  }
  std::string firmware() {
    const auto run = testing::run_command("python3 " + dir_.path() + "/firmware.py " + dir_.path());
    EXPECT_EQ(run.status, 0) << run.out;
    return run.out;
  }
  testing::CommandRun bisect(const std::string& arguments) {
    return testing::run_command(testing::kdrift_binary() + " bisect --state-dir " + dir_.path() +
                                "/state " + arguments);
  }
  std::string root() const { return dir_.path() + "/root"; }
  std::string grub_file(const std::string& name) const {
    return read_bytes(root() + "/boot/grub/" + name);
  }
  TempDir dir_;
  std::string base_;
};

TEST_F(BisectReboot, GrubBootsEachCandidateOnceAndTheOneThatNeverBootsIsSkipped) {
  const std::string grubenv = grub_file("grubenv");
  const std::string grub_cfg = grub_file("grub.cfg");
  const auto started = bisect("start --root " + root() +
                              " --mode reboot --good c0 --bad c5 --predicate iommu.strict "
                              "--candidates " +
                              dir_.path() + "/list.txt");
  ASSERT_EQ(started.status, 0) << started.out;
  EXPECT_NE(started.out.find("mode: reboot through grub"), std::string::npos) << started.out;
  testing::CommandRun last;
  int boots = 0;
  for (; boots < 20; ++boots) {
    last = bisect("step --root " + root());
    ASSERT_EQ(last.status, 0) << last.out;
    if (last.out.find("first bad:") != std::string::npos) break;
    EXPECT_NE(last.out.find("GRUB boots"), std::string::npos) << last.out;
    firmware();
  }
  EXPECT_NE(last.out.find("first bad: c4"), std::string::npos) << last.out;
  EXPECT_LE(boots, 8);
  const auto report = bisect("report --format json");
  const Json result = Json::parse(report.out.substr(report.out.find('{')));
  EXPECT_EQ(result["mode"], "reboot");
  EXPECT_EQ(result["first_bad"], "c4");
  bool skipped = false;
  for (const Json& step : result["steps"]) {
    if (step["candidate"] == "c2") skipped = step["verdict"] == "skip (did not boot)";
  }
  EXPECT_TRUE(skipped) << result.dump(2);
  // The default entry never changed: grub.cfg is GRUB's own, and after reset nothing of
  // kdrift's is left.
  EXPECT_EQ(grub_file("grub.cfg"), grub_cfg);
  const auto reset = bisect("reset --root " + root());
  ASSERT_EQ(reset.status, 0) << reset.out;
  EXPECT_EQ(grub_file("grubenv"), grubenv);
  EXPECT_FALSE(std::ifstream(root() + "/boot/grub/custom.cfg").good());
}

TEST_F(BisectReboot, ResetUndoesAnEntrySetForABootThatNeverCame) {
  const std::string grubenv = grub_file("grubenv");
  ASSERT_EQ(bisect("start --root " + root() +
                   " --mode reboot --good c0 --bad c5 --predicate iommu.strict --candidates " +
                   dir_.path() + "/list.txt")
                .status,
            0);
  const auto step = bisect("step --root " + root());
  ASSERT_EQ(step.status, 0) << step.out;
  EXPECT_NE(grub_file("grubenv"), grubenv);
  const auto reset = bisect("reset --root " + root());
  ASSERT_EQ(reset.status, 0) << reset.out;
  EXPECT_NE(reset.out.find("cleared next_entry"), std::string::npos) << reset.out;
  EXPECT_EQ(grub_file("grubenv"), grubenv);
  EXPECT_FALSE(std::ifstream(root() + "/boot/grub/custom.cfg").good());
}

TEST_F(BisectReboot, ALoaderThatCannotBootOnceIsRefusedBeforeAnythingIsRecorded) {
  std::string no_custom = grub_fixture::grub_cfg({kRelease});
  no_custom.erase(no_custom.find("### BEGIN /etc/grub.d/41_custom"));
  dir_.write("root/boot/grub/grub.cfg", no_custom);
  const auto modes = bisect("modes --root " + root());
  ASSERT_EQ(modes.status, 0) << modes.out;
  EXPECT_NE(modes.out.find("reboot through grub (/boot/grub): not usable"), std::string::npos)
      << modes.out;
  const auto started = bisect("start --root " + root() +
                              " --mode reboot --good c0 --bad c5 --predicate iommu.strict "
                              "--candidates " +
                              dir_.path() + "/list.txt");
  EXPECT_EQ(started.status, 2) << started.out;
  EXPECT_NE(started.out.find("does not source custom.cfg"), std::string::npos) << started.out;
  EXPECT_FALSE(std::ifstream(dir_.path() + "/state/journal.jsonl").good());
}

// Debian's kernel (the fixture's config has CONFIG_KEXEC_SIG=y) locked down by lockdown=integrity:
// kexec_file_load still works, but only for signed images, and the candidates carry none.
TEST_F(BisectReboot, LockdownWithUnsignedCandidatesMakesAutoRebootAndKexecIsRefused) {
  dir_.write("root/sys/kernel/security/lockdown", "none [integrity] confidentiality\n");
  dir_.write("root/boot/vmlinuz-" + kRelease, testing::pe_kernel_image(0));
  const std::string args =
      " --good c0 --bad c5 --predicate iommu.strict --candidates " + dir_.path() + "/list.txt";
  const auto kexec = bisect("start --root " + root() + " --mode kexec" + args);
  EXPECT_EQ(kexec.status, 2) << kexec.out;
  EXPECT_NE(kexec.out.find("this machine cannot kexec"), std::string::npos) << kexec.out;
  EXPECT_NE(kexec.out.find("candidate c0: /boot/vmlinuz-" + kRelease + " carries no signature"),
            std::string::npos)
      << kexec.out;
  EXPECT_FALSE(std::ifstream(dir_.path() + "/state/journal.jsonl").good());
  const auto chosen = bisect("start --root " + root() + " --mode auto" + args);
  ASSERT_EQ(chosen.status, 0) << chosen.out;
  EXPECT_NE(chosen.out.find("mode: reboot through grub (auto: kexec cannot"), std::string::npos)
      << chosen.out;
  EXPECT_NE(chosen.out.find("locked down (integrity)"), std::string::npos) << chosen.out;
}

TEST_F(BisectReboot, LockdownWithSignedCandidatesLeavesKexec) {
  dir_.write("root/sys/kernel/security/lockdown", "none [integrity] confidentiality\n");
  dir_.write("root/boot/vmlinuz-" + kRelease, testing::pe_kernel_image(1424));
  const auto chosen = bisect("start --root " + root() + " --mode auto --good c0 --bad c5 " +
                             "--predicate iommu.strict --candidates " + dir_.path() + "/list.txt");
  EXPECT_NE(chosen.out.find("mode: kexec (auto: kexec works here)"), std::string::npos)
      << chosen.out;
}

}  // namespace
}  // namespace kdrift
