#include "boot/boot_modes.h"

#include <gtest/gtest.h>

#include <sstream>

namespace kdrift {
namespace {

// kexec's preflight passed; GRUB can boot an entry once, unless grub_usable is false.
BootModes kexec_and_grub(bool grub_usable) {
  BootModes modes;
  modes.loaders.push_back({{"grub", "/boot/grub"}, grub_usable, "grub.cfg boots an entry once"});
  return modes;
}

TEST(ChooseBootMode, AutoTakesKexecWhereItWorks) {
  const auto chosen = choose_boot_mode(kexec_and_grub(true), "auto", "");
  ASSERT_TRUE(chosen) << chosen.error().describe();
  EXPECT_EQ(chosen->mode, "kexec");
}

TEST(ChooseBootMode, AutoRebootsWhereKexecdKernelsLostDevicesBefore) {
  BootModes modes = kexec_and_grub(true);
  modes.kexec_lost_devices = true;
  modes.kexec_history = "kexec'd kernels lost devices on this host before: nvme0n1";
  const auto chosen = choose_boot_mode(modes, "auto", "");
  ASSERT_TRUE(chosen) << chosen.error().describe();
  EXPECT_EQ(chosen->mode, "reboot");
  EXPECT_EQ(chosen->loader.loader, "grub");
  EXPECT_EQ(chosen->why,
            "auto: kexec works, but kexec'd kernels lost devices on this host before: nvme0n1; "
            "grub.cfg boots an entry once");
  // Asked for by name, kexec is the user's call; without a loader, auto keeps kexec.
  EXPECT_EQ(choose_boot_mode(modes, "kexec", "")->mode, "kexec");
  modes.loaders[0].usable = false;
  EXPECT_EQ(choose_boot_mode(modes, "auto", "")->mode, "kexec");
}

TEST(ChooseBootMode, KexecAskedForWhereItCannotIsRefusedWithWhy) {
  BootModes modes = kexec_and_grub(true);
  modes.kexec.problems.push_back("the kernel is locked down (integrity)");
  const auto refused = choose_boot_mode(modes, "kexec", "");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().describe().find("locked down (integrity)"), std::string::npos);
  const auto chosen = choose_boot_mode(modes, "auto", "");
  ASSERT_TRUE(chosen);
  EXPECT_EQ(chosen->mode, "reboot");
  EXPECT_NE(chosen->why.find("auto: kexec cannot (the kernel is locked down"), std::string::npos);
}

TEST(PrintBootModes, TheHistoryIsPrintedUnderKexec) {
  BootModes modes = kexec_and_grub(true);
  modes.kexec_history = "2 kexec'd boots in the boot history (D, 9 boots) kept every device";
  std::ostringstream out;
  print_boot_modes(modes, out);
  EXPECT_EQ(out.str(),
            "kexec: usable\n"
            "  history: 2 kexec'd boots in the boot history (D, 9 boots) kept every device\n"
            "reboot through grub (/boot/grub): usable\n"
            "  grub.cfg boots an entry once\n");
}

}  // namespace
}  // namespace kdrift
