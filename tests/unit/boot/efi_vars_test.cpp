#include "boot/efi_vars.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/fs.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <initializer_list>
#include <stdexcept>

#include "support/child_process.h"
#include "support/fixtures.h"

namespace kdrift {
namespace {

using testing::read_bytes;
using testing::TempDir;

std::string bytes_of(std::initializer_list<int> values) {
  std::string out;
  for (const int value : values)
    out.push_back(static_cast<char>(value));
  return out;
}

const EfiVariableId kBootNext{"BootNext", std::string(kEfiGlobalGuid)};
const EfiVariableId kOneShot{"LoaderEntryOneShot", std::string(kSystemdBootLoaderGuid)};

// ---- UTF-16LE

TEST(EfiUtf16, EncodesWithATerminatingNul) {
  EXPECT_EQ(*utf8_to_utf16le("Ab"), bytes_of({'A', 0, 'b', 0, 0, 0}));
  EXPECT_EQ(*utf8_to_utf16le(""), bytes_of({0, 0}));
  // U+00E9 (2 bytes of UTF-8), U+20AC (3), U+1F600 (4: a surrogate pair D83D DE00).
  EXPECT_EQ(*utf8_to_utf16le("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"),
            bytes_of({0xe9, 0x00, 0xac, 0x20, 0x3d, 0xd8, 0x00, 0xde, 0, 0}));
}

TEST(EfiUtf16, RoundTrips) {
  for (const std::string text : {"", "kdrift bisect 3", "\\EFI\\Linux\\vmlinuz-6.8.efi",
                                 "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xef\xbf\xbd"}) {
    auto encoded = utf8_to_utf16le(text);
    ASSERT_TRUE(encoded) << encoded.error().describe();
    auto decoded = utf16le_to_utf8(*encoded);
    ASSERT_TRUE(decoded) << decoded.error().describe();
    EXPECT_EQ(*decoded, text);
  }
}

TEST(EfiUtf16, RefusesTextThatIsNotUtf8) {
  for (const std::string& text : {std::string("\xff"), std::string("\xc0\xaf"),  // overlong '/'
                                  std::string("\xed\xa0\x80"),      // a surrogate written as UTF-8
                                  std::string("ab\xe2\x82"),        // cut short
                                  std::string("\xf4\x90\x80\x80"),  // past U+10FFFF
                                  std::string("a\0b", 3)}) {        // a NUL inside
    const auto encoded = utf8_to_utf16le(text);
    ASSERT_FALSE(encoded) << ::testing::PrintToString(text);
    EXPECT_EQ(encoded.error().code, 0);
  }
}

TEST(EfiUtf16, RefusesMalformedUtf16) {
  const std::string refused[] = {
      bytes_of({'a', 0, 0}),                   // odd length
      bytes_of({'a', 0, 'b', 0}),              // no terminator
      bytes_of({}),                            // not even the terminator
      bytes_of({'a', 0, 0, 0, 'b', 0, 0, 0}),  // a NUL before the end
      bytes_of({0x3d, 0xd8, 'a', 0, 0, 0}),    // high surrogate, then not a low one
      bytes_of({0x3d, 0xd8, 0, 0}),            // high surrogate at the end
      bytes_of({0x00, 0xde, 'a', 0, 0, 0}),    // low surrogate alone
  };
  for (const std::string& bytes : refused) {
    const auto decoded = utf16le_to_utf8(bytes);
    ASSERT_FALSE(decoded) << ::testing::PrintToString(bytes);
    EXPECT_EQ(decoded.error().code, 0);
  }
}

TEST(EfiUtf16, IsBounded) {
  const std::string text(100, 'x');
  EXPECT_TRUE(utf8_to_utf16le(text, 202));
  EXPECT_FALSE(utf8_to_utf16le(text, 201));
  const std::string encoded = *utf8_to_utf16le(text);
  EXPECT_TRUE(utf16le_to_utf8(encoded, 202));
  EXPECT_FALSE(utf16le_to_utf8(encoded, 201));
}

// ---- GUIDs

TEST(EfiGuid, StoresTheFirstThreeFieldsLittleEndian) {
  // EFI_GLOBAL_VARIABLE as the spec writes it: {0x8BE4DF61,0x93CA,0x11d2,{0xAA,0x0D,0x00,0xE0,
  // 0x98,0x03,0x2B,0x8C}}.
  const EfiGuidBytes bytes{0x61, 0xdf, 0xe4, 0x8b, 0xca, 0x93, 0xd2, 0x11,
                           0xaa, 0x0d, 0x00, 0xe0, 0x98, 0x03, 0x2b, 0x8c};
  EXPECT_EQ(efi_guid_text(bytes), kEfiGlobalGuid);
  EXPECT_EQ(parse_efi_guid(kEfiGlobalGuid), bytes);
  EXPECT_EQ(parse_efi_guid("8BE4DF61-93CA-11D2-AA0D-00E098032B8C"), bytes);
  EXPECT_FALSE(parse_efi_guid("8be4df61-93ca-11d2-aa0d-00e098032b8"));
  EXPECT_FALSE(parse_efi_guid("8be4df61+93ca-11d2-aa0d-00e098032b8c"));
  EXPECT_FALSE(parse_efi_guid("8be4df61-93ca-11d2-aa0d-00e098032b8g"));
}

// ---- names

TEST(EfiVariableNames, AreNameDashGuid) {
  EXPECT_EQ(kBootNext.file_name(), "BootNext-8be4df61-93ca-11d2-aa0d-00e098032b8c");
  EXPECT_EQ(parse_efi_variable_file_name("BootNext-8be4df61-93ca-11d2-aa0d-00e098032b8c"),
            kBootNext);
  EXPECT_EQ(parse_efi_variable_file_name("My-Var-4a67b082-0a4c-41cf-b6c7-440b29bb8c4f"),
            (EfiVariableId{"My-Var", std::string(kSystemdBootLoaderGuid)}));
  for (const char* junk : {"BootNext", "BootNext-8BE4DF61-93CA-11D2-AA0D-00E098032B8C",
                           "-8be4df61-93ca-11d2-aa0d-00e098032b8c",
                           "BootNext_8be4df61-93ca-11d2-aa0d-00e098032b8c", ".", "lost+found"}) {
    EXPECT_FALSE(parse_efi_variable_file_name(junk)) << junk;
  }
}

TEST(EfiVariableNames, RefuseASlashControlsAndBadGuids) {
  EXPECT_EQ(efi_variable_id_problem(kBootNext), "");
  for (const EfiVariableId& id :
       {EfiVariableId{"../BootNext", std::string(kEfiGlobalGuid)},
        EfiVariableId{"Boot\n", std::string(kEfiGlobalGuid)},
        EfiVariableId{"", std::string(kEfiGlobalGuid)},
        EfiVariableId{std::string(219, 'x'), std::string(kEfiGlobalGuid)},
        EfiVariableId{"BootNext", "8BE4DF61-93CA-11D2-AA0D-00E098032B8C"},
        EfiVariableId{"BootNext", "8be4df61-93ca-11d2-aa0d-00e098032b8c/.."}}) {
    EXPECT_NE(efi_variable_id_problem(id), "") << id.name << " " << id.guid;
  }
}

TEST(EfiBootNumbers, NameEntriesWithFourUppercaseHexDigits) {
  EXPECT_EQ(boot_entry_name(0x0001), "Boot0001");
  EXPECT_EQ(boot_entry_name(0x100a), "Boot100A");
  EXPECT_EQ(parse_boot_entry_name("Boot100A"), 0x100a);
  EXPECT_EQ(parse_boot_entry_name("BootFFFF"), 0xffff);
  for (const char* other : {"Boot100a", "Boot10A", "Boot1000A", "BootNext", "Driver0001"}) {
    EXPECT_FALSE(parse_boot_entry_name(other)) << other;
  }
}

TEST(EfiBootNumbers, AreLittleEndianU16s) {
  EXPECT_EQ(encode_boot_number(0x1000), bytes_of({0x00, 0x10}));
  EXPECT_EQ(*decode_boot_number(bytes_of({0x03, 0x00})), 3);
  EXPECT_FALSE(decode_boot_number(bytes_of({0x03})));
  EXPECT_FALSE(decode_boot_number(bytes_of({0x03, 0x00, 0x00})));
  EXPECT_EQ(encode_boot_order({3, 0x1000, 0}), bytes_of({3, 0, 0, 0x10, 0, 0}));
  EXPECT_EQ(*decode_boot_order(bytes_of({3, 0, 0, 0x10})), (std::vector<uint16_t>{3, 0x1000}));
  EXPECT_EQ(decode_boot_order("")->size(), 0u);
  EXPECT_FALSE(decode_boot_order(bytes_of({3, 0, 0})));
}

// ---- EFI_LOAD_OPTION

// "Linux" booting \vmlinuz from GPT partition 1 (GUID 3e1e0a1b-f3c2-40d4-b1e5-569a12345678,
// LBAs 0x800 + 0x100000) with the command line "quiet": written byte by byte from UEFI 2.10
// sections 3.1.3 (EFI_LOAD_OPTION) and 10.3.5.1/10.3.5.4 (Hard Drive, File Path media nodes).
const std::string kLinuxOption =
    bytes_of({0x01, 0x00, 0x00, 0x00}) +  // Attributes: LOAD_OPTION_ACTIVE
    bytes_of({0x44, 0x00}) +              // FilePathListLength: 42 + 22 + 4 = 68
    bytes_of({'L', 0, 'i', 0, 'n', 0, 'u', 0, 'x', 0, 0, 0}) +    // Description
    bytes_of({0x04, 0x01, 0x2a, 0x00}) +                          // Hard Drive, 42 bytes
    bytes_of({0x01, 0x00, 0x00, 0x00}) +                          // partition 1
    bytes_of({0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}) +  // start LBA 0x800
    bytes_of({0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00}) +  // size 0x100000 LBAs
    bytes_of({0x1b, 0x0a, 0x1e, 0x3e, 0xc2, 0xf3, 0xd4, 0x40,     // signature: the GUID's
              0xb1, 0xe5, 0x56, 0x9a, 0x12, 0x34, 0x56, 0x78}) +  // mixed-endian bytes
    bytes_of({0x02, 0x02}) +                                      // GPT, a GUID signature
    bytes_of({0x04, 0x04, 0x16, 0x00}) +                          // File Path, 22 bytes
    bytes_of({'\\', 0, 'v', 0, 'm', 0, 'l', 0, 'i', 0, 'n', 0, 'u', 0, 'z', 0, 0, 0}) +
    bytes_of({0x7f, 0xff, 0x04, 0x00}) +                       // End Entire
    bytes_of({'q', 0, 'u', 0, 'i', 0, 'e', 0, 't', 0, 0, 0});  // OptionalData: the command line

constexpr size_t kListStart = 6 + 12;
constexpr size_t kFileNodeStart = kListStart + 42;
constexpr size_t kEndNodeStart = kFileNodeStart + 22;

EfiHardDrive linux_partition() {
  EfiHardDrive drive;
  drive.partition_number = 1;
  drive.start_lba = 0x800;
  drive.size_lba = 0x100000;
  drive.signature = *parse_efi_guid("3e1e0a1b-f3c2-40d4-b1e5-569a12345678");
  return drive;
}

EfiLoadOption linux_option() {
  EfiLoadOption option;
  option.description = "Linux";
  option.file_path_list = {hard_drive_node(linux_partition()), *file_path_node("\\vmlinuz"),
                           end_entire_node()};
  option.optional_data = *utf8_to_utf16le("quiet");
  return option;
}

TEST(EfiLoadOption, ParsesTheSpecsLayout) {
  auto option = parse_efi_load_option(kLinuxOption);
  ASSERT_TRUE(option) << option.error().describe();
  EXPECT_EQ(option->attributes, kEfiLoadOptionActive);
  EXPECT_EQ(option->description, "Linux");
  ASSERT_EQ(option->file_path_list.size(), 3u);
  EXPECT_EQ(*parse_hard_drive_node(option->file_path_list[0]), linux_partition());
  EXPECT_EQ(*parse_file_path_node(option->file_path_list[1]), "\\vmlinuz");
  EXPECT_EQ(option->file_path_list[2], end_entire_node());
  EXPECT_EQ(option->image_path().size(), 2u);
  EXPECT_EQ(*utf16le_to_utf8(option->optional_data), "quiet");
  EXPECT_EQ(describe_device_path(option->file_path_list),
            "HD(1,GPT,3e1e0a1b-f3c2-40d4-b1e5-569a12345678,0x800,0x100000)/File(\\vmlinuz)");
}

TEST(EfiLoadOption, BuildsTheSameBytes) {
  auto built = build_efi_load_option(linux_option());
  ASSERT_TRUE(built) << built.error().describe();
  EXPECT_EQ(*built, kLinuxOption);
  EXPECT_EQ(*parse_efi_load_option(*built), linux_option());
}

TEST(EfiLoadOption, KeepsOtherNodesAndBinaryOptionalData) {
  EfiLoadOption option = linux_option();
  // A vendor node before the path, a second instance after it, and Windows-style binary data.
  option.file_path_list.insert(option.file_path_list.begin(),
                               EfiDevicePathNode{0x01, 0x04, std::string(20, '\x5a')});
  option.file_path_list.back() = {kEfiEndDevicePath, kEfiEndInstanceSubtype, {}};
  option.file_path_list.push_back(*file_path_node("\\other"));
  option.file_path_list.push_back(end_entire_node());
  option.optional_data = bytes_of({'W', 'I', 'N', 0, 0xff, 0x01});
  option.attributes = 0x9;
  auto built = build_efi_load_option(option);
  ASSERT_TRUE(built) << built.error().describe();
  auto parsed = parse_efi_load_option(*built);
  ASSERT_TRUE(parsed) << parsed.error().describe();
  EXPECT_EQ(*parsed, option);
  EXPECT_EQ(parsed->image_path().size(), 3u);
  EXPECT_EQ(describe_device_path(parsed->file_path_list),
            "Node(0x1,0x4)/HD(1,GPT,3e1e0a1b-f3c2-40d4-b1e5-569a12345678,0x800,0x100000)/"
            "File(\\vmlinuz),File(\\other)");
}

TEST(EfiLoadOption, TakesAnEmptyOptionalData) {
  EfiLoadOption option = linux_option();
  option.optional_data.clear();
  const std::string built = *build_efi_load_option(option);
  EXPECT_EQ(built, kLinuxOption.substr(0, kEndNodeStart + 4));
  EXPECT_EQ(*parse_efi_load_option(built), option);
}

void expect_refused(const std::string& bytes, const std::string& why) {
  const auto parsed = parse_efi_load_option(bytes);
  ASSERT_FALSE(parsed) << why;
  EXPECT_EQ(parsed.error().code, 0) << why;
  EXPECT_NE(parsed.error().context.find(why), std::string::npos) << parsed.error().context;
}

TEST(EfiLoadOption, RefusesEveryTruncation) {
  // Cut anywhere before the End node's last byte, something is missing; after it, what is cut is
  // optional data, which has no structure.
  for (size_t size = 0; size < kEndNodeStart + 4; ++size) {
    EXPECT_FALSE(parse_efi_load_option(kLinuxOption.substr(0, size))) << size;
  }
  expect_refused(kLinuxOption.substr(0, 5), "shorter than its 6-byte header");
  expect_refused(kLinuxOption.substr(0, 14), "no NUL terminator");
  expect_refused(kLinuxOption.substr(0, kEndNodeStart), "runs past its end");
}

std::string with_byte(std::string bytes, size_t at, int value) {
  bytes[at] = static_cast<char>(value);
  return bytes;
}

TEST(EfiLoadOption, RefusesNodeLengthsThatCannotBe) {
  expect_refused(with_byte(kLinuxOption, kFileNodeStart + 2, 0), "node of length 0");
  expect_refused(with_byte(kLinuxOption, kFileNodeStart + 2, 3), "node of length 3");
  // The File Path node claiming more than the list holds.
  expect_refused(with_byte(kLinuxOption, kFileNodeStart + 2, 0x30), "past the FilePathList's end");
  // The Hard Drive node one byte short of its fixed 42 (the list shortened to match).
  std::string short_drive = kLinuxOption;
  short_drive.erase(kFileNodeStart - 1, 1);
  short_drive[kListStart + 2] = 41;
  short_drive[4] = 0x43;
  expect_refused(short_drive, "Hard Drive node of 41 bytes");
  // An End node with data in it.
  std::string long_end = kLinuxOption;
  long_end.insert(kEndNodeStart + 4, 2, '\0');
  long_end[kEndNodeStart + 2] = 6;
  long_end[4] = 0x46;
  expect_refused(long_end, "End node of 6 bytes");
}

TEST(EfiLoadOption, RefusesAListWithoutItsEnd) {
  // The list length stops before the End node: it then ends with the File Path node.
  expect_refused(with_byte(kLinuxOption, 4, 0x40), "does not end with an End Entire node");
  // An End This Instance node is not the end of the list.
  expect_refused(with_byte(kLinuxOption, kEndNodeStart + 1, 0x01),
                 "does not end with an End Entire node");
}

TEST(EfiLoadOption, RefusesAFilePathWithoutItsNul) {
  std::string bytes = kLinuxOption;
  bytes[kEndNodeStart - 2] = 'X';  // the NUL of "\vmlinuz" becomes a character
  expect_refused(bytes, "without its terminating NUL");
}

TEST(EfiLoadOption, RefusesOddUtf16) {
  // The File Path node one byte longer: 23 bytes, odd UTF-16.
  std::string bytes = kLinuxOption;
  bytes.insert(kEndNodeStart, 1, '\0');
  bytes[kFileNodeStart + 2] = 23;
  bytes[4] = 0x45;
  expect_refused(bytes, "odd number of bytes");
  // A description with an unpaired surrogate.
  expect_refused(with_byte(with_byte(kLinuxOption, 6, 0x00), 7, 0xdc), "unpaired low surrogate");
}

TEST(EfiLoadOption, RefusesMoreThan64Nodes) {
  EfiLoadOption option = linux_option();
  option.file_path_list.assign(64, EfiDevicePathNode{0x01, 0x04, "x"});
  option.file_path_list.push_back(end_entire_node());
  EXPECT_FALSE(build_efi_load_option(option));
  std::string bytes = bytes_of({1, 0, 0, 0, 0, 0, 0, 0});
  std::string list;
  for (int i = 0; i < 64; ++i)
    list += bytes_of({0x01, 0x04, 0x05, 0x00, 'x'});
  list += bytes_of({0x7f, 0xff, 0x04, 0x00});
  bytes[4] = static_cast<char>(list.size() & 0xff);
  bytes[5] = static_cast<char>(list.size() >> 8);
  expect_refused(bytes + list, "more than 64 nodes");
  list.erase(0, 5);  // 63 nodes and the End node: accepted
  bytes[4] = static_cast<char>(list.size() & 0xff);
  bytes[5] = static_cast<char>(list.size() >> 8);
  EXPECT_TRUE(parse_efi_load_option(bytes + list));
}

TEST(EfiLoadOption, BuildRefusesWhatParseRefuses) {
  EfiLoadOption no_end = linux_option();
  no_end.file_path_list.pop_back();
  EXPECT_FALSE(build_efi_load_option(no_end));
  EfiLoadOption bad_drive = linux_option();
  bad_drive.file_path_list[0].data.pop_back();
  EXPECT_FALSE(build_efi_load_option(bad_drive));
  EfiLoadOption bad_description = linux_option();
  bad_description.description = "\xff";
  EXPECT_FALSE(build_efi_load_option(bad_description));
  EXPECT_FALSE(file_path_node("/boot/vmlinuz"));
  EXPECT_FALSE(file_path_node(""));
}

// ---- the variables directory

// A plain directory standing in for efivarfs.
class FakeEfivars {
 public:
  FakeEfivars() { dir_.mkdir("efivars"); }
  std::string path() const { return dir_.path() + "/efivars"; }
  std::string file(const EfiVariableId& id) const { return path() + "/" + id.file_name(); }
  void put(const EfiVariableId& id, const std::string& bytes) const {
    dir_.write("efivars/" + id.file_name(), bytes);
  }
  const TempDir& dir() const { return dir_; }
  EfiVars open() const {
    auto vars = EfiVars::open(path());
    if (!vars) throw std::runtime_error(vars.error().describe());
    return std::move(*vars);
  }

