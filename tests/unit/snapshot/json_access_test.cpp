#include "snapshot/json_access.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace kdrift {
namespace {

const Json kDocument = Json::parse(R"({
  "probe": {"alpha": 0.01, "jobs": [{"name": "a"}], "name": "quick", "target": "not an object"},
  "counts": {"whole": 7, "negative": -3, "fraction": 2.75, "huge": 1e50, "text": "7"}
})");

TEST(JsonAccess, AtWalksObjectKeysAndStopsAtAnythingElse) {
  ASSERT_NE(at(kDocument, {"probe", "alpha"}), nullptr);
  EXPECT_EQ(*at(kDocument, {"probe", "alpha"}), 0.01);
  EXPECT_EQ(at(kDocument, {"probe", "missing"}), nullptr);
  EXPECT_EQ(at(kDocument, {"probe", "target", "path"}), nullptr);
  EXPECT_EQ(at(kDocument, {}), &kDocument);
}

TEST(JsonAccess, KindedReadsAtAPathReadAnotherKindAsAbsent) {
  EXPECT_NE(object_at(kDocument, {"probe"}), nullptr);
  EXPECT_EQ(object_at(kDocument, {"probe", "target"}), nullptr);
  EXPECT_EQ(array_at(kDocument, {"probe", "jobs"}).size(), 1U);
  EXPECT_TRUE(array_at(kDocument, {"probe", "name"}).empty());
  EXPECT_TRUE(array_at(kDocument, {"nothing", "here"}).is_array());
  EXPECT_EQ(string_at(kDocument, {"probe", "name"}), "quick");
  EXPECT_EQ(string_at(kDocument, {"probe", "alpha"}), std::nullopt);
  EXPECT_EQ(number_at(kDocument, {"probe", "alpha"}), 0.01);
  EXPECT_EQ(number_at(kDocument, {"probe", "name"}), std::nullopt);
}

TEST(JsonAccess, NumberAtReadsANonFiniteNumberAsAbsent) {
  const Json built = {{"ratio", std::numeric_limits<double>::infinity()}, {"nan", std::nan("")}};
  EXPECT_EQ(number_at(built, {"ratio"}), std::nullopt);
  EXPECT_EQ(number_at(built, {"nan"}), std::nullopt);
}

TEST(JsonAccess, CountsAreWholeAndWithinRange) {
  const Json& counts = kDocument["counts"];
  EXPECT_EQ(count_member(counts, "whole"), 7U);
  EXPECT_EQ(count_member(counts, "fraction"), 2U);
  EXPECT_EQ(count_member(counts, "negative"), std::nullopt);
  EXPECT_EQ(count_member(counts, "huge"), std::nullopt);
  EXPECT_EQ(count_member(counts, "text"), std::nullopt);
  EXPECT_EQ(count_at(kDocument, {"counts", "whole"}), 7U);
  EXPECT_EQ(count_at(kDocument, {"counts", "missing"}), std::nullopt);
  const Json largest = {{"n", std::numeric_limits<uint64_t>::max()}};
  EXPECT_EQ(count_member(largest, "n"), std::numeric_limits<uint64_t>::max());
}

}  // namespace
}  // namespace kdrift
