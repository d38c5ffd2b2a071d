#include "iobench/fio_json_locate.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "support/fixtures.h"

namespace kdrift {
namespace {

constexpr JsonLimits kLimits{.max_depth = 32, .max_values = 1'000'000};

TEST(FioJsonLocate, BareDocument) {
  auto located =
      locate_fio_json(testing::fio_fixture("fio-3.33-json-randrw-psync.json"), "x", kLimits);
  ASSERT_TRUE(located.ok()) << located.error().describe();
  EXPECT_FALSE(located->surrounded_by_text);
  EXPECT_EQ(located->document["jobs"][0]["jobname"], "randrw");
}

// fio 3.33 --output-format=json,normal: the header, the document, then the normal report.
TEST(FioJsonLocate, DocumentFollowedByNormalText) {
  auto located =
      locate_fio_json(testing::fio_fixture("fio-3.33-json-normal-write-psync.txt"), "x", kLimits);
  ASSERT_TRUE(located.ok()) << located.error().describe();
  EXPECT_TRUE(located->surrounded_by_text);
  EXPECT_EQ(located->document["jobs"][0]["jobname"], "write-json-normal");
}

// fio 3.33 --client with json+,normal: the normal report first, then the document.
TEST(FioJsonLocate, NormalTextFollowedByDocument) {
  auto located =
      locate_fio_json(testing::fio_fixture("fio-3.33-client-jsonplus-normal.txt"), "x", kLimits);
  ASSERT_TRUE(located.ok()) << located.error().describe();
  EXPECT_TRUE(located->surrounded_by_text);
  EXPECT_EQ(located->document["client_stats"][0]["hostname"], "localhost");
}

TEST(FioJsonLocate, BracesInTextAndStringsAreNotTheDocument) {
  const std::string text =
      "fio: job {odd} name\n{\"other\": 1}\n"
      R"({"jobs": [{"jobname": "a}{b\"}"}]} trailing {)";
  auto located = locate_fio_json(text, "x", kLimits);
  ASSERT_TRUE(located.ok()) << located.error().describe();
  EXPECT_EQ(located->document["jobs"][0]["jobname"], "a}{b\"}");
}

TEST(FioJsonLocate, RefusalsNameTheFileAndWhy) {
  const std::string whole = testing::fio_fixture("fio-3.33-json-randrw-psync.json");
  auto truncated =
      locate_fio_json("header\n" + whole.substr(0, whole.size() / 2), "t.json", kLimits);
  ASSERT_FALSE(truncated.ok());
  EXPECT_EQ(truncated.error().describe(),
            "t.json: truncated fio output: the JSON object opened on line 2 is never closed");
  auto none = locate_fio_json("fio: no such option\n", "n.json", kLimits);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().describe(), "n.json: no JSON object in it");
  auto foreign = locate_fio_json(R"({"schema": "kdrift.snapshot/1"})", "f.json", kLimits);
  ASSERT_FALSE(foreign.ok());
  EXPECT_NE(foreign.error().describe().find("no fio JSON object"), std::string::npos);
}

// fio --status-interval=1 on a 3 s run: its figures so far each second, the final ones last.
TEST(FioJsonLocate, StatusReportsThenTheFinalDocument) {
  const std::string text = testing::fio_fixture("fio-3.33-json-status-interval.json");
  auto located = locate_fio_json(text, "x", kLimits);
  ASSERT_TRUE(located.ok()) << located.error().describe();
  EXPECT_EQ(located->earlier_documents, 3u);
  EXPECT_TRUE(located->surrounded_by_text);
  EXPECT_EQ(located->document["jobs"][0]["read"]["total_ios"], 23812);
  EXPECT_EQ(located->document["jobs"][0]["read"]["runtime"], 3004);
  // A run stopped while writing its next report: the file is cut, not the earlier report's.
  const size_t second = text.find("\n{", 1) + 1;
  auto cut = locate_fio_json(text.substr(0, second + 2000), "cut.json", kLimits);
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.error().describe(),
            "cut.json: truncated fio output: the JSON object opened on line 271 is never closed");
}

// Many brace pairs are not each parsed: the search stops after a bounded number of objects.
TEST(FioJsonLocate, TheSearchIsBounded) {
  std::string text;
  for (int i = 0; i < 100; ++i)
    text += "{x} ";
  text += R"({"jobs": []})";
  auto located = locate_fio_json(text, "b.json", kLimits);
  ASSERT_FALSE(located.ok());
  EXPECT_NE(located.error().describe().find("among the first 16 objects"), std::string::npos);
}

}  // namespace
}  // namespace kdrift