 private:
  TempDir dir_;
};

TEST(EfiVars, WritesAttributesAndDataInOneFile) {
  const FakeEfivars fake;
  const EfiVars vars = fake.open();
  ASSERT_TRUE(vars.write(kBootNext, {kEfiVariableDefaultAttributes, encode_boot_number(0x1000)}));
  EXPECT_EQ(read_bytes(fake.file(kBootNext)), bytes_of({0x07, 0, 0, 0, 0x00, 0x10}));
  struct stat st {};
  ASSERT_EQ(::stat(fake.file(kBootNext).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  auto read = vars.read(kBootNext);
  ASSERT_TRUE(read) << read.error().describe();
  EXPECT_EQ(read->attributes, kEfiVariableDefaultAttributes);
  EXPECT_EQ(read->data, encode_boot_number(0x1000));
}

TEST(EfiVars, AWriteToAnExistingVariableReplacesIt) {
  const FakeEfivars fake;
  const EfiVars vars = fake.open();
  const std::string long_text = *utf8_to_utf16le("a-rather-long-entry-name.conf");
  ASSERT_TRUE(vars.write(kOneShot, {kEfiVariableDefaultAttributes, long_text}));
  const std::string short_text = *utf8_to_utf16le("b.conf");
  ASSERT_TRUE(vars.write(kOneShot, {0x6, short_text}));
  EXPECT_EQ(read_bytes(fake.file(kOneShot)), bytes_of({0x06, 0, 0, 0}) + short_text);
  EXPECT_EQ(*vars.read(kOneShot), (EfiVariable{0x6, short_text}));
}

TEST(EfiVars, ReadsWhatIsThereAndSaysWhatIsMissing) {
  const FakeEfivars fake;
  fake.put(kBootNext, bytes_of({0x07, 0, 0, 0, 0x03, 0x00}));
  const EfiVars vars = fake.open();
  EXPECT_EQ(*vars.read(kBootNext), (EfiVariable{7, bytes_of({3, 0})}));
  const auto missing = vars.read(kOneShot);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ENOENT);
}

TEST(EfiVars, RefusesASymlinkPlantedAsAVariable) {
  const FakeEfivars fake;
  fake.dir().write("target", std::string("\x07\x00\x00\x00\x03\x00", 6));
  fake.dir().symlink("efivars/" + kBootNext.file_name(), fake.dir().path() + "/target");
  const EfiVars vars = fake.open();
  const auto read = vars.read(kBootNext);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code, ELOOP);
  const auto written = vars.write(kBootNext, {7, encode_boot_number(0x1000)});
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().code, ELOOP) << written.error().describe();
  EXPECT_FALSE(vars.remove(kBootNext));
  EXPECT_EQ(read_bytes(fake.dir().path() + "/target"), std::string("\x07\x00\x00\x00\x03\x00", 6));
  struct stat st {};
  EXPECT_EQ(::lstat(fake.file(kBootNext).c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
}

TEST(EfiVars, RefusesADirectorySymlinkAsTheVariablesDirectory) {
  const FakeEfivars fake;
  fake.dir().symlink("link", fake.path());
  const auto opened = EfiVars::open(fake.dir().path() + "/link");
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().code, ELOOP);
  const auto missing = EfiVars::open(fake.dir().path() + "/absent");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ENOENT);
}

TEST(EfiVars, RefusesAFifoWithoutWaitingForAWriter) {
  const FakeEfivars fake;
  ASSERT_EQ(::mkfifo(fake.file(kBootNext).c_str(), 0644), 0);
  const EfiVars vars = fake.open();
  const auto read = vars.read(kBootNext);
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().describe().find("not a regular file"), std::string::npos);
  EXPECT_FALSE(vars.write(kBootNext, {7, encode_boot_number(1)}));
}

