// The html report in a real browser, Debian's headless chromium: the sample report must load
// without a single console message, parse into the page we meant, and look like a report in a
// screenshot. Skips with the reason when chromium is not installed.

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "report/report_html.h"
#include "support/fixtures.h"
#include "support/png.h"
#include "support/system.h"

namespace kdrift {
namespace {

// The colours report_html.cpp gives side A, side B and a critical finding's badge.
constexpr std::string_view kColourA = "#2b6cb0";
constexpr std::string_view kColourB = "#dd6b20";
constexpr std::string_view kColourCritical = "#c53030";
constexpr std::string_view kColourWhite = "#ffffff";
constexpr std::string_view kColourPage = "#eef1f4";
// Tall enough for the header, the findings and both rows of charts with any fallback font.
constexpr int kWidth = 1400;
constexpr int kHeight = 4000;

size_t count_of(const std::string& text, std::string_view needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

testing::Rgba colour(std::string_view hex) {
  return testing::parse_hex_colour(hex).value();
}

// With --enable-logging=stderr, Chromium's browser process logs every message that reaches a
// page's console as "[pid:tid:time:INFO:CONSOLE:<line>] "<message>", source: <url> (<line>)":
// console API calls, uncaught exceptions, and the engine's own complaints about the document, such
// as an SVG attribute that does not parse ("Error: <path> attribute d: Expected number"). The
// report runs no script, so any such line is a fault in the page. Older releases wrote
// "CONSOLE(<line>)"; both contain ":CONSOLE". ConsoleCheckSeesABrokenPage proves the format on the
// installed release, so that a change in it fails rather than passes unseen.
std::vector<std::string> console_lines(const std::string& log) {
  std::vector<std::string> lines;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (line.find(":CONSOLE") != std::string::npos) lines.push_back(line);
  }
  return lines;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines)
    out += line + "\n";
  return out;
}

struct BrowserRun {
  int status;
  std::string out;
  std::string log;
};

class HtmlInChromium : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testing::run_command("command -v chromium").status != 0) {
      GTEST_SKIP() << "chromium is not installed (Debian package chromium, in "
                      "KDRIFT_TEST_PACKAGES of scripts/lib/common.sh)";
    }
  }

  std::string write_page(const std::string& name, const std::string& html) const {
    std::string path = dir_.path() + "/" + name;
    dir_.write(name, html);
    return path;
  }

  // Headless, so no display is needed; --no-sandbox because system tests run as root, which
  // Chromium's sandbox refuses; a profile of its own so parallel tests do not share one. Device
  // scale 1 and the sRGB profile keep the page's colours exact in the screenshot.
  BrowserRun open(const std::string& page, const std::string& flags) const {
    const std::string out = dir_.path() + "/browser.out";
    const std::string log = dir_.path() + "/browser.log";
    const std::string command =
        "(timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage "
        "--no-first-run --no-default-browser-check --user-data-dir=" +
        dir_.path() +
        "/profile --enable-logging=stderr --v=0 --force-device-scale-factor=1 "
        "--force-color-profile=srgb --hide-scrollbars " +
        flags + " file://" + page + " >" + out + " 2>" + log + ")";
    const int status = testing::run_command(command).status;
    return {status, testing::read_bytes(out), testing::read_bytes(log)};
  }

  std::string sample_page() const {
    const std::string text =
        testing::read_bytes(testing::source_dir() + "/tests/fixtures/reports/sample-diff.json");
    return write_page("report.html", render_report_html(Json::parse(text), {}));
  }

  testing::TempDir dir_;
};

TEST_F(HtmlInChromium, ConsoleCheckSeesABrokenPage) {
  const std::string page =
      write_page("broken.html",
                 "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>t</title></head><body>"
                 "<svg width=\"10\" height=\"10\"><path d=\"M 0 NaN\"/></svg></body></html>\n");
  const BrowserRun run = open(page, "--dump-dom");
  ASSERT_EQ(run.status, 0) << run.log;
  EXPECT_FALSE(console_lines(run.log).empty())
      << "chromium no longer logs console messages as expected; the check below would pass "
         "without looking. Log:\n"
      << run.log;
}

TEST_F(HtmlInChromium, SampleReportLoadsWithoutConsoleMessages) {
  const BrowserRun run = open(sample_page(), "--dump-dom");
  ASSERT_EQ(run.status, 0) << run.log;
  EXPECT_TRUE(console_lines(run.log).empty()) << joined(console_lines(run.log));

  // --dump-dom prints the document as the browser parsed it: what a reader actually gets.
  const std::string& dom = run.out;
  EXPECT_NE(dom.find("<h1>kdrift diff report</h1>"), std::string::npos) << dom.substr(0, 2000);
  EXPECT_EQ(count_of(dom, "<svg"), 6u);
  EXPECT_EQ(count_of(dom, "<figure>"), 6u);
  // The hostname that carries a script tag stayed text.
  EXPECT_EQ(dom.find("<script"), std::string::npos);
  EXPECT_NE(dom.find("stor-b02&lt;script"), std::string::npos);
  EXPECT_NE(dom.find("</footer>"), std::string::npos) << "the page did not parse to its end";
}

TEST_F(HtmlInChromium, ScreenshotShowsTheFindingsAndBothSides) {
  const std::string png = dir_.path() + "/page.png";
  const BrowserRun run =
      open(sample_page(), "--screenshot=" + png + " --window-size=" + std::to_string(kWidth) + "," +
                              std::to_string(kHeight));
  ASSERT_EQ(run.status, 0) << run.log;
  EXPECT_TRUE(console_lines(run.log).empty()) << joined(console_lines(run.log));
  std::string error;
  const auto image = testing::read_png(png, &error);
  ASSERT_TRUE(image.has_value()) << error;
  ASSERT_EQ(image->width, static_cast<uint32_t>(kWidth));
  ASSERT_EQ(image->height, static_cast<uint32_t>(kHeight));

  // Not blank: text, tables and charts cover a good part of the page in many shades.
  const size_t total = image->pixels.size();
  const size_t background = testing::count_near(*image, colour(kColourWhite), 2) +
                            testing::count_near(*image, colour(kColourPage), 2);
  EXPECT_GT(total - background, total / 25) << "the page is almost empty";
  std::set<uint32_t> shades;
  for (const auto& pixel : image->pixels)
    shades.insert(uint32_t{pixel.r} << 16 | uint32_t{pixel.g} << 8 | pixel.b);
  EXPECT_GT(shades.size(), 200u);

  // Both sides are drawn (lines, markers, legends) and the critical findings carry their badge.
  const size_t side_a = testing::count_near(*image, colour(kColourA), 8);
  const size_t side_b = testing::count_near(*image, colour(kColourB), 8);
  const size_t critical = testing::count_near(*image, colour(kColourCritical), 8);
  EXPECT_GT(side_a, 800u);
  EXPECT_GT(side_b, 800u);
  EXPECT_GT(critical, 1000u);

  // The findings come before the charts, as a reader should meet them.
  const auto first_row = [&](std::string_view hex) {
    const testing::Rgba wanted = colour(hex);
    for (uint32_t y = 0; y < image->height; ++y) {
      for (uint32_t x = 0; x < image->width; ++x) {
        if (image->at(x, y) == wanted) return y;
      }
    }
    return image->height;
  };
  EXPECT_LT(first_row(kColourCritical), first_row(kColourA));
}

}  // namespace
}  // namespace kdrift
