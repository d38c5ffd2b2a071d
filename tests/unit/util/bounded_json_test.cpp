#include "util/bounded_json.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace kdrift {
namespace {

constexpr JsonLimits kLimits{.max_depth = 4, .max_values = 10};

std::string problem(std::string_view text) {
  auto parsed = parse_bounded_json(text, "in.json", kLimits);
  return parsed.ok() ? "parsed" : parsed.error().describe();
}

TEST(BoundedJson, ADocumentWithinTheLimitsIsParsed) {
  // Depth 4 and 10 values exactly: the limits are inclusive.
  auto parsed = parse_bounded_json(R"({"a": [1, {"b": [2, 3]}], "c": "x", "d": null, "e": true})",
                                   "in.json", kLimits);
  ASSERT_TRUE(parsed.ok()) << parsed.error().describe();
  EXPECT_EQ((*parsed)["a"][1]["b"][1], 3);
}

TEST(BoundedJson, OneLevelTooDeepIsRefusedNamingTheSource) {
  EXPECT_EQ(problem("[[[[0]]]]"), "parsed");
  EXPECT_EQ(problem("[[[[[0]]]]]"), "in.json: nested deeper than 4 levels");
  // Refused at the fifth '[', long before the end: a million levels cost nothing.
  EXPECT_EQ(problem(std::string(1000000, '[')), "in.json: nested deeper than 4 levels");
}

TEST(BoundedJson, OneValueTooManyIsRefused) {
  EXPECT_EQ(problem("[1,2,3,4,5,6,7,8,9]"), "parsed");
  EXPECT_EQ(problem("[1,2,3,4,5,6,7,8,9,10]"), "in.json: more than 10 values");
  // Empty containers are values too: the 20-million-empty-arrays bomb stops at the limit.
  EXPECT_EQ(problem("[[],[],[],[],[],[],[],[],[],[]]"), "in.json: more than 10 values");
  EXPECT_EQ(problem(R"({"a":{},"b":{},"c":{},"d":{},"e":{},"f":{},"g":{},"h":{},"i":{},"j":1})"),
            "in.json: more than 10 values");
}

TEST(BoundedJson, InvalidJsonSaysWhereWithoutThrowing) {
  EXPECT_NE(problem("{\"a\": ").find("in.json: not valid JSON ("), std::string::npos);
  EXPECT_NE(problem("[1] trailing").find("in.json: not valid JSON ("), std::string::npos);
  EXPECT_NE(problem("[1e999]").find("in.json: not valid JSON ("), std::string::npos);
  EXPECT_NE(problem("").find("in.json: not valid JSON ("), std::string::npos);
}

TEST(BoundedJson, AFilterBuildsOnlyTheMembersItAcceptsByPath) {
  std::vector<std::string> seen;
  const JsonMemberFilter keep = [&](std::span<const std::string> path) {
    std::string joined;
    for (const auto& step : path)
      joined += (joined.empty() ? "" : ".") + step;
    seen.push_back(joined);
    return path.back() != "trace" && path.front() != "irq";
  };
  auto parsed = parse_bounded_json(
      R"({"probe": {"jobs": [{"name": "a", "trace": {"x": 1}}]}, "irq": {"n": 2}, "k": [[{"z": 0}]]})",
      "in.json", {.max_depth = 8, .max_values = 100}, keep);
  ASSERT_TRUE(parsed.ok()) << parsed.error().describe();
  EXPECT_EQ(*parsed,
            nlohmann::json::parse(R"({"probe": {"jobs": [{"name": "a"}]}, "k": [[{"z": 0}]]})"));
  EXPECT_NE(std::find(seen.begin(), seen.end(), "probe.jobs.[].trace"), seen.end());
  EXPECT_NE(std::find(seen.begin(), seen.end(), "k.[].[].z"), seen.end());
}

TEST(BoundedJson, AFilteredParseHoldsTheLimitsForWhatItDropsToo) {
  const JsonMemberFilter keep_nothing = [](std::span<const std::string>) { return false; };
  const JsonMemberFilter keep_all = [](std::span<const std::string>) { return true; };
  const std::string many = R"({"a": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]})";
  for (const auto* keep : {&keep_nothing, &keep_all}) {
    auto parsed = parse_bounded_json(many, "in.json", kLimits, *keep);
    ASSERT_FALSE(parsed.ok());
    EXPECT_EQ(parsed.error().describe(), "in.json: more than 10 values");
  }
  auto deep = parse_bounded_json(R"({"a": [[[[0]]]]})", "in.json", kLimits, keep_nothing);
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.error().describe(), "in.json: nested deeper than 4 levels");
  auto broken = parse_bounded_json(R"({"a": [1, )", "in.json", kLimits, keep_all);
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.error().describe().rfind("in.json: not valid JSON (", 0), 0u);
  EXPECT_FALSE(parse_bounded_json("{\"a\": \"\xff\"}", "in.json", kLimits, keep_all).ok())
      << "invalid UTF-8 is refused as the whole parse refuses it";
}