TEST(EfiVars, RefusesOversizedAndTruncatedVariables) {
  const FakeEfivars fake;
  fake.put(kBootNext, std::string(4 + kMaxEfiVariableBytes + 1, 'x'));
  fake.put(kOneShot, bytes_of({7, 0, 0}));
  const EfiVars vars = fake.open();
  const auto oversized = vars.read(kBootNext);
  ASSERT_FALSE(oversized);
  EXPECT_EQ(oversized.error().code, EFBIG);
  const auto truncated = vars.read(kOneShot);
  ASSERT_FALSE(truncated);
  EXPECT_NE(truncated.error().context.find("shorter than a variable's 4 attribute bytes"),
            std::string::npos);
  const EfiVariableId fresh{"Fresh", std::string(kEfiGlobalGuid)};
  const auto too_big = vars.write(fresh, {7, std::string(kMaxEfiVariableBytes + 1, 'x')});
  ASSERT_FALSE(too_big);
  EXPECT_EQ(too_big.error().code, EFBIG);
  EXPECT_FALSE(vars.read(fresh));
  EXPECT_TRUE(vars.write(fresh, {7, std::string(kMaxEfiVariableBytes, 'x')}));
  EXPECT_EQ(vars.read(fresh)->data.size(), kMaxEfiVariableBytes);
}

