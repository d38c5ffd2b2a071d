// kdrift bisect step through the real binary over a machine made of files: the boot is a sysroot
// (--root) unpacked from the lab's fixtures, and `kexec` is a script on PATH that "boots" the
// command line loaded through it (the real kexec_file_load refuses the fake image, so step falls
// back to kexec-tools' legacy load, on the descriptor it checked) by unpacking the fixture it asks
// for (intel-strict when the command line has iommu.strict=1, intel-lazy otherwise, the firmware's
// default after a panic), giving it a new boot id, and killing step as a real jump would. The
// functional bisect must name the candidate that added iommu.strict=1, skipping one that panics.

#include <gtest/gtest.h>

#include <fstream>

#include "snapshot/snapshot.h"
#include "support/fixtures.h"
#include "support/probe_runs.h"
#include "support/system.h"

namespace kdrift {
namespace {

using testing::TempDir;

constexpr const char* kFakeKexec = R"sh(#!/bin/sh
# A machine for kdrift's tests: -l remembers the image's command line, -e boots it.
m="$KDRIFT_FAKE_MACHINE"
echo "kexec $*" >> "$m/kexec.log"
power_on() {  # FIXTURE CMDLINE
    rm -rf "$m/root" && mkdir "$m/root" && tar xzf "$m/$1.tar.gz" -C "$m/root" || exit 99
    echo "$2" > "$m/root/proc/cmdline"
    cat /proc/sys/kernel/random/uuid > "$m/root/proc/sys/kernel/random/boot_id"
}
case "$1" in
    -e)
        cmdline=$(cat "$m/loaded")
        case "$cmdline" in
            *kdrift.test.panic*) power_on intel-lazy "$(cat "$m/default-cmdline")" ;;
            *iommu.strict=1*) power_on intel-strict "$cmdline" ;;
            *) power_on intel-lazy "$cmdline" ;;
        esac
        kill -9 "$PPID"
        exit 0 ;;
    -l)
        # The image is the descriptor step checked and let this inherit.
        case "$2" in /proc/self/fd/*) cat "$2" > "$m/loaded-image" || exit 98 ;; *) exit 97 ;; esac ;;
esac
for word; do
    case "$word" in --command-line=*) printf '%s\n' "${word#--command-line=}" > "$m/loaded" ;; esac
done
exit 0
)sh";

class BisectStep : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string fixtures = testing::source_dir() + "/tests/fixtures/sysroots/";
    for (const char* name : {"intel-lazy", "intel-strict"}) {
      ASSERT_EQ(testing::run_command("cp " + fixtures + name + ".tar.gz " + dir_.path()).status, 0);
    }
    dir_.write("bin/kexec", kFakeKexec);
    ASSERT_EQ(testing::run_command("chmod +x " + dir_.path() + "/bin/kexec").status, 0);
    const std::string base = "console=ttyS0 panic=-1 intel_iommu=on";
    dir_.write("default-cmdline", base);
    dir_.write("vmlinuz", "not a kernel: the fake kexec only reads its command line");
    const std::string kernel = dir_.path() + "/vmlinuz";
    dir_.write("list.txt", "c0 kernel=" + kernel + " append=\"" + base +
                               "\"\n"
                               "c1 kernel=" +
                               kernel + " append=\"" + base + " quiet\"\n" + "c2 kernel=" + kernel +
                               " append=\"" + base + " kdrift.test.panic\"\n" +
                               "c3 kernel=" + kernel + " append=\"" + base + " nowatchdog\"\n" +
                               "c4 kernel=" + kernel + " append=\"" + base + " iommu.strict=1\"\n" +
                               "c5 kernel=" + kernel + " append=\"" + base +
                               " iommu.strict=1 quiet\"\n");
    // The machine's first boot: the firmware's default.
    ASSERT_EQ(testing::run_command("cd " + dir_.path() +
                                   " && mkdir root && tar xzf intel-lazy.tar.gz -C root"
                                   " && cp default-cmdline root/proc/cmdline"
                                   " && cat /proc/sys/kernel/random/uuid >"
                                   " root/proc/sys/kernel/random/boot_id")
                  .status,
              0);
  }
  testing::CommandRun machine(const std::string& command) {
    return testing::run_command("env KDRIFT_FAKE_MACHINE=" + dir_.path() + " PATH=" + dir_.path() +
                                "/bin:/usr/bin:/bin " + command);
  }
  testing::CommandRun bisect(const std::string& arguments) {
    return machine(testing::kdrift_binary() + " bisect --state-dir " + dir_.path() + "/state " +
                   arguments);
  }
  std::string step() { return "step --root " + dir_.path() + "/root"; }
  Json report() {
    const auto run = bisect("report --format json");
    EXPECT_EQ(run.status, 0) << run.out;
    return Json::parse(run.out.substr(run.out.find('{')));
  }
  TempDir dir_;
};

TEST_F(BisectStep, FunctionalBisectKexecsThroughTheCandidatesAndSkipsThePanic) {
  const auto started = bisect("start --good c0 --bad c5 --predicate iommu.strict --candidates " +
                              dir_.path() + "/list.txt");
  ASSERT_EQ(started.status, 0) << started.out;
  EXPECT_NE(started.out.find("kdrift bisect step measures it"), std::string::npos) << started.out;
  int boots = 0;
  testing::CommandRun last;
  for (; boots < 20; ++boots) {
    last = bisect(step());
    if (last.status != 137) break;  // killed by the jump: the next boot runs step again
  }
  ASSERT_EQ(last.status, 0) << last.out;
  EXPECT_NE(last.out.find("first bad: c4"), std::string::npos) << last.out;
  const Json result = report();
  EXPECT_EQ(result["state"], "done");
  EXPECT_EQ(result["first_bad"], "c4");
  EXPECT_EQ(result["mode"], "kexec");
  EXPECT_EQ(result["metric"], "finding:iommu.strict");
  bool panic_skipped = false;
  for (const Json& step : result["steps"]) {
    if (step["candidate"] == "c2") {
      panic_skipped = step["crashes"] == 2 && step["verdict"].get<std::string>().find("skip") == 0;
    }
    if (step["candidate"] == "c4") {
      ASSERT_TRUE(step.contains("evidence")) << step.dump();
      EXPECT_NE(step["evidence"].dump().find("iommu.strict"), std::string::npos);
    }
  }
  EXPECT_TRUE(panic_skipped) << result.dump(2);
  // Endpoints (2) + c2 twice + c3 + c4, each a kexec; nothing measured twice.
  EXPECT_LE(boots, 7);
  const auto log = bisect("log");
  EXPECT_NE(log.out.find("\"event\":\"crash\""), std::string::npos);
}

TEST_F(BisectStep, InstallWritesTheUnitForThisStateDirAndResetRemovesIt) {
  ASSERT_EQ(bisect("start --good c0 --bad c5 --predicate iommu.strict --candidates " + dir_.path() +
                   "/list.txt")
                .status,
            0);
  const std::string units = dir_.path() + "/units";
  const auto installed = bisect("install --unit-dir " + units);
  ASSERT_EQ(installed.status, 0) << installed.out;
  std::ifstream in(units + "/kdrift-bisect.service");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find(" bisect --state-dir " + dir_.path() + "/state step"), std::string::npos)
      << text;
  EXPECT_NE(text.find("ConditionPathExists=" + dir_.path() + "/state/journal.jsonl"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("@KDRIFT@"), std::string::npos);
  EXPECT_EQ(
      testing::run_command("test -L " + units + "/multi-user.target.wants/kdrift-bisect.service")
          .status,
      0);
  ASSERT_EQ(bisect("reset --unit-dir " + units).status, 0);
  EXPECT_NE(testing::run_command("test -e " + units + "/kdrift-bisect.service").status, 0);
  EXPECT_NE(
      testing::run_command("test -e " + units + "/multi-user.target.wants/kdrift-bisect.service")
          .status,
      0);
}

TEST_F(BisectStep, DryRunPrintsTheKexecAndRecordsNothing) {
  ASSERT_EQ(bisect("start --good c0 --bad c5 --predicate iommu.strict --candidates " + dir_.path() +
                   "/list.txt")
                .status,
            0);
  const auto dry = bisect(step() + " --dry-run");
  ASSERT_EQ(dry.status, 0) << dry.out;
  EXPECT_NE(dry.out.find("kexec_file_load: kernel " + dir_.path() + "/vmlinuz (fd "),
            std::string::npos)
      << dry.out;
  EXPECT_NE(dry.out.find("iommu.strict=1 quiet kdrift.bisect="), std::string::npos) << dry.out;
  const auto log = bisect("log");
  EXPECT_EQ(log.out.find("\"event\":\"attempt\""), std::string::npos) << log.out;
}

TEST_F(BisectStep, FallsBackToTheLegacyLoadOnTheCheckedDescriptor) {
  ASSERT_EQ(bisect("start --good c0 --bad c5 --predicate iommu.strict --candidates " + dir_.path() +
                   "/list.txt")
                .status,
            0);
  const auto stepped = bisect(step());
  EXPECT_EQ(stepped.status, 137) << stepped.out;
  // The kernel refuses the fake image; the legacy load reads it through /proc/self/fd.
  EXPECT_NE(stepped.out.find("kexec_file_load failed: "), std::string::npos) << stepped.out;
  std::ifstream in(dir_.path() + "/kexec.log");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("kexec -l /proc/self/fd/"), std::string::npos) << text;
  EXPECT_NE(text.find("kexec -e"), std::string::npos) << text;
  EXPECT_EQ(testing::read_bytes(dir_.path() + "/loaded-image"),
            "not a kernel: the fake kexec only reads its command line");
}

TEST_F(BisectStep, NoKexecOnTheMachineRecordsNothing) {
  ASSERT_EQ(bisect("start --good c0 --bad c5 --predicate iommu.strict --candidates " + dir_.path() +
                   "/list.txt")
                .status,
            0);
  ASSERT_EQ(testing::run_command("rm " + dir_.path() + "/bin/kexec").status, 0);
  const auto refused =
      testing::run_command("env PATH=" + dir_.path() + "/bin " + testing::kdrift_binary() +
                           " bisect --state-dir " + dir_.path() + "/state " + step());
  EXPECT_EQ(refused.status, 2) << refused.out;
  EXPECT_NE(refused.out.find("nothing recorded"), std::string::npos) << refused.out;
  EXPECT_EQ(bisect("log").out.find("\"event\":\"attempt\""), std::string::npos);
}

}  // namespace
}  // namespace kdrift

namespace kdrift {
namespace {

TEST(BisectCmdline, CandidatesApplyOneMoreParameterToTheRunningKernel) {
  testing::TempDir root;
  root.write("proc/sys/kernel/osrelease", "6.1.0-50-amd64\n");
  root.write("proc/cmdline", "BOOT_IMAGE=/boot/vmlinuz-6.1.0-50-amd64 root=/dev/vda1\n");
  root.write("boot/vmlinuz-6.1.0-50-amd64", "");
  root.write("boot/initrd.img-6.1.0-50-amd64", "");
  root.write("boot/vmlinuz-6.12.117+deb12-amd64", "");
  const std::string state = root.path() + "/state";
  // Manual: the candidates' /boot/vmlinuz-6.1.0-50-amd64 is this host's path, which holds no
  // such kernel, and a kexec bisect refuses at its start a kernel it could not load.
  const auto started = testing::run_kdrift(
      "bisect --state-dir " + state + " start --cmdline --kernels-from " + root.path() +
      " --good 'root=/dev/vda1 intel_iommu=on quiet' --bad 'root=/dev/vda1 intel_iommu=on "
      "iommu.strict=1 nowatchdog' --predicate iommu.strict --mode manual");
  ASSERT_EQ(started.status, 0) << started.out;
  const auto log = testing::run_kdrift("bisect --state-dir " + state + " log");
  const Json start = Json::parse(log.out.substr(0, log.out.find('\n')));
  std::vector<std::string> names;
  for (const Json& candidate : start["candidates"]) {
    names.push_back(candidate["name"]);
    EXPECT_EQ(candidate["kernel"], "/boot/vmlinuz-6.1.0-50-amd64");
    EXPECT_EQ(candidate["release"], "6.1.0-50-amd64");
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"good-cmdline", "+iommu.strict=1", "+nowatchdog", "-quiet"}));
  EXPECT_EQ(start["candidates"][2]["append"],
            "root=/dev/vda1 intel_iommu=on quiet iommu.strict=1 nowatchdog");
  EXPECT_EQ(start["good"], "good-cmdline");
  EXPECT_EQ(start["bad"], "-quiet");
  const auto same = testing::run_kdrift("bisect --state-dir " + root.path() +
                                        "/other start --cmdline --kernels-from " + root.path() +
                                        " --good 'a b' --bad 'a  b' --predicate iommu.strict");
  EXPECT_EQ(same.status, 2);
  EXPECT_NE(same.out.find("do not differ"), std::string::npos) << same.out;
}

}  // namespace
}  // namespace kdrift

namespace kdrift {
namespace {

// A performance bisect whose endpoints are the same device cannot be resolved: step takes the
// reference samples on a zram device (one boot a side, this one: the candidates name no
// release), then refuses with the numbers instead of bisecting noise. The budget leaves no boot
// for more references, which a drift not yet measured would otherwise ask for.
TEST(BisectMetric, EndpointsThatDoNotDifferAreRefusedWithTheNumbers) {
  REQUIRE_ROOT();
  std::string reason;
  auto zram = testing::ZramDevice::create("64M", &reason);
  if (!zram) GTEST_SKIP() << reason;
  testing::TempDir dir;
  dir.write("tiny.toml",
            "description = \"bisect test\"\nsize = \"32m\"\nramp = \"0s\"\nruntime = \"300ms\"\n"
            "[[workload]]\nname = \"r\"\nengines = [\"io_uring\"]\nrw = \"randread\"\n"
            "bs = \"4k\"\niodepth = [4]\n");
  dir.write("list.txt", "old\nmiddle\nnew\n");
  const std::string bisect = "bisect --state-dir " + dir.path() + "/state ";
  const auto started = testing::run_kdrift(
      bisect + "start --good old --bad new --candidates " + dir.path() +
      "/list.txt --metric probe:" + dir.path() +
      "/tiny.toml:io_uring:4:iops --reference-samples 6 --reference-boots 1 --max-boots 4 "
      "--target " +
      zram->path());
  ASSERT_EQ(started.status, 0) << started.out;
  const auto stepped = testing::run_kdrift(bisect + "step");
  EXPECT_EQ(stepped.status, 1) << stepped.out;  // refused
  const auto report = testing::run_kdrift(bisect + "report --format json", true);
  const Json result = Json::parse(report.out);
  EXPECT_EQ(result["state"], "refused") << result.dump(2);
  EXPECT_EQ(result["mode"], "manual");
  EXPECT_NE(result["why"].get<std::string>().find("CV"), std::string::npos) << result["why"];
  for (const Json& step : result["steps"])
    EXPECT_EQ(step["samples"], 6) << step.dump();
}

}  // namespace
}  // namespace kdrift
