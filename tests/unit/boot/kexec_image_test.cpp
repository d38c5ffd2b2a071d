#include "boot/kexec_image.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <utility>

#include "support/fixtures.h"
#include "support/pe_image.h"

namespace kdrift {
namespace {

using testing::TempDir;

constexpr uid_t kNobody = 65534;

// A kernel at DIR/boot/vmlinuz, every mode set explicitly so that the umask decides nothing.
class ImageTree {
 public:
  ImageTree() {
    dir_.write("boot/vmlinuz", "kernel");
    dir_.write("boot/initrd.img", "initrd");
    mode("", 0700);
    mode("boot", 0755);
    mode("boot/vmlinuz", 0644);
    mode("boot/initrd.img", 0600);
  }
  std::string path(const std::string& relative) const {
    return relative.empty() ? dir_.path() : dir_.path() + "/" + relative;
  }
  void mode(const std::string& relative, mode_t mode) const {
    ASSERT_EQ(::chmod(path(relative).c_str(), mode), 0) << relative;
  }
  // Needs root: the owner an attacker would be.
  void give_to_nobody(const std::string& relative) const {
    ASSERT_EQ(::lchown(path(relative).c_str(), kNobody, kNobody), 0) << relative;
  }
  const TempDir& dir() const { return dir_; }

 private:
  TempDir dir_;
};

std::string refusal(const Result<UniqueFd>& opened) {
  if (opened) return "opened";
  EXPECT_EQ(opened.error().code, EACCES) << opened.error().describe();
  return opened.error().context;
}

TEST(OpenKexecImage, OpensTheCheckedFileItself) {
  const ImageTree tree;
  auto opened = open_kexec_image(tree.path("boot/vmlinuz"), "kernel");
  ASSERT_TRUE(opened) << opened.error().describe();
  struct stat by_fd {};
  struct stat by_path {};
  ASSERT_EQ(::fstat(opened->get(), &by_fd), 0);
  ASSERT_EQ(::stat(tree.path("boot/vmlinuz").c_str(), &by_path), 0);
  EXPECT_EQ(by_fd.st_ino, by_path.st_ino);
  EXPECT_EQ(by_fd.st_dev, by_path.st_dev);
  EXPECT_NE(::fcntl(opened->get(), F_GETFD) & FD_CLOEXEC, 0);
  // "." and repeated slashes are no components.
  EXPECT_TRUE(open_kexec_image(tree.path("./boot//vmlinuz"), "kernel"));
}

TEST(OpenKexecImage, RefusesPathsThatAreNotPlainAbsoluteNames) {
  const ImageTree tree;
  for (const std::string& path : {std::string("boot/vmlinuz"), std::string(""),
                                  tree.path("boot/../boot/vmlinuz"), std::string("/")}) {
    const auto opened = open_kexec_image(path, "kernel");
    ASSERT_FALSE(opened) << path;
    EXPECT_EQ(opened.error().code, 0) << opened.error().describe();
    EXPECT_TRUE(opened.error().context.starts_with("kernel " + path + ": "))
        << opened.error().context;
  }
}

TEST(OpenKexecImage, RefusesASymlinkAnywhereOnThePath) {
  const ImageTree tree;
  tree.dir().symlink("vmlinuz-link", tree.path("boot/vmlinuz"));
  tree.dir().symlink("boot-link", tree.path("boot"));
  std::string why = refusal(open_kexec_image(tree.path("vmlinuz-link"), "kernel"));
  EXPECT_NE(why.find(tree.path("vmlinuz-link") + " is a symbolic link"), std::string::npos) << why;
  why = refusal(open_kexec_image(tree.path("boot-link/vmlinuz"), "initrd"));
  EXPECT_TRUE(why.starts_with("initrd " + tree.path("boot-link/vmlinuz") + ": " +
                              tree.path("boot-link") + " is a symbolic link"))
      << why;
}

TEST(OpenKexecImage, RefusesWhatGroupOrOthersCanWrite) {
  const ImageTree tree;
  tree.mode("boot/vmlinuz", 0664);
  std::string why = refusal(open_kexec_image(tree.path("boot/vmlinuz"), "kernel"));
  EXPECT_NE(why.find("boot/vmlinuz is writable by its group or others (mode 0664)"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("chooses the kernel root boots"), std::string::npos) << why;
  tree.mode("boot/vmlinuz", 0644);
  tree.mode("boot", 0777);
  why = refusal(open_kexec_image(tree.path("boot/vmlinuz"), "kernel"));
  EXPECT_NE(why.find(tree.path("boot") + " is writable by its group or others (mode 0777)"),
            std::string::npos)
      << why;
}

TEST(OpenKexecImage, ARootOwnedStickyDirectoryIsTrustedLikeTmp) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root: the sticky directory must be root's";
  const ImageTree tree;
  tree.mode("boot", 01777);
  EXPECT_TRUE(open_kexec_image(tree.path("boot/vmlinuz"), "kernel"));
  // Sticky protects the directory's entries, not a file anyone can write.
  tree.mode("boot/vmlinuz", 0666);
  EXPECT_FALSE(open_kexec_image(tree.path("boot/vmlinuz"), "kernel"));
}

TEST(OpenKexecImage, RefusesAnotherUsersFileOrDirectoryNamingTheOwner) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root: chown to nobody";
  const ImageTree tree;
  tree.give_to_nobody("boot/vmlinuz");
  std::string why = refusal(open_kexec_image(tree.path("boot/vmlinuz"), "kernel"));
  EXPECT_NE(why.find("boot/vmlinuz is owned by uid 65534"), std::string::npos) << why;
  EXPECT_NE(why.find(", neither root nor the user running kdrift (uid 0);"), std::string::npos)
      << why;