// The filtered parse builds what the whole parse builds of the members it keeps: the same
// values, of the same types (a signed or unsigned integer, a double where one does not fit).
TEST(BoundedJson, AFilteredParseBuildsTheValuesTheWholeParseBuilds) {
  const JsonMemberFilter keep_all = [](std::span<const std::string>) { return true; };
  const JsonLimits limits{.max_depth = 8, .max_values = 100};
  for (const std::string text :
       {R"({"a": -1, "b": 1, "c": 1.5, "d": 18446744073709551616, "e": -9223372036854775809})",
        R"({"f": 1e2, "g": -0, "h": -0.0, "i": 18446744073709551615, "j": 4.9e-324, "k": 1E-400})",
        R"({"s": "tab\t \u00e9 \ud83d\ude00 \"q\" \\ \/ \u0000", "t": true, "n": null, "": []})",
        R"({"dup": 1, "dup": {"x": [1, {"y": 2}]}, "u": "\u2028"})", "\xEF\xBB\xBF{\"bom\": 1}",
        R"([1, "two", [3.0], {}])", R"("scalar")", "42", "-7", "null", "  true  "}) {
    auto whole = parse_bounded_json(text, "in.json", limits);
    auto filtered = parse_bounded_json(text, "in.json", limits, keep_all);
    ASSERT_TRUE(whole.ok()) << text << ": " << whole.error().describe();
    ASSERT_TRUE(filtered.ok()) << text << ": " << filtered.error().describe();
    EXPECT_EQ(filtered->dump(), whole->dump()) << text;
    std::vector<std::pair<const Json*, const Json*>> pending = {{&*filtered, &*whole}};
    while (!pending.empty()) {
      const auto [a, b] = pending.back();
      pending.pop_back();
      ASSERT_EQ(a->type(), b->type()) << text << ": " << b->dump();
      if (a->is_structured()) {
        for (auto i = a->begin(), j = b->begin(); i != a->end(); ++i, ++j)
          pending.emplace_back(&*i, &*j);
      }
    }
  }
}

// What the whole parse refuses, the filtered parse refuses too, wherever it is in the text: a
// part the filter drops is walked, not skipped.
TEST(BoundedJson, AFilteredParseRefusesBrokenStructureInWhatItDrops) {
  const JsonMemberFilter keep_a = [](std::span<const std::string> path) {
    return path.front() == "a";
  };
  const JsonLimits limits{.max_depth = 8, .max_values = 100};
  for (const char* text :
       {R"({"a": 1, "drop": [1 2]})", R"({"a": 1, "drop": [1, 2}})", R"({"a": 1, "drop": {"x" 1}})",
        R"({"a": 1, "drop": [1,,2]})", R"({"a": 1, "drop": "\q"})", R"({"a": 1, "drop": "\ud800"})",
        R"({"a": 1} x)", R"({"a": 1}})", R"({"a": 1)", "{\"a\": 1, \"drop\": \"\x01\"}", "",
        "{\"a\": 1, \"drop\": \"\xc3\x28\"}"}) {
    ASSERT_FALSE(parse_bounded_json(text, "in.json", limits).ok()) << text;
    auto filtered = parse_bounded_json(text, "in.json", limits, keep_a);
    ASSERT_FALSE(filtered.ok()) << text << " gave " << filtered->dump();
    EXPECT_EQ(filtered.error().describe().rfind("in.json: not valid JSON (", 0), 0u)
        << filtered.error().describe();
  }
}

}  // namespace
}  // namespace kdrift
