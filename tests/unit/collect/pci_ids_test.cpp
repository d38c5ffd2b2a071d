#include "collect/pci_ids.h"

#include <gtest/gtest.h>

extern "C" {
#include <pci/pci.h>
}

#include <string>
#include <vector>

#include "collect/pci.h"
#include "support/fixtures.h"
#include "util/gzip.h"

namespace kdrift {
namespace {

const std::string kSample =
    "# comment\n"
    "\n"
    "1af4  Red Hat, Inc.\n"
    "\t1001  Virtio block device\n"
    "# a comment inside a vendor ends nothing\n"
    "\t1042  Virtio 1.0 block device\n"
    "\t\t1af4 1100  QEMU Virtual Machine\n"
    "\t1048  Virtio SCSI \n"
    "1b36  Red Hat, Inc.\r\n"
    "\t0010  QEMU NVM Express Controller\r\n"
    "zzzz  not a vendor\n"
    "\t0001  belongs to nobody\n"
    "1af4  listed twice\n"
    "\t1001  second\n"
    "C 01  Mass storage controller\n"
    "\t08  Non-Volatile memory controller\n"
    "\t\t02  NVM Express\n"
    "C 06  Bridge\n"
    "\t04  PCI bridge\n";

TEST(PciIdDatabase, NamesAVendorItsDevicesAndAClass) {
  const auto ids = PciIdDatabase::from_text(kSample);
  EXPECT_EQ(ids.vendor(0x1af4), "Red Hat, Inc.");
  EXPECT_EQ(ids.device(0x1af4, 0x1001), "Virtio block device");
  EXPECT_EQ(ids.device(0x1af4, 0x1042), "Virtio 1.0 block device") << "past a comment line";
  EXPECT_EQ(ids.device(0x1af4, 0x1048), "Virtio SCSI") << "one trailing blank dropped";
  EXPECT_EQ(ids.device(0x1b36, 0x0010), "QEMU NVM Express Controller") << "CRLF";
  EXPECT_EQ(ids.class_name(0x0108), "Non-Volatile memory controller");
  EXPECT_EQ(ids.class_name(0x0604), "PCI bridge");
}

TEST(PciIdDatabase, UnknownIdsAreEmptyAndAKnownClassCarriesItsNumber) {
  const auto ids = PciIdDatabase::from_text(kSample);
  EXPECT_EQ(ids.vendor(0x8086), "");
  EXPECT_EQ(ids.device(0x1af4, 0x1100), "") << "a subsystem line is not a device";
  EXPECT_EQ(ids.device(0x8086, 0x1001), "");
  EXPECT_EQ(ids.class_name(0x01ff), "Mass storage controller [01ff]");
  EXPECT_EQ(ids.class_name(0x0200), "");
}

TEST(PciIdDatabase, AMalformedLineEndsTheBlockAndTheFirstEntryOfAnIdWins) {
  const auto ids = PciIdDatabase::from_text(kSample);
  EXPECT_EQ(ids.device(0x1b36, 0x0001), "") << "a device after a malformed vendor line";
  EXPECT_EQ(ids.vendor(0x1af4), "Red Hat, Inc.");
  EXPECT_EQ(ids.device(0x1af4, 0x1001), "Virtio block device");
}

TEST(PciIdDatabase, ALongNameEndsInAnEllipsisWithinLibpcisBuffer) {
  const auto ids =
      PciIdDatabase::from_text("abcd  " + std::string(300, 'v') + "\n\t0001  " +
                               std::string(256, 'd') + "\n\t0002  " + std::string(255, 'e') + "\n");
  EXPECT_EQ(ids.vendor(0xabcd), std::string(124, 'v') + "...");
  EXPECT_EQ(ids.device(0xabcd, 0x0001), std::string(252, 'd') + "...");
  EXPECT_EQ(ids.device(0xabcd, 0x0002), std::string(255, 'e'));
}

TEST(PciIdDatabase, AFileThatIsNotThereOrNotAFileIsAnErrorNamingIt) {
  testing::TempDir dir;
  auto missing = PciIdDatabase::open(dir.path() + "/pci.ids");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().describe().find(dir.path() + "/pci.ids"), std::string::npos);
  EXPECT_FALSE(PciIdDatabase::open(dir.path()));
  EXPECT_FALSE(PciIdDatabase::open("/dev/zero"));
}

TEST(PciIdDatabase, AGzippedDatabaseIsInflated) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/pci.ids.gz";
  dir.write("pci.ids.gz", *gzip(kSample, "sample"));
  auto ids = PciIdDatabase::open(path);
  ASSERT_TRUE(ids) << ids.error().describe();
  EXPECT_EQ(ids->device(0x1b36, 0x0010), "QEMU NVM Express Controller");
}

// The installed pci.ids read both ways: every vendor, every class and subclass, and the devices
// of the storage vendors, named as pci_lookup_name names them.
TEST(PciIdDatabase, NamesWhatLibpciNamesFromTheInstalledDatabase) {
  const std::string file = pci_ids_file();
  auto ids = PciIdDatabase::open(file);
  if (!ids) GTEST_SKIP() << "no PCI ID database: " << ids.error().describe();
  pci_access* access = pci_alloc();
  access->id_lookup_mode = 0;
  pci_init(access);
  ASSERT_EQ(pci_load_name_list(access), 1);
  constexpr int kFlags = PCI_LOOKUP_NO_NUMBERS | PCI_LOOKUP_NO_HWDB;
  auto libpci = [&](int what, auto... ids_) {
    char buffer[256] = {};
    const char* name = pci_lookup_name(access, buffer, what == PCI_LOOKUP_DEVICE ? 256 : 128,
                                       what | kFlags, ids_...);
    return name == nullptr ? std::string() : std::string(buffer);
  };
  int named = 0;
  for (int vendor = 0; vendor <= 0xffff; ++vendor) {
    const std::string expected = libpci(PCI_LOOKUP_VENDOR, vendor);
    ASSERT_EQ(ids->vendor(static_cast<uint16_t>(vendor)), expected) << std::hex << vendor;
    named += expected.empty() ? 0 : 1;
  }
  EXPECT_GT(named, 1000);
  for (int cls = 0; cls <= 0xffff; ++cls) {
    ASSERT_EQ(ids->class_name(static_cast<uint16_t>(cls)), libpci(PCI_LOOKUP_CLASS, cls))
        << std::hex << cls;
  }
  for (const int vendor : {0x1af4, 0x1b36, 0x144d, 0x15b7, 0x1000, 0x1e0f, 0x1c5c, 0x8086}) {
    for (int device = 0; device <= 0xffff; device += vendor == 0x8086 ? 7 : 1) {
      ASSERT_EQ(ids->device(static_cast<uint16_t>(vendor), static_cast<uint16_t>(device)),
                libpci(PCI_LOOKUP_DEVICE, vendor, device))
          << std::hex << vendor << ":" << device;
    }
  }
  pci_cleanup(access);
}

}  // namespace
}  // namespace kdrift
