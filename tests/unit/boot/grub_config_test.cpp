#include "boot/grub_config.h"

#include <gtest/gtest.h>

#include "support/grub_fixture.h"

namespace kdrift {
namespace {

using grub_fixture::grub_cfg;

TEST(GrubConfig, ReadsDebiansGeneratedMenuAndHeader) {
  const auto config = parse_grub_config(grub_cfg({"6.12.57+deb12-amd64", "6.1.0-50-amd64"}));
  ASSERT_TRUE(config) << config.error().describe();
  EXPECT_TRUE(config->loads_environment);
  EXPECT_TRUE(config->honours_next_entry);
  EXPECT_TRUE(config->sources_custom_cfg);
  ASSERT_EQ(config->entries.size(), 5u);  // the simple entry, then two per kernel in the submenu
  EXPECT_FALSE(config->entries[0].in_submenu);
  EXPECT_EQ(config->entries[0].id, "gnulinux-simple-" + grub_fixture::kUuid);
  const GrubEntry& second = config->entries[3];
  EXPECT_TRUE(second.in_submenu);
  EXPECT_EQ(second.title, "Debian GNU/Linux, with Linux 6.1.0-50-amd64");
  EXPECT_EQ(second.linux_path, "/boot/vmlinuz-6.1.0-50-amd64");
  EXPECT_EQ(second.linux_arguments,
            (std::vector<std::string>{"root=UUID=" + grub_fixture::kUuid, "ro", "console=ttyS0"}));
  EXPECT_EQ(second.initrd_paths, (std::vector<std::string>{"/boot/initrd.img-6.1.0-50-amd64"}));
}

TEST(GrubConfig, AHeaderThatCannotBootOnceIsSaidSo) {
  std::string text = grub_cfg({"6.1.0-50-amd64"});
  // GRUB on LVM or btrfs: grub-mkconfig leaves save_env out, next_entry would never clear.
  text.erase(text.find("   save_env next_entry\n"), 23);
  const auto config = parse_grub_config(text);
  ASSERT_TRUE(config);
  EXPECT_FALSE(config->honours_next_entry);
  std::string no_custom = grub_cfg({"6.1.0-50-amd64"});
  no_custom.erase(no_custom.find("### BEGIN /etc/grub.d/41_custom"));
  EXPECT_FALSE(parse_grub_config(no_custom)->sources_custom_cfg);
}

TEST(GrubConfig, RefusesWhatItCannotFollowNamingTheLine) {
  std::string nested;
  for (int i = 0; i < 20; ++i)
    nested += "if x {\n";
  for (const auto& [text, said] :
       {std::pair{std::string("menuentry 'x' {\n linux /vmlinuz\n"), "not closed"},
        std::pair{std::string("}\n"), "line 1: \"}\" closes no block"},
        std::pair{std::string("set a=1\nmenuentry 'x' { linux /vmlinuz; }\n"),
                  "line 2: a menu entry whose \"{\" does not end its line"},
        std::pair{std::string("menuentry 'unterminated {\n}\n"), "line 1: an unterminated single"},
        std::pair{nested, "line 17: nested too deep"}}) {
    const auto config = parse_grub_config(text);
    ASSERT_FALSE(config) << said;
    EXPECT_NE(config.error().describe().find(said), std::string::npos) << config.error().describe();
  }
  EXPECT_FALSE(parse_grub_config(std::string((4 << 20) + 1, '#')));
}

TEST(GrubConfig, WordsFollowGrubsQuoting) {
  EXPECT_EQ(*grub_words("linux\t/boot/vmlinuz 'a b' \"c\\\"d\" e\\ f # comment"),
            (std::vector<std::string>{"linux", "/boot/vmlinuz", "a b", "c\"d", "e f"}));
  EXPECT_EQ(*grub_words("set default=\"${next_entry}\""),
            (std::vector<std::string>{"set", "default=${next_entry}"}));
  EXPECT_FALSE(grub_words("echo 'open"));
  EXPECT_FALSE(grub_words("echo trailing\\"));
}

TEST(GrubConfig, QuotesOnlyWhatReadsBackAsItself) {
  EXPECT_EQ(*grub_quoted("root=UUID=x;reboot$y"), "'root=UUID=x;reboot$y'");
  EXPECT_FALSE(grub_quoted("a'b"));
  EXPECT_FALSE(grub_quoted("a\nmenuentry"));
  EXPECT_FALSE(grub_quoted(std::string("a\x1b]0;x", 6)));
}

TEST(GrubEnvironmentBlock, RoundTripsKeepingSizeAndOtherVariables) {
  std::string block = "# GRUB Environment Block\nsaved_entry=gnulinux-x\nodd=a\\\nb\\\\c\n";
  block.resize(1024, '#');
  auto environment = parse_grub_environment(block);
  ASSERT_TRUE(environment) << environment.error().describe();
  EXPECT_EQ(grub_variable(*environment, "odd"), "a\nb\\c");
  EXPECT_EQ(*render_grub_environment(*environment), block);
  set_grub_variable(*environment, "next_entry", "kdrift-1-2");
  const auto set = render_grub_environment(*environment);
  ASSERT_TRUE(set);
  EXPECT_EQ(set->size(), 1024u);
  EXPECT_NE(set->find("saved_entry=gnulinux-x\nodd=a\\\nb\\\\c\nnext_entry=kdrift-1-2\n#"),
            std::string::npos);
  set_grub_variable(*environment, "next_entry", "");
  EXPECT_EQ(*render_grub_environment(*environment), block);
}

TEST(GrubEnvironmentBlock, RefusesABlockThatIsNotOneOrNoLongerFits) {
  EXPECT_FALSE(parse_grub_environment("saved_entry=0\n"));
  EXPECT_FALSE(parse_grub_environment("# GRUB Environment Block\nno equals sign\n"));
  EXPECT_FALSE(parse_grub_environment("# GRUB Environment Block\ncut=off"));
  EXPECT_FALSE(parse_grub_environment("# GRUB Environment Block\n" + std::string(70000, '#')));
  auto small = parse_grub_environment(grub_fixture::empty_grubenv());
  ASSERT_TRUE(small);
  set_grub_variable(*small, "big", std::string(2000, 'x'));
  const auto rendered = render_grub_environment(*small);
  ASSERT_FALSE(rendered);
  EXPECT_NE(rendered.error().describe().find("no longer fit"), std::string::npos);
}

}  // namespace
}  // namespace kdrift