  const ImageTree in_their_directory;
  in_their_directory.give_to_nobody("boot");
  why = refusal(open_kexec_image(in_their_directory.path("boot/vmlinuz"), "kernel"));
  EXPECT_NE(why.find(in_their_directory.path("boot") + " is owned by uid 65534"), std::string::npos)
      << why;
  // Also a sticky one: its owner can still swap what is in it.
  in_their_directory.mode("boot", 01777);
  EXPECT_FALSE(open_kexec_image(in_their_directory.path("boot/vmlinuz"), "kernel"));
}

TEST(OpenKexecImage, TrustsTheGivenUserBesidesRoot) {
  const ImageTree tree;
  // Owned by whoever runs the test: trusted as that user, and not as another one (unless the
  // test runs as root, whose files are always trusted).
  EXPECT_TRUE(open_kexec_image(tree.path("boot/vmlinuz"), "kernel", ::geteuid()));
  if (::geteuid() != 0) {
    EXPECT_FALSE(open_kexec_image(tree.path("boot/vmlinuz"), "kernel", ::geteuid() + 1));
  }
}

TEST(OpenKexecImage, RefusesWhatIsNotARegularFileWithoutHanging) {
  const ImageTree tree;
  ASSERT_EQ(::mkfifo(tree.path("boot/fifo").c_str(), 0600), 0);
  std::string why = refusal(open_kexec_image(tree.path("boot/fifo"), "kernel"));
  EXPECT_NE(why.find("boot/fifo is not a regular file"), std::string::npos) << why;
  why = refusal(open_kexec_image(tree.path("boot"), "kernel"));
  EXPECT_NE(why.find("is not a regular file"), std::string::npos) << why;
  const auto file_as_directory = open_kexec_image(tree.path("boot/vmlinuz/x"), "kernel");
  ASSERT_FALSE(file_as_directory);
  EXPECT_EQ(file_as_directory.error().code, ENOTDIR);
  const auto missing = open_kexec_image(tree.path("boot/vmlinuz.missing"), "kernel");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ENOENT);
  EXPECT_EQ(missing.error().context, "kernel " + tree.path("boot/vmlinuz.missing") + ": open " +
                                         tree.path("boot/vmlinuz.missing"));
}

TEST(OpenKexecFiles, OpensBothOrSaysWhichIsRefused) {
  const ImageTree tree;
  auto both = open_kexec_files(tree.path("boot/vmlinuz"), tree.path("boot/initrd.img"));
  ASSERT_TRUE(both) << both.error().describe();
  EXPECT_TRUE(both->kernel);
  EXPECT_TRUE(both->initrd);
  auto kernel_only = open_kexec_files(tree.path("boot/vmlinuz"), "");
  ASSERT_TRUE(kernel_only);
  EXPECT_FALSE(kernel_only->initrd);
  EXPECT_FALSE(open_kexec_files("", tree.path("boot/initrd.img")));
  tree.mode("boot/initrd.img", 0622);
  const auto refused = open_kexec_files(tree.path("boot/vmlinuz"), tree.path("boot/initrd.img"));
  ASSERT_FALSE(refused);
  EXPECT_TRUE(refused.error().context.starts_with("initrd " + tree.path("boot/initrd.img")))
      << refused.error().context;
}

TEST(PeImageSigned, ACertificateTableIsASignatureInBothPeFormats) {
  for (const bool plus : {true, false}) {
    SCOPED_TRACE(plus ? "PE32+" : "PE32");
    EXPECT_TRUE(pe_image_signed(testing::pe_kernel_image(1424, plus)));
    EXPECT_FALSE(pe_image_signed(testing::pe_kernel_image(0, plus)));
  }
}

TEST(PeImageSigned, WhatIsNoPeImageOrIsCutShortIsUnsigned) {
  std::string far_header = testing::pe_kernel_image(1424);
  far_header[0x3e] = '\x7f';  // e_lfanew far past the head
  std::string no_directory = testing::pe_kernel_image(1424);
  no_directory[0x80 + 24 + 108] = 4;  // NumberOfRvaAndSizes: no certificate table
  std::string not_mz = testing::pe_kernel_image(1424);
  not_mz[0] = 'X';
  const std::string whole = testing::pe_kernel_image(1424);
  const std::pair<const char*, std::string> heads[] = {
      {"empty", ""},
      {"text", "not a kernel at all"},
      {"raw bzImage", std::string(600, 'x')},
      {"no MZ", not_mz},
      {"cut inside the COFF header", whole.substr(0, 0x90)},
      {"cut inside the certificate entry", whole.substr(0, 0x80 + 24 + 112 + 8 * 4 + 6)},
      {"far header", far_header},
      {"no certificate directory", no_directory},
  };
  for (const auto& [name, head] : heads)
    EXPECT_FALSE(pe_image_signed(head)) << name;
  EXPECT_TRUE(pe_image_signed(whole.substr(0, 0x80 + 24 + 112 + 8 * 4 + 8)))
      << "the head up to the certificate entry is enough";
}

}  // namespace
}  // namespace kdrift
