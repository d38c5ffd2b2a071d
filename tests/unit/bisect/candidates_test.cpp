#include "bisect/candidates.h"

#include <gtest/gtest.h>

#include "support/fixtures.h"

namespace kdrift {
namespace {

using testing::TempDir;

TEST(CandidateList, ParsesEveryFormOfLine) {
  const auto parsed = parse_candidate_list(
      "# oldest first\n"
      "\n"
      "v6.1   kernel=/boot/vmlinuz-6.1.0-50-amd64 initrd=/boot/initrd.img-6.1.0-50-amd64\n"
      "strict kernel=/boot/vmlinuz-6.1.0-50-amd64 append=\"root=/dev/vda1 iommu.strict=1\"\n"
      "bare\n"
      "  quoted append=\"a \\\"b\\\" c\\\\\" release=6.12.117+deb12-amd64\n",
      "list.txt");
  ASSERT_TRUE(parsed) << parsed.error().describe();
  ASSERT_EQ(parsed->size(), 4u);
  EXPECT_EQ((*parsed)[0].name, "v6.1");
  EXPECT_EQ((*parsed)[0].kernel, "/boot/vmlinuz-6.1.0-50-amd64");
  EXPECT_EQ((*parsed)[0].initrd, "/boot/initrd.img-6.1.0-50-amd64");
  EXPECT_EQ((*parsed)[1].append, "root=/dev/vda1 iommu.strict=1");
  EXPECT_EQ((*parsed)[2].name, "bare");
  EXPECT_TRUE((*parsed)[2].kernel.empty());
  EXPECT_EQ((*parsed)[3].append, "a \"b\" c\\");
  EXPECT_EQ((*parsed)[3].release, "6.12.117+deb12-amd64");
}

TEST(CandidateList, FormatsBackToTheSameList) {
  const std::vector<Candidate> candidates = {
      {"a", "/boot/vmlinuz-1", "/boot/initrd.img-1", "quiet iommu=pt", "1", "", ""},
      {"b c", "", "", "x=\"y\"", "", "", ""},
      {"d", "/k", "", "", "", "", ""},
  };
  const auto parsed = parse_candidate_list(format_candidate_list(candidates), "round trip");
  ASSERT_TRUE(parsed) << parsed.error().describe();
  ASSERT_EQ(parsed->size(), candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) {
    EXPECT_EQ((*parsed)[i].name, candidates[i].name);
    EXPECT_EQ((*parsed)[i].kernel, candidates[i].kernel);
    EXPECT_EQ((*parsed)[i].initrd, candidates[i].initrd);
    EXPECT_EQ((*parsed)[i].append, candidates[i].append);
    EXPECT_EQ((*parsed)[i].release, candidates[i].release);
  }
}

TEST(CandidateList, BadLinesAreNamedWithFileAndLine) {
  const std::pair<const char*, const char*> cases[] = {
      {"a\nb kernal=/x\n", "list.txt:2: unknown key \"kernal\""},
      {"a append=\"open\n", "list.txt:1: unterminated double quote"},
      {"a\na\n", "list.txt:2: candidate \"a\" is listed twice"},
      {"a kernel=/x kernel=/y\n", "list.txt:1: kernel= is given twice"},
      {"a /boot/vmlinuz\n", "list.txt:1: expected kernel=, initrd= or append="},
      {"kernel=/x\n", "list.txt:1: a line starts with the candidate's name"},
      {"a kernel=\n", "list.txt:1: kernel= has no value"},
      {"# nothing\n\n", "list.txt: no candidate in the list"},
  };
  for (const auto& [text, message] : cases) {
    const auto parsed = parse_candidate_list(text, "list.txt");
    ASSERT_FALSE(parsed) << text;
    EXPECT_NE(parsed.error().describe().find(message), std::string::npos)
        << text << " -> " << parsed.error().describe();
  }
}

TEST(CompareVersions, KernelReleasesSortAsSortV) {
  const std::vector<std::string> ordered = {"5.10.0-9-amd64",       "5.10.0-10-amd64",
                                            "6.1.0-9-amd64",        "6.1.0-50-amd64",
                                            "6.1.0-57-cloud-amd64", "6.12.0",
                                            "6.12.0-rc1",           "6.12.107+deb12-amd64",
                                            "6.12.117+deb12-amd64", "6.12.117+deb12-amd64a"};
  for (size_t i = 0; i < ordered.size(); ++i) {
    EXPECT_EQ(compare_versions(ordered[i], ordered[i]), 0) << ordered[i];
    for (size_t j = i + 1; j < ordered.size(); ++j) {
      EXPECT_LT(compare_versions(ordered[i], ordered[j]), 0) << ordered[i] << " < " << ordered[j];
      EXPECT_GT(compare_versions(ordered[j], ordered[i]), 0) << ordered[j] << " > " << ordered[i];
    }
  }
  EXPECT_LT(compare_versions("1.0~rc1", "1.0"), 0);
  EXPECT_EQ(compare_versions("1.01", "1.1"), 0);
}

TEST(CandidatesFromBoot, DebianAndFedoraNamingOldestFirst) {
  TempDir root;
  root.write("proc/cmdline",
             "BOOT_IMAGE=/boot/vmlinuz-6.12.117+deb12-amd64 root=/dev/vda1 ro "
             "initrd=/initrd.img quiet\n");
  root.write("boot/vmlinuz-6.12.117+deb12-amd64", "");
  root.write("boot/initrd.img-6.12.117+deb12-amd64", "");
  root.write("boot/vmlinuz-6.1.0-50-amd64", "");
  root.write("boot/initrd.img-6.1.0-50-amd64", "");
  root.write("boot/vmlinuz-6.5.6-300.fc39.x86_64", "");
  root.write("boot/initramfs-6.5.6-300.fc39.x86_64.img", "");
  root.write("boot/vmlinuz-0-rescue-0123456789abcdef", "");
  root.write("boot/config-6.1.0-50-amd64", "");
  root.symlink("boot/vmlinuz", "vmlinuz-6.12.117+deb12-amd64");
  const auto found = candidates_from_boot(SysRoot(root.path()));
  ASSERT_TRUE(found) << found.error().describe();
  ASSERT_EQ(found->size(), 3u);
  EXPECT_EQ((*found)[0].name, "6.1.0-50-amd64");
  EXPECT_EQ((*found)[0].kernel, "/boot/vmlinuz-6.1.0-50-amd64");
  EXPECT_EQ((*found)[0].initrd, "/boot/initrd.img-6.1.0-50-amd64");
  EXPECT_EQ((*found)[0].append, "root=/dev/vda1 ro quiet");
  EXPECT_EQ((*found)[1].release, "6.5.6-300.fc39.x86_64");
  EXPECT_EQ((*found)[1].initrd, "/boot/initramfs-6.5.6-300.fc39.x86_64.img");
  EXPECT_EQ((*found)[2].name, "6.12.117+deb12-amd64");
}

TEST(CandidatesFromBoot, NoKernelIsAnErrorNamingBoot) {
  TempDir root;
  root.write("boot/grub/grub.cfg", "");
  const auto found = candidates_from_boot(SysRoot(root.path()));
  ASSERT_FALSE(found);
  EXPECT_NE(found.error().describe().find("/boot"), std::string::npos);
}

TEST(CandidatesFromBls, EntriesSortedByVersionWithPathsOnBoot) {
  TempDir root;
  root.write("boot/loader/entries/abc-6.8.5-301.fc40.x86_64.conf",
             "title Fedora Linux (6.8.5-301.fc40.x86_64) 40\n"
             "version 6.8.5-301.fc40.x86_64\n"
             "linux /vmlinuz-6.8.5-301.fc40.x86_64\n"
             "initrd /initramfs-6.8.5-301.fc40.x86_64.img\n"
             "options root=UUID=1234 ro rhgb quiet\n");
  root.write("boot/loader/entries/abc-6.5.6-300.fc39.x86_64.conf",
             "version 6.5.6-300.fc39.x86_64\n"
             "linux /vmlinuz-6.5.6-300.fc39.x86_64\n"
             "initrd /intel-ucode.img\n"
             "initrd /initramfs-6.5.6-300.fc39.x86_64.img\n"
             "options root=UUID=1234 ro\n");
  root.write("boot/loader/entries/abc-0-rescue.conf", "linux /vmlinuz-0-rescue-abc\n");
  const auto found = candidates_from_bls(SysRoot(root.path()));
  ASSERT_TRUE(found) << found.error().describe();
  ASSERT_EQ(found->size(), 2u);
  EXPECT_EQ((*found)[0].release, "6.5.6-300.fc39.x86_64");
  EXPECT_EQ((*found)[0].kernel, "/boot/vmlinuz-6.5.6-300.fc39.x86_64");
  EXPECT_EQ((*found)[0].initrd, "/boot/initramfs-6.5.6-300.fc39.x86_64.img");
  EXPECT_EQ((*found)[1].append, "root=UUID=1234 ro rhgb quiet");
}

TEST(CandidatesFromBls, EntryWithoutLinuxIsAnError) {
  TempDir root;
  root.write("boot/loader/entries/broken.conf", "title Broken\nversion 1\n");
  const auto found = candidates_from_bls(SysRoot(root.path()));
  ASSERT_FALSE(found);
  EXPECT_NE(found.error().describe().find("broken.conf: no linux line"), std::string::npos);
}

}  // namespace
}  // namespace kdrift
