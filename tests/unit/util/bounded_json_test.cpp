#include "util/bounded_json.h"

#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace kdrift
