#include "boot/grub_boot.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <sstream>

#include "support/fixtures.h"
#include "support/grub_fixture.h"

namespace kdrift {
namespace {

using testing::read_bytes;
using testing::TempDir;

const std::string kOld = "6.1.0-50-amd64";
const std::string kNew = "6.12.57+deb12-amd64";

// A Debian host below a temporary root, booted from its older kernel by GRUB.
class GrubHost {
 public:
  GrubHost() {
    dir_.write("boot/grub/grub.cfg", grub_fixture::grub_cfg({kNew, kOld}));
    dir_.write("boot/grub/grubenv", grub_fixture::empty_grubenv());
    for (const std::string& release : {kOld, kNew}) {
      dir_.write("boot/vmlinuz-" + release, "kernel " + release);
      dir_.write("boot/initrd.img-" + release, "initrd " + release);
    }
    dir_.write("proc/cmdline", "BOOT_IMAGE=/boot/vmlinuz-" + kOld +
                                   " root=UUID=" + grub_fixture::kUuid + " ro console=ttyS0\n");
    dir_.write("state/bzImage", "a kernel kdrift built");
    ::chmod(dir_.path().c_str(), 0755);
  }
  std::string root() const { return dir_.path(); }
  std::string read(const std::string& relative) const {
    return read_bytes(dir_.path() + "/" + relative);
  }
  void write(const std::string& relative, const std::string& text) const {
    dir_.write(relative, text);
  }
  // Every file below the root and its bytes: what a refusal must leave as it was.
  std::map<std::string, std::string> files() const {
    std::map<std::string, std::string> found;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_.path())) {
      if (entry.is_regular_file()) found[entry.path().string()] = read_bytes(entry.path());
    }
    return found;
  }
  GrubBoot grub() const {
    return GrubBoot(sysroot_, root(), "/boot/grub", "b1",
                    "BOOT_IMAGE=/boot/vmlinuz-" + kOld + " root=UUID=x ro");
  }

 private:
  TempDir dir_;
  SysRoot sysroot_{dir_.path()};
};

BootImage image_of(const std::string& release, const std::string& line = "root=UUID=x ro") {
  return {"/boot/vmlinuz-" + release, "/boot/initrd.img-" + release, line + " kdrift.bisect=b1.1",
          "k-" + release};
}

TEST(GrubBoot, BootsAListedKernelOnceAndResetLeavesTheFilesAsTheyWere) {
  GrubHost host;
  const auto before = host.files();
  GrubBoot grub = host.grub();
  std::ostringstream log;
  ASSERT_TRUE(grub.prepare(image_of(kNew))) << grub.prepare(image_of(kNew)).error().describe();
  ASSERT_TRUE(grub.boot(image_of(kNew), {false, false}, log));
  const std::string custom = host.read("boot/grub/custom.cfg");
  const auto entries = parse_grub_config(custom);
  ASSERT_TRUE(entries) << custom;
  ASSERT_EQ(entries->entries.size(), 1u);
  const GrubEntry& entry = entries->entries[0];
  EXPECT_EQ(entry.id, "kdrift-b1");
  EXPECT_EQ(entry.linux_path, "/boot/vmlinuz-" + kNew);
  EXPECT_EQ(entry.linux_arguments,
            (std::vector<std::string>{"root=UUID=x", "ro", "kdrift.bisect=b1.1", "panic=10"}));
  EXPECT_EQ(entry.initrd_paths, (std::vector<std::string>{"/boot/initrd.img-" + kNew}));
  // The candidate's own entry finds its disk; nothing makes it the default or holds the menu.
  EXPECT_NE(custom.find("search --no-floppy --fs-uuid --set=root " + grub_fixture::kUuid),
            std::string::npos);
  EXPECT_EQ(custom.find("savedefault"), std::string::npos);
  const auto environment = parse_grub_environment(host.read("boot/grub/grubenv"));
  ASSERT_TRUE(environment);
  EXPECT_EQ(grub_variable(*environment, "next_entry"), "kdrift-b1");
  EXPECT_EQ(host.read("boot/grub/grubenv").size(), 1024u);
  EXPECT_NE(log.str().find("reboot when ready"), std::string::npos);

  std::ostringstream undone;
  ASSERT_TRUE(grub.undo(undone));
  EXPECT_EQ(host.files(), before);
  ASSERT_TRUE(grub.undo(undone)) << "undo twice";
}

