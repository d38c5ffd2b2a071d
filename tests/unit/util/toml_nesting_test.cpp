#include "util/toml_nesting.h"

#include <gtest/gtest.h>

#include <string>

namespace kdrift {
namespace {

// Depth allowed in every case below: 3.
std::string scan(const std::string& text) {
  auto status = check_toml_nesting(text, "x.toml", 3);
  return status.ok() ? "ok" : status.error().describe();
}

std::string repeated(const std::string& part, size_t count) {
  std::string out;
  for (size_t i = 0; i < count; ++i)
    out += part;
  return out;
}

TEST(TomlNesting, DottedKeysCountOnePerPart) {
  EXPECT_EQ(scan("a.b.c = 1\n"), "ok");
  EXPECT_EQ(scan("a.b.c.d = 1\n"), "x.toml:1: nested deeper than 3 levels");
  EXPECT_EQ(scan("a . \"b.x\" . 'c.y' = 1\n"), "ok");  // dots inside quoted parts are not parts
}

TEST(TomlNesting, TableHeadersSetTheDepthOfTheirKeys) {
  EXPECT_EQ(scan("[a.b]\nc = 1\n"), "ok");
  EXPECT_EQ(scan("[a.b]\nc.d = 1\n"), "x.toml:2: nested deeper than 3 levels");
  EXPECT_EQ(scan("[a.b.c.d]\n"), "x.toml:1: nested deeper than 3 levels");
  // An array of tables is one level more: a, its array, the element table.
  EXPECT_EQ(scan("[[a.b]]\nc = 1\n"), "x.toml:2: nested deeper than 3 levels");
  EXPECT_EQ(scan("[[a]]\nc = 1\n[b]\nc = 1\n"), "ok");  // a new header starts again
}

TEST(TomlNesting, ArraysAndInlineTablesNest) {
  EXPECT_EQ(scan("a = [[1, 2], [3]]\n"), "ok");
  EXPECT_EQ(scan("a = [[[1]]]\n"), "x.toml:1: nested deeper than 3 levels");
  EXPECT_EQ(scan("a = { b = { c = 1 } }\n"), "ok");
  EXPECT_EQ(scan("a = { b = { c = { d = 1 } } }\n"), "x.toml:1: nested deeper than 3 levels");
  EXPECT_EQ(scan("a = { b.c.d = 1 }\n"), "x.toml:1: nested deeper than 3 levels");
  EXPECT_EQ(scan("a = [\n  1,\n  [\n    [2],\n  ],\n]\n"), "x.toml:4: nested deeper than 3 levels");
}

TEST(TomlNesting, BracketsInStringsAndCommentsCountForNothing) {
  EXPECT_EQ(scan("a = \"[[[[{{{{\"\nb = '[[[[' # [[[[[[\n"), "ok");
  EXPECT_EQ(scan("a = \"\\\"[[[[\" # an escaped quote does not end the string\n"), "ok");
  EXPECT_EQ(scan("a = \"\"\"\n[[[[\n\\\"\"\"[[[[\n\"\"\"\nb = '''\n[[[[\n'''\n"), "ok");
  EXPECT_EQ(scan("a = '''x''''' # two quotes of content before the closing three\nb = [[[1]]]\n"),
            "x.toml:2: nested deeper than 3 levels");
  EXPECT_EQ(scan("# [[[[[\n[a] # [[[[\nb = [ # [[[[\n  1 ]\n"), "ok");
  EXPECT_EQ(scan("\"a.b.c.d\" = 1\n"), "ok");
}

TEST(TomlNesting, DatesAndNumbersAreScalars) {
  EXPECT_EQ(scan("a = [1979-05-27 07:32:00Z, 1.5e3, inf, true]\nb = { c = -0x1f }\n"), "ok");
}

TEST(TomlNesting, TheHostileDocumentsAreRefusedWithoutRecursingThroughThem) {
  const size_t depth = 200000;
  EXPECT_EQ(scan("a = " + repeated("{ b = ", depth) + "1" + repeated(" }", depth) + "\n"),
            "x.toml:1: nested deeper than 3 levels");
  EXPECT_EQ(scan("a = " + repeated("[", depth) + repeated("]", depth) + "\n"),
            "x.toml:1: nested deeper than 3 levels");
  EXPECT_EQ(scan("a" + repeated(".a", depth) + " = 1\n"), "x.toml:1: nested deeper than 3 levels");
  EXPECT_EQ(scan("[a" + repeated(".a", depth) + "]\n"), "x.toml:1: nested deeper than 3 levels");
}

TEST(TomlNesting, TextThatIsNotTomlIsLeftToTheParser) {
  EXPECT_EQ(scan("a = [1, }\nb = [[[[[1]]]]]\n"), "ok");  // the parser stops at '}' first
  EXPECT_EQ(scan("= 1\n"), "ok");
  EXPECT_EQ(scan("a = \"unterminated\n"), "ok");
  EXPECT_EQ(scan("a = [1,\n"), "ok");
  EXPECT_EQ(scan(""), "ok");
}

}  // namespace
}  // namespace kdrift
