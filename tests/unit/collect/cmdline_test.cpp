#include "collect/cmdline.h"

#include <gtest/gtest.h>

namespace kdrift {
namespace {

TEST(Cmdline, KeepsRepeatsModulesFlagsAndInitArgs) {
  const auto parsed = parse_cmdline(
      "console=ttyS0 console=tty0 quiet nvme.poll_queues=2 intel_iommu=on "
      "dyndbg=\"file x +p\" -- --firecracker-init --addr 0.0.0.0\n");
  ASSERT_EQ(parsed.params.size(), 6u);
  EXPECT_EQ(parsed.params[0].key, "console");
  EXPECT_EQ(parsed.params[1].value, "tty0");
  EXPECT_FALSE(parsed.params[2].value.has_value());
  EXPECT_EQ(parsed.params[3].module, "nvme");
  EXPECT_EQ(parsed.params[3].value, "2");
  EXPECT_EQ(parsed.params[4].module, "");
  EXPECT_EQ(parsed.params[5].value, "file x +p");
  EXPECT_EQ(parsed.init_args,
            (std::vector<std::string>{"--firecracker-init", "--addr", "0.0.0.0"}));
}

TEST(Cmdline, JsonHasRawParamsAndEffectiveLastValue) {
  const std::string raw = "iommu=pt iommu=nopt quiet\n";
  const Json json = cmdline_to_json(raw, parse_cmdline(raw));
  EXPECT_EQ(json["raw"], "iommu=pt iommu=nopt quiet");
  EXPECT_EQ(json["params"].size(), 3u);
  EXPECT_EQ(json["effective"]["iommu"], "nopt");
  EXPECT_EQ(json["effective"]["quiet"], true);
}

TEST(Cmdline, OddInputDoesNotCrash) {
  EXPECT_TRUE(parse_cmdline("").params.empty());
  EXPECT_EQ(parse_cmdline("\"unterminated quote").params.size(), 1u);
  EXPECT_EQ(parse_cmdline("=value .x x.").params.size(), 3u);
  EXPECT_EQ(parse_cmdline(".x").params[0].module, "");
}

}  // namespace
}  // namespace kdrift