TEST(EfiVars, RefusesNamesThatAreNotNameDashGuid) {
  const FakeEfivars fake;
  fake.dir().write("BootNext", std::string("\x07\x00\x00\x00\x03\x00", 6));
  const EfiVars vars = fake.open();
  const EfiVariableId escaping{"../BootNext", std::string(kEfiGlobalGuid)};
  for (const auto& refusal : {vars.write(escaping, {7, "x"}), vars.remove(escaping)}) {
    ASSERT_FALSE(refusal);
    EXPECT_EQ(refusal.error().code, EINVAL);
  }
  EXPECT_FALSE(vars.read(escaping));
  EXPECT_FALSE(vars.read(EfiVariableId{"BootNext", "../../BootNext"}));
  EXPECT_EQ(read_bytes(fake.dir().path() + "/BootNext").size(), 6u);
}

TEST(EfiVars, RemovesAndIsIdempotent) {
  const FakeEfivars fake;
  const EfiVars vars = fake.open();
  ASSERT_TRUE(vars.write(kBootNext, {7, encode_boot_number(1)}));
  ASSERT_TRUE(vars.remove(kBootNext));
  EXPECT_EQ(vars.read(kBootNext).error().code, ENOENT);
  EXPECT_TRUE(vars.remove(kBootNext));
}

