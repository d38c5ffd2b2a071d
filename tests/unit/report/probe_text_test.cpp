#include "report/probe_text.h"

#include <gtest/gtest.h>

#include <sstream>

#include "report/text_table.h"
#include "report/trace_text.h"
#include "support/hostile_text.h"

namespace kdrift {
namespace {

using testing::hostile_value;

// A probe section as an imported fio file or someone's snapshot may carry it.
Json hostile_probe() {
  Json job = {{"name", hostile_value("job")},
              {"status", "ok"},
              {"elapsed_s", 5},
              {"polling_doubt", hostile_value("doubt")},
              {"cpu_bound", hostile_value("bound")},
              {"read", {{"iops", 1000}, {"ios", 5000}}},
              {"trace",
               {{"block",
                 {{"bios_queued", 10},
                  {"requests_completed", hostile_value("not a count")},
                  {"device_latency_ns", {{"buckets", {{{"low", 1000}, {"count", 3}}}}}}}}}}};
  Json skipped = {{"name", hostile_value("skipped")},
                  {"status", "skipped"},
                  {"reason", hostile_value("reason")}};
  return {{"profile", {{"name", hostile_value("profile")}}},
          {"target",
           {{"path", hostile_value("/dev/x")},
            {"kind", "block"},
            {"write_refusals", {hostile_value("refusal")}}}},
          {"capabilities",
           {{hostile_value("mode"), {{"status", "ok"}, {"cause", hostile_value("cause")}}}}},
          {"jobs", {job, skipped}}};
}

TEST(ProbeText, ValuesAndKeysFromTheProbeSectionCannotDriveTheTerminal) {
  const std::string text = render_probe_text(hostile_probe(), false);
  EXPECT_EQ(testing::control_bytes(text), std::vector<unsigned>{}) << text;
  for (const char* name : {"job", "doubt", "bound", "skipped", "reason", "profile", "/dev/x",
                           "refusal", "mode", "cause"}) {
    EXPECT_NE(text.find(std::string(name) + "\\x1b]0;pwned\\x07"), std::string::npos) << name;
  }
  EXPECT_EQ(text.find("\n| injected"), std::string::npos);
}

TEST(TraceText, AJobNameCannotDriveTheTerminalNorAWrongTypeStopTheRender) {
  const Json job = hostile_probe()["jobs"][0];
  std::string text;
  ASSERT_NO_THROW(text = render_trace_text(job));
  EXPECT_EQ(testing::control_bytes(text), std::vector<unsigned>{}) << text;
  EXPECT_EQ(text.rfind("job\\x1b]0;pwned\\x07", 0), 0u) << text;
  EXPECT_NE(text.find("0 requests completed"), std::string::npos) << "a string is no count";
}

TEST(TextTable, CellsAndValuesAreShownTerminalSafe) {
  Table table({"device", "model"});
  table.add({hostile_value("key"), text_of(Json(hostile_value("model")))});
  std::ostringstream out;
  table.render(out);
  EXPECT_EQ(testing::control_bytes(out.str()), std::vector<unsigned>{}) << out.str();
  EXPECT_EQ(text_of(Json("\x1b[2J")), "\\x1b[2J");
  EXPECT_EQ(text_of(Json::parse(R"({"a":"\u001b"})")), "{\"a\":\"\\u001b\"}")
      << "a dumped value keeps JSON's own escapes";
}

}  // namespace
}  // namespace kdrift
