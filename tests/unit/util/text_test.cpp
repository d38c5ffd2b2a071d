#include "util/text.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

TEST(Text, LargestCountsListsTheLargestFirstUpToTheLimit) {
  EXPECT_EQ(largest_counts({{3, "SND"}, {5, "NET"}, {1, "AD"}}, 2), "NET 5, SND 3");
  // A tie puts the name that sorts last first; a count prints whole.
  EXPECT_EQ(largest_counts({{2, "A"}, {2, "B"}, {7.4, "C"}}, 8), "C 7, B 2, A 2");
  EXPECT_EQ(largest_counts({}, 8), "");
  EXPECT_EQ(largest_counts({{1, "X"}}, 0), "");
}

TEST(Text, ParseIntIsStrict) {
  EXPECT_EQ(parse_int("42"), 42);
  EXPECT_EQ(parse_int(" -1\n"), -1);
  EXPECT_EQ(parse_int("0x10"), 16);
  EXPECT_EQ(parse_int("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(parse_int("-9223372036854775808"), INT64_MIN);
  EXPECT_FALSE(parse_int("9223372036854775808"));
  EXPECT_FALSE(parse_int("12abc"));
  EXPECT_FALSE(parse_int(""));
  EXPECT_FALSE(parse_int("-"));
  EXPECT_FALSE(parse_uint("-3"));
}

TEST(Text, CpuList) {
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cpu_list("\n"), std::vector<int>{});
  EXPECT_FALSE(parse_cpu_list("3-1"));
  EXPECT_FALSE(parse_cpu_list("0-99999999999"));
  EXPECT_FALSE(parse_cpu_list("a"));
}

TEST(Text, SplitAndFields) {
  EXPECT_EQ(split_whitespace("  a \tb  c\n"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(split_lines("x\ny\n"), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(find_colon_field("Name:\tbash\nSeccomp:\t2\n", "Seccomp"), "2");
  EXPECT_FALSE(find_colon_field("Name: bash\n", "Seccomp"));
}

TEST(Text, TerminalSafeEscapesEveryControlAndInvalidByteAndKeepsText) {
  EXPECT_EQ(terminal_safe("\x1b]0;pwned\x07\x1b[2J"), "\\x1b]0;pwned\\x07\\x1b[2J");
  EXPECT_EQ(terminal_safe("a\nb\tc\rd\x7f"), "a\\x0ab\\x09c\\x0dd\\x7f");
  EXPECT_EQ(terminal_safe(std::string_view("\0x", 2)), "\\x00x");
  // C1 controls as code points (U+009B is CSI) and as bare bytes (invalid UTF-8).
  EXPECT_EQ(terminal_safe("\xc2\x9b"
                          "2J \x9b"),
            "\\xc2\\x9b2J \\x9b");
  EXPECT_EQ(terminal_safe("\xc2\xa0"), "\xc2\xa0") << "U+00A0 is not a control";
  EXPECT_EQ(terminal_safe("µs → ms, 日本, 🙂"), "µs → ms, 日本, 🙂");
  // Overlong, surrogate, beyond U+10FFFF, cut short, stray continuation.
  EXPECT_EQ(terminal_safe("\xc0\xaf"), "\\xc0\\xaf");
  EXPECT_EQ(terminal_safe("\xed\xa0\x80"), "\\xed\\xa0\\x80");
  EXPECT_EQ(terminal_safe("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");
  EXPECT_EQ(terminal_safe("\xe2\x82"), "\\xe2\\x82");
  EXPECT_EQ(terminal_safe("\x80"
                          "a"),
            "\\x80a");
  EXPECT_EQ(terminal_safe("plain text / 4k qd16"), "plain text / 4k qd16");
  const std::string once = terminal_safe("\x1b[31m\n");
  EXPECT_EQ(terminal_safe(once), once) << "applying it twice changes nothing";
}

}  // namespace
}  // namespace kdrift
