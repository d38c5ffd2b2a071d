#include "collect/sos_commands.h"

#include <gtest/gtest.h>

#include "collect/kernel_log.h"

namespace kdrift {
namespace {

using namespace std::string_literals;

constexpr size_t kNoLimit = size_t{1} << 20;

TEST(SosDmesg, TimestampsBecomeMicrosecondsAndSequenceCounts) {
  const auto records = kmsg_records_from_dmesg(
      "[    0.000000] Linux version 6.18.44-fc-v1045 (builder@sandboxing)\n"
      "[    5.140900] nvme nvme0: 2/0/2 default/read/poll queues\n"
      "[12345.000001] message; with a semicolon\n",
      kNoLimit);
  EXPECT_EQ(records,
            "6,0,0,-;Linux version 6.18.44-fc-v1045 (builder@sandboxing)\n"
            "6,1,5140900,-;nvme nvme0: 2/0/2 default/read/poll queues\n"
            "6,2,12345000001,-;message; with a semicolon\n");
  EXPECT_EQ(kernel_log_messages(records),
            (std::vector<std::string>{"Linux version 6.18.44-fc-v1045 (builder@sandboxing)",
                                      "nvme nvme0: 2/0/2 default/read/poll queues",
                                      "message; with a semicolon"}));
}

TEST(SosDmesg, RawLevelsAreKeptAndLinesWithoutTimestampKeepThePreviousOne) {
  // dmesg -r prints "<level>"; a message's second line carries no timestamp; a message that
  // itself starts with brackets or angle brackets is not mistaken for either.
  const auto records = kmsg_records_from_dmesg(
      "<4>[    1.500000] [Firmware Bug]: TSC doesn't count\n"
      "  second line of it\n"
      "[Firmware Bug]: no timestamp at all\n"
      "<3> not a level without a timestamp\n"
      "[    2.5] short fraction\n"
      "[    3.123456789] nanoseconds cut\n",
      kNoLimit);
  EXPECT_EQ(records,
            "4,0,1500000,-;[Firmware Bug]: TSC doesn't count\n"
            "6,1,1500000,-;  second line of it\n"
            "6,2,1500000,-;[Firmware Bug]: no timestamp at all\n"
            "6,3,1500000,-;<3> not a level without a timestamp\n"
            "6,4,2500000,-;short fraction\n"
            "6,5,3123456,-;nanoseconds cut\n");
}

TEST(SosDmesg, HostileBytesAreEscapedAsTheKernelDoes) {
  const auto records = kmsg_records_from_dmesg(
      "[    1.000000] \x1b]0;pwned\x07 caf\xc3\xa9\r\n[    2.000000] a\0b\n"s, kNoLimit);
  EXPECT_EQ(records,
            "6,0,1000000,-;\\x1b]0;pwned\\x07 caf\\xc3\\xa9\\x0d\n"
            "6,1,2000000,-;a\\x00b\n");
  for (const char c : records) {
    EXPECT_TRUE(c == '\n' || (c >= ' ' && c < 0x7f)) << static_cast<int>(c);
  }
}

TEST(SosDmesg, MalformedTimestampsAreMessageText) {
  const auto records = kmsg_records_from_dmesg(
      "[99999999999.000000] eleven digits of seconds\n"
      "[ 0x10.000000] hex\n"
      "[ -1.000000] negative\n"
      "[ 1.0000000000] ten fraction digits\n"
      "[ 1.] no fraction\n"
      "[1.5 unclosed\n"
      "<999>[ 1.000000] level out of range\n",
      kNoLimit);
  const auto messages = kernel_log_messages(records);
  ASSERT_EQ(messages.size(), 7U);
  EXPECT_EQ(messages[0], "[99999999999.000000] eleven digits of seconds");
  EXPECT_EQ(messages[6], "<999>[ 1.000000] level out of range");
  EXPECT_EQ(records.substr(0, 8), "6,0,0,-;");
}

TEST(SosDmesg, OutputStopsAtTheLimitOnARecordBoundary) {
  std::string dmesg;
  for (int i = 0; i < 1000; ++i)
    dmesg += "[    1.000000] a line of the kernel log\n";
  const auto records = kmsg_records_from_dmesg(dmesg, 1000);
  EXPECT_LE(records.size(), 1000U);
  EXPECT_GT(records.size(), 900U);
  EXPECT_EQ(records.back(), '\n');
  EXPECT_EQ(kernel_log_messages(records).front(), "a line of the kernel log");
  EXPECT_TRUE(kmsg_records_from_dmesg("", kNoLimit).empty());
  EXPECT_TRUE(kmsg_records_from_dmesg("\n\n\n", kNoLimit).empty());
}

TEST(SosSysctl, KeysBecomeProcSysFiles) {
  const auto files = proc_sys_files_from_sysctl(
      "kernel.osrelease = 6.18.44-fc-v1045\n"
      "kernel.printk = 4\t4\t1\t7\n"
      "net.ipv4.conf.eth0/1.rp_filter = 2\n"
      "kernel.domainname = \n"
      "dev.cdrom.info = CD-ROM information, Id: cdrom.c 3.20 2003/12/17\n"
      "dev.cdrom.info = \n"
      "dev.cdrom.info = drive name:\n"
      "sysctl: permission denied on key 'fs.protected_fifos'\n"
      "sysctl: reading key \"net.ipv6.conf.all.stable_secret\"\n"
      "vm.a = b = c\n",
      100);
  EXPECT_EQ(files.at("/proc/sys/kernel/osrelease"), "6.18.44-fc-v1045\n");
  EXPECT_EQ(files.at("/proc/sys/kernel/printk"), "4\t4\t1\t7\n");
  EXPECT_EQ(files.at("/proc/sys/net/ipv4/conf/eth0.1/rp_filter"), "2\n");
  EXPECT_EQ(files.at("/proc/sys/kernel/domainname"), "\n");
  EXPECT_EQ(files.at("/proc/sys/dev/cdrom/info"),
            "CD-ROM information, Id: cdrom.c 3.20 2003/12/17\n\ndrive name:\n");
  EXPECT_EQ(files.at("/proc/sys/vm/a"), "b = c\n");
  EXPECT_EQ(files.size(), 6U);
}

TEST(SosSysctl, KeysNamingNoPlainPathAreLeftOut) {
  const auto files = proc_sys_files_from_sysctl(
      "kernel..x = 1\n"
      ".kernel = 1\n"
      "kernel. = 1\n"
      "net./.x = 1\n"
      "net.//.x = 1\n"
      "a b = 1\n"
      "k\x1b[2J = 1\n"
      " = 1\n"
      "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q = 1\n"
      "ok.key = 1\n",
      100);
  ASSERT_EQ(files.size(), 1U);
  EXPECT_EQ(files.begin()->first, "/proc/sys/ok/key");
}

TEST(SosSysctl, AtMostMaxKeysButRepeatsStillJoin) {
  const auto files = proc_sys_files_from_sysctl("a.b = 1\nc.d = 2\ne.f = 3\na.b = 4\n", 2);
  EXPECT_EQ(files.size(), 2U);
  EXPECT_EQ(files.at("/proc/sys/a/b"), "1\n4\n");
  EXPECT_EQ(files.count("/proc/sys/e/f"), 0U);
}

TEST(SosUname, ReleaseIsTheThirdField) {
  EXPECT_EQ(
      release_from_uname("Linux vm 6.18.44-fc-v1045 #1 SMP PREEMPT_DYNAMIC @0 x86_64 GNU/Linux\n"),
      "6.18.44-fc-v1045");
  EXPECT_EQ(release_from_uname("Linux h 5.14.0-427.el9.x86_64+debug #1 SMP\n"),
            "5.14.0-427.el9.x86_64+debug");
  EXPECT_FALSE(release_from_uname(""));
  EXPECT_FALSE(release_from_uname("FreeBSD h 14.0-RELEASE\n"));
  EXPECT_FALSE(release_from_uname("Linux h\n"));
  EXPECT_FALSE(release_from_uname("Linux h 6.1\x1b[2J\n"));
  EXPECT_FALSE(release_from_uname("Linux h " + std::string(65, '1') + "\n"));
}

}  // namespace
}  // namespace kdrift
