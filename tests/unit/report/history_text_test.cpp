#include "report/history_text.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

TEST(HistoryText, ARowABootWithTheKernelChangeAndThisBootMarked) {
  const Json history = {{"directory", "/var/lib/kdrift/boots"},
                        {"boots",
                         {{{"path", "/h/1.json.gz"},
                           {"boot_id", "aaa"},
                           {"release", "6.1.0-50-amd64"},
                           {"captured_at", "2026-11-01T08:00:00Z"},
                           {"this_boot", false},
                           {"kernel_changed", false}},
                          {{"path", "/h/x.json.gz"}, {"error", "truncated gzip stream"}},
                          {{"path", "/h/3.json.gz"},
                           {"boot_id", "ccc"},
                           {"release", "6.12.0-1-amd64"},
                           {"captured_at", "2026-11-03T08:00:00Z"},
                           {"this_boot", true},
                           {"kernel_changed", true},
                           {"previous_release", "6.1.0-50-amd64"}}}}};
  const std::string text = render_history_text(history);
  EXPECT_EQ(text.substr(0, text.find('\n')), "boots recorded in /var/lib/kdrift/boots: 3");
  EXPECT_NE(text.find("unreadable: truncated gzip stream"), std::string::npos);
  EXPECT_NE(text.find("kernel changed (was 6.1.0-50-amd64); this boot"), std::string::npos);
  // The first boot's row carries no mark: it ends with its boot id.
  const auto first = text.find("2026-11-01T08:00:00Z");
  ASSERT_NE(first, std::string::npos);
  const std::string row = text.substr(first, text.find('\n', first) - first);
  EXPECT_EQ(row.substr(row.find_last_not_of(' ') - 2, 3), "aaa");
}

TEST(HistoryText, AnEmptyHistorySaysSoWithoutATable) {
  EXPECT_EQ(render_history_text({{"directory", "/h"}, {"boots", Json::array()}}),
            "boots recorded in /h: 0\n");
}

}  // namespace
}  // namespace kdrift