TEST(EfiVars, ListsWellFormedNamesInOrder) {
  const FakeEfivars fake;
  fake.put(kOneShot, bytes_of({7, 0, 0, 0}));
  fake.put(kBootNext, bytes_of({7, 0, 0, 0, 1, 0}));
  fake.put({"Boot0001", std::string(kEfiGlobalGuid)}, bytes_of({7, 0, 0, 0}));
  fake.dir().write("efivars/README", "not a variable");
  fake.dir().mkdir("efivars/Boot0002-8BE4DF61-93CA-11D2-AA0D-00E098032B8C");
  auto listed = fake.open().list();
  ASSERT_TRUE(listed) << listed.error().describe();
  std::vector<std::string> names;
  for (const EfiVariableId& id : *listed)
    names.push_back(id.name);
  EXPECT_EQ(names, (std::vector<std::string>{"Boot0001", "BootNext", "LoaderEntryOneShot"}));
}

// The immutable flag efivarfs sets is a plain inode flag other filesystems (ext4, tmpfs) have too;
// setting it needs CAP_LINUX_IMMUTABLE.
bool set_immutable(const std::string& path, bool on) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  int flags = 0;
  if (!fd || ::ioctl(fd.get(), FS_IOC_GETFLAGS, &flags) != 0) return false;
  flags = on ? flags | FS_IMMUTABLE_FL : flags & ~FS_IMMUTABLE_FL;
  return ::ioctl(fd.get(), FS_IOC_SETFLAGS, &flags) == 0;
}

