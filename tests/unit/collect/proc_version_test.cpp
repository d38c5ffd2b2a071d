#include "collect/proc_version.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

TEST(ProcVersion, NestedCompilerParentheses) {
  const auto parsed = parse_proc_version(
      "Linux version 6.1.0-13-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian "
      "12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian "
      "6.1.55-1 (2023-09-29)\n");
  ASSERT_TRUE(parsed) << parsed.error().describe();
  EXPECT_EQ(parsed->release, "6.1.0-13-amd64");
  EXPECT_EQ(parsed->version, "#1 SMP PREEMPT_DYNAMIC Debian 6.1.55-1 (2023-09-29)");
}

TEST(ProcVersion, OldKernelWithASpaceBeforeTheClosingParenthesis) {
  const auto parsed = parse_proc_version(
      "Linux version 2.6.32-5-amd64 (Debian 2.6.32-48squeeze6) (jmm@debian.org) (gcc version "
      "4.3.5 (Debian 4.3.5-4) ) #1 SMP Tue May 13 16:34:35 UTC 2014");
  ASSERT_TRUE(parsed) << parsed.error().describe();
  EXPECT_EQ(parsed->release, "2.6.32-5-amd64");
  EXPECT_EQ(parsed->version, "#1 SMP Tue May 13 16:34:35 UTC 2014");
}

TEST(ProcVersion, RefusesOtherText) {
  for (const std::string text : {"", "Linux version", "Linux version 6.1 (a (b) #1", "FreeBSD 14.0",
                                 "Linux version 6.1 x"}) {
    const auto parsed = parse_proc_version(text);
    ASSERT_FALSE(parsed) << text;
    EXPECT_NE(parsed.error().context.find("/proc/version"), std::string::npos);
  }
}

}  // namespace
}  // namespace kdrift