TEST(GrubBoot, KeepsTheUsersCustomEntriesAndOneBlockOfItsOwn) {
  GrubHost host;
  const std::string mine = "menuentry 'rescue' {\n\tlinux /boot/vmlinuz-" + kOld + " single\n}\n";
  host.write("boot/grub/custom.cfg", mine);
  const auto before = host.files();
  GrubBoot grub = host.grub();
  std::ostringstream log;
  for (const std::string& release : {kNew, kOld}) {
    ASSERT_TRUE(grub.prepare(image_of(release)));
    ASSERT_TRUE(grub.boot(image_of(release), {false, false}, log));
  }
  const auto entries = parse_grub_config(host.read("boot/grub/custom.cfg"));
  ASSERT_TRUE(entries);
  ASSERT_EQ(entries->entries.size(), 2u);
  EXPECT_EQ(entries->entries[0].title, "rescue");
  EXPECT_EQ(entries->entries[1].linux_path, "/boot/vmlinuz-" + kOld);
  ASSERT_TRUE(grub.undo(log));
  EXPECT_EQ(host.files(), before);
}

TEST(GrubBoot, CopiesAKernelNoEntryBootsBesideTheRunningOne) {
  GrubHost host;
  GrubBoot grub = host.grub();
  const BootImage built{"/state/bzImage", "", "root=UUID=x ro kdrift.bisect=b1.3", "7f23e140"};
  std::ostringstream log;
  ASSERT_TRUE(grub.prepare(built)) << grub.prepare(built).error().describe();
  ASSERT_TRUE(grub.boot(built, {false, false}, log));
  EXPECT_EQ(host.read("boot/kdrift-b1/vmlinuz"), "a kernel kdrift built");
  const auto entries = parse_grub_config(host.read("boot/grub/custom.cfg"));
  ASSERT_TRUE(entries);
  EXPECT_EQ(entries->entries.at(0).linux_path, "/boot/kdrift-b1/vmlinuz");
  EXPECT_TRUE(entries->entries.at(0).initrd_paths.empty());
  ASSERT_TRUE(grub.undo(log));
  EXPECT_FALSE(std::filesystem::exists(host.root() + "/boot/kdrift-b1"));
}

TEST(GrubBoot, ADryRunShowsTheEntryAndChangesNothing) {
  GrubHost host;
  const auto before = host.files();
  GrubBoot grub = host.grub();
  std::ostringstream log;
  ASSERT_TRUE(grub.prepare(image_of(kNew)));
  ASSERT_TRUE(grub.boot(image_of(kNew), {true, true}, log));
  EXPECT_NE(log.str().find("would set next_entry=kdrift-b1"), std::string::npos) << log.str();
  EXPECT_EQ(host.files(), before);
}

TEST(GrubBoot, RefusesBeforeAnyChangeWhatCannotBootOnce) {
  struct Case {
    std::string file;  // replaced (empty text: removed)
    std::string text;
    std::string line;  // the candidate's command line
    std::string said;
  };
  std::string no_save = grub_fixture::grub_cfg({kNew, kOld});
  no_save.erase(no_save.find("   save_env next_entry\n"), 23);
  std::string no_custom = grub_fixture::grub_cfg({kNew, kOld});
  no_custom.erase(no_custom.find("### BEGIN /etc/grub.d/41_custom"));
  const std::vector<Case> cases = {
      {"boot/grub/grub.cfg", "menuentry 'x' {\n", "ro", "kdrift cannot read it"},
      {"boot/grub/grub.cfg", no_save, "ro", "cannot boot an entry once"},
      {"boot/grub/grub.cfg", no_custom, "ro", "does not source custom.cfg"},
      {"boot/grub/grubenv", "", "ro", "grub-editenv"},
      {"boot/grub/grubenv", "saved_entry=0\n", "ro", "GRUB Environment Block"},
      {"", "", "ro dyndbg=\"file x +p\"", "has a quote"},
      {"", "", "ro x='y'", "has a quote"},
  };
  for (const Case& c : cases) {
    GrubHost host;
    if (!c.file.empty()) {
      if (c.text.empty()) {
        std::filesystem::remove(host.root() + "/" + c.file);
      } else {
        host.write(c.file, c.text);
      }
    }
    const auto before = host.files();
    GrubBoot grub = host.grub();
    const auto prepared = grub.prepare(image_of(kNew, c.line));
    ASSERT_FALSE(prepared) << c.said;
    EXPECT_NE(prepared.error().describe().find(c.said), std::string::npos)
        << prepared.error().describe();
    std::ostringstream log;
    EXPECT_FALSE(grub.boot(image_of(kNew, c.line), {false, false}, log)) << c.said;
    EXPECT_EQ(host.files(), before) << c.said;
  }
}

TEST(GrubBoot, RefusesAKernelAnotherUserCouldHaveReplaced) {
  GrubHost host;
  ASSERT_EQ(::chmod((host.root() + "/boot/vmlinuz-" + kNew).c_str(), 0666), 0);
  GrubBoot grub = host.grub();
  const auto prepared = grub.prepare(image_of(kNew));
  ASSERT_FALSE(prepared);
  EXPECT_NE(prepared.error().describe().find("vmlinuz-" + kNew), std::string::npos)
      << prepared.error().describe();
}

}  // namespace
}  // namespace kdrift