bool is_immutable(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  int flags = 0;
  return fd && ::ioctl(fd.get(), FS_IOC_GETFLAGS, &flags) == 0 && (flags & FS_IMMUTABLE_FL) != 0;
}

TEST(EfiVars, ClearsTheImmutableFlagToWriteAndRestoresIt) {
  const FakeEfivars fake;
  fake.put(kOneShot, bytes_of({7, 0, 0, 0, 'a', 0, 0, 0}));
  if (!set_immutable(fake.file(kOneShot), true)) {
    GTEST_SKIP() << "this filesystem or user cannot set FS_IMMUTABLE_FL";
  }
  const EfiVars vars = fake.open();
  const auto written = vars.write(kOneShot, {7, *utf8_to_utf16le("b")});
  const bool still_immutable = is_immutable(fake.file(kOneShot));
  set_immutable(fake.file(kOneShot), false);  // whatever happened, TempDir must remove it
  ASSERT_TRUE(written) << written.error().describe();
  EXPECT_TRUE(still_immutable);
  EXPECT_EQ(vars.read(kOneShot)->data, *utf8_to_utf16le("b"));
  ASSERT_TRUE(set_immutable(fake.file(kOneShot), true));
  const auto removed = vars.remove(kOneShot);
  if (!removed) set_immutable(fake.file(kOneShot), false);
  ASSERT_TRUE(removed) << removed.error().describe();
  EXPECT_EQ(vars.read(kOneShot).error().code, ENOENT);
}

