#include "report/man_page.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

CommandSpec diff_command() {
  CommandSpec diff;
  diff.path = {"diff"};
  diff.description = "Compare snapshots";
  OptionSpec format;
  format.names = {"--format"};
  format.value_name = "TEXT";
  format.description = "text (default) or json";
  format.choices = {"text", "json"};
  format.completion = ValueCompletion::kChoices;
  OptionSpec output;
  output.names = {"-o", "--output"};
  output.value_name = "FILE";
  output.description = "Write the report to FILE";
  OptionSpec sides;
  sides.value_name = "A";
  sides.description = "Snapshots";
  sides.required = true;
  sides.repeatable = true;
  diff.options = {format, output, sides};
  return diff;
}

ManSections sections() {
  ManSections out;
  out.summary = "compare snapshots";
  out.description = "First paragraph\ncontinues here.\n\n- one item\n- two\n\nAfter the list.";
  out.examples = {{"kdrift diff a.json b.json", "Two boots."}};
  out.see_also = {"kdrift-check(1)", "fio(1)"};
  return out;
}

TEST(ManPage, SynopsisAndOptionsComeFromTheCommandLine) {
  const std::string page = render_man_page(diff_command(), sections(), "0.2.0", "2026-12-02");
  EXPECT_NE(page.find(".TH KDRIFT\\-DIFF 1 \"2026\\-12\\-02\" \"kdrift 0.2.0\""), std::string::npos)
      << page;
  EXPECT_NE(page.find("kdrift\\-diff \\- compare snapshots\n"), std::string::npos) << page;
  EXPECT_NE(page.find("\\fBkdrift diff\\fR [\\fIOPTIONS\\fR] \\fIA\\fR...\n"), std::string::npos)
      << page;
  EXPECT_NE(page.find("\\fB\\-o\\fR, \\fB\\-\\-output\\fR \\fIFILE\\fR\n"), std::string::npos)
      << page;
  EXPECT_NE(page.find("One of: text, json."), std::string::npos) << page;
  EXPECT_NE(page.find(".SH \"EXIT STATUS\"\n0: nothing at warning"), std::string::npos) << page;
  // A subcommand's page points back at the program's.
  EXPECT_NE(page.find(".BR kdrift (1),\n.BR kdrift\\-check (1),\n.BR fio (1)\n"), std::string::npos)
      << page;
}

TEST(ManPage, ProseBecomesParagraphsAndListItems) {
  const std::string page = render_man_page(diff_command(), sections(), "0.2.0", "2026-12-02");
  EXPECT_NE(page.find(".SH DESCRIPTION\nFirst paragraph continues here.\n.PP\n.IP \\(bu 2\none "
                      "item\n.IP \\(bu 2\ntwo\n.PP\nAfter the list.\n"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find(".SH EXAMPLES\n.PP\nTwo boots.\n.PP\n.RS 4\n.nf\nkdrift diff a.json "
                      "b.json\n.fi\n.RE\n"),
            std::string::npos)
      << page;
}

TEST(ManPage, TextCannotIssueRoffRequestsOrEscapes) {
  EXPECT_EQ(roff_escape(".so /etc/shadow"), "\\&.so /etc/shadow");
  EXPECT_EQ(roff_escape("a\n'br"), "a\n\\&'br");
  EXPECT_EQ(roff_escape("\\fB bold \\(em"), "\\efB bold \\e(em");
  EXPECT_EQ(roff_escape("--rounds"), "\\-\\-rounds");
  EXPECT_EQ(roff_escape("\x1b]0;x\x07"), "]0;x");
  EXPECT_EQ(roff_escape("5 \xc2\xb5s \xe2\x80\x94 x"), "5 \\[u00B5]s \\[u2014] x");
  EXPECT_EQ(roff_escape("bad \xff\xc2"), "bad \\[uFFFD]\\[uFFFD]");
  EXPECT_EQ(roff_escape("\xf0\x9f\x92\xbe"), "\\[u1F4BE]");
}

TEST(ManPage, SubcommandsOfAPageAreItsSections) {
  CommandSpec bisect;
  bisect.path = {"bisect"};
  bisect.description = "Bisect";
  CommandSpec start;
  start.path = {"bisect", "start"};
  start.description = "Start one";
  start.options = diff_command().options;
  bisect.subcommands = {start};
  const std::string page = render_man_page(bisect, sections(), "1", "2026-01-01");
  EXPECT_NE(page.find(".SS \"kdrift bisect start\"\n\\fBkdrift bisect start\\fR"),
            std::string::npos)
      << page;
  CommandSpec program;
  program.subcommands = {bisect};
  const std::string top = render_man_page(program, sections(), "1", "2026-01-01");
  EXPECT_NE(top.find(".SH COMMANDS\n.TP\n\\fBkdrift\\-bisect\\fR(1)\nBisect\n"), std::string::npos)
      << top;
  EXPECT_EQ(top.find(".BR kdrift (1)"), std::string::npos) << top;
  EXPECT_EQ(page_name(program), "kdrift");
  EXPECT_EQ(page_name(start), "kdrift-bisect");
}

TEST(ManSections, ParsedFromTomlWithEveryErrorNamingTheFile) {
  const auto parsed = parse_man_sections(R"toml(summary = "s"
description = """d"""
see_also = ["kdrift-check(1)"]
[[examples]]
command = "kdrift check x.json"
explanation = "e"
[[files]]
path = "/var/lib/kdrift"
what = "state"
)toml",
                                         "kdrift-x.toml");
  ASSERT_TRUE(parsed) << parsed.error().describe();
  EXPECT_EQ(parsed->summary, "s");
  ASSERT_EQ(parsed->examples.size(), 1U);
  EXPECT_EQ(parsed->examples[0].command, "kdrift check x.json");
  ASSERT_EQ(parsed->files.size(), 1U);
  EXPECT_EQ(parsed->files[0].first, "/var/lib/kdrift");
  EXPECT_EQ(parsed->see_also, std::vector<std::string>{"kdrift-check(1)"});

  for (const char* bad : {"description = \"d\"", "summary = 1\ndescription = \"d\"",
                          "summary = \"s\"\ndescription = \"d\"\nextra = 1",
                          "summary = \"s\"\ndescription = \"d\"\n[[examples]]\ncommand = \"c\"",
                          "summary = \"s\"\ndescription = \"d\"\nexamples = 3", "summary = "}) {
    const auto refused = parse_man_sections(bad, "kdrift-x.toml");
    ASSERT_FALSE(refused) << bad;
    EXPECT_NE(refused.error().describe().find("kdrift-x.toml"), std::string::npos)
        << refused.error().describe();
  }
}

}  // namespace
}  // namespace kdrift