TEST(EfiVars, IgnoresTheMissingImmutableFlagOfAPlainDirectory) {
  // Whether or not the filesystem has inode flags, a variable without the flag is replaced and
  // removed as it is.
  const FakeEfivars fake;
  fake.put(kBootNext, bytes_of({7, 0, 0, 0, 1, 0}));
  const EfiVars vars = fake.open();
  ASSERT_TRUE(vars.write(kBootNext, {7, encode_boot_number(2)}));
  EXPECT_FALSE(is_immutable(fake.file(kBootNext)));
  ASSERT_TRUE(vars.remove(kBootNext));
}

int check_writable_says(const std::string& directory, int code, const std::string& words) {
  auto vars = EfiVars::open(directory);
  if (!vars) return 10;
  const auto writable = vars->check_writable();
  if (writable || writable.error().code != code) return 11;
  if (writable.error().context.find(words) == std::string::npos) return 12;
  const auto written = vars->write(kBootNext, {7, encode_boot_number(1)});
  return written || written.error().code != code ? 13 : 0;
}

TEST(EfiVars, SaysWhenTheDirectoryIsMountedReadOnly) {
  const FakeEfivars fake;
  EXPECT_TRUE(fake.open().check_writable());
  const std::string path = fake.path();
  const int status = testing::exit_status_in_child([&] {
    // A mount namespace of the child's own, so the read-only bind mount is seen by nobody else.
    if (::unshare(CLONE_NEWNS) != 0) return 77;
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return 77;
    if (::mount(path.c_str(), path.c_str(), nullptr, MS_BIND, nullptr) != 0) return 77;
    if (::mount(nullptr, path.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) != 0) {
      return 77;
    }
    return check_writable_says(path, EROFS, "efivarfs is mounted read-only");
  });
  if (status == 77) GTEST_SKIP() << "no mount namespace for this user";
  EXPECT_EQ(status, 0);
  EXPECT_EQ(read_bytes(fake.file(kBootNext)), "");
}

TEST(EfiVars, SaysWhenTheDirectoryIsNotWritableForThisUser) {
  const FakeEfivars fake;
  ASSERT_EQ(::chmod(fake.dir().path().c_str(), 0755), 0);
  ASSERT_EQ(::chmod(fake.path().c_str(), 0555), 0);
  const std::string path = fake.path();
  const int status = testing::exit_status_in_child([&] {
    constexpr uid_t kNobody = 65534;
    if (::geteuid() == 0 && (::setresgid(kNobody, kNobody, kNobody) != 0 ||
                             ::setresuid(kNobody, kNobody, kNobody) != 0)) {
      return 77;
    }
    return check_writable_says(path, EACCES, "read-only for this user");
  });
  EXPECT_EQ(status, 0);
}

}  // namespace
}  // namespace kdrift
