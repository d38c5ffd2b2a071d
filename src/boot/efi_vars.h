#pragma once
// UEFI variables, read and written through efivarfs (/sys/firmware/efi/efivars), and the formats
// the boot variables hold: the one-shot boot methods (UEFI BootNext, systemd-boot's
// LoaderEntryOneShot) tell the firmware or the loader what to boot next through them.
//
// Whatever a variable holds came from firmware, a loader or another program, and a directory
// standing in for efivarfs may hold anything: the directory is opened once and every variable is
// reached through that descriptor, never through a symbolic link, only as a regular file and
// never bigger than kMaxEfiVariableBytes. The codecs below parse strictly and bounded: a field
// that runs past its container, a string without its terminator, a length that cannot be is an
// error, never a guess.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"
#include "util/sysroot.h"
#include "util/unique_fd.h"

namespace kdrift {

// The vendor GUID of the variables the UEFI specification defines (Boot####, BootNext,
// BootCurrent, BootOrder, SecureBoot).
inline constexpr std::string_view kEfiGlobalGuid = "8be4df61-93ca-11d2-aa0d-00e098032b8c";
// systemd-boot's (LoaderEntryOneShot, LoaderEntryDefault, LoaderInfo, LoaderEntries).
inline constexpr std::string_view kSystemdBootLoaderGuid = "4a67b082-0a4c-41cf-b6c7-440b29bb8c4f";

inline constexpr uint32_t kEfiVariableNonVolatile = 0x1;
inline constexpr uint32_t kEfiVariableBootServiceAccess = 0x2;
inline constexpr uint32_t kEfiVariableRuntimeAccess = 0x4;
// NV|BS|RT: what boot entries and the loader's one-shot choice are written with.
inline constexpr uint32_t kEfiVariableDefaultAttributes =
    kEfiVariableNonVolatile | kEfiVariableBootServiceAccess | kEfiVariableRuntimeAccess;

// A variable's data, without its 4 attribute bytes. Firmware gives a variable a few KiB at most
// (a boot entry with a long command line stays below 4 KiB); anything bigger is refused.
inline constexpr size_t kMaxEfiVariableBytes = size_t{64} << 10;

// Where the live host's efivarfs is mounted, as a path on the host.
inline constexpr std::string_view kEfivarsPath = "/sys/firmware/efi/efivars";

// kEfivarsPath below root, as a path on this machine: the live host's own, or a directory tree
// given as the root (a test's fake efivars). An error for a root held in memory (a dump), whose
// variables cannot be written, and when the directory does not exist.
Result<std::string> efivars_directory(const SysRoot& root);

// A variable's name in efivarfs: "Name-GUID". The name is printable ASCII without '/', the GUID
// 36 characters of lowercase hex with dashes.
struct EfiVariableId {
  std::string name;
  std::string guid;
  std::string file_name() const { return name + "-" + guid; }
  bool operator==(const EfiVariableId&) const = default;
};

// Empty when id is well formed, else why not.
std::string efi_variable_id_problem(const EfiVariableId& id);
// "Boot0001-8be4df61-..." -> {"Boot0001", "8be4df61-..."}; nullopt for anything else.
std::optional<EfiVariableId> parse_efi_variable_file_name(std::string_view file_name);

struct EfiVariable {
  uint32_t attributes = kEfiVariableDefaultAttributes;
  std::string data;
  bool operator==(const EfiVariable&) const = default;
};

// An efivarfs directory (or a plain directory standing in for one), opened once.
class EfiVars {
 public:
  // directory opened O_DIRECTORY|O_NOFOLLOW. ENOENT when it does not exist (not an EFI boot).
  static Result<EfiVars> open(const std::string& directory);

  const std::string& path() const { return path_; }

  // ENOENT when the variable does not exist; ELOOP for a symbolic link; a content error for
  // anything but a regular file, one shorter than its attributes or bigger than the limit.
  Result<EfiVariable> read(const EfiVariableId& id) const;
  // Creates the variable or replaces the one there, in one write of attributes and data, as
  // efivarfs needs. An existing one is first made mutable (efivarfs marks variables immutable
  // unless the kernel knows them to be safe to change) and made immutable again after.
  Status write(const EfiVariableId& id, const EfiVariable& variable) const;
  // Deletes the variable; one that does not exist is not an error (an undo may run twice).
  Status remove(const EfiVariableId& id) const;
  // Every entry whose name is a well-formed "Name-GUID", sorted by file name; other entries are
  // ignored. More than kMaxEfiVariables entries is an error.
  Result<std::vector<EfiVariableId>> list() const;
  // ok when variables can be written here; EROFS ("efivarfs is mounted read-only") or EACCES
  // otherwise. Changes nothing.
  Status check_writable() const;

 private:
  EfiVars(std::string path, UniqueFd fd) : path_(std::move(path)), fd_(std::move(fd)) {}
  std::string shown(const EfiVariableId& id) const;
  Status write_existing(const std::string& file_name, const std::string& bytes,
                        const std::string& shown) const;

  std::string path_;
  UniqueFd fd_;
};

// Firmware holds a few hundred variables at most.
inline constexpr size_t kMaxEfiVariables = 10000;

// UTF-8 -> UTF-16LE with a terminating NUL, as UEFI and systemd-boot store strings. Refuses
// invalid UTF-8 (overlong forms, surrogates, cut-short sequences), a NUL inside the text and text
// longer than max_bytes of UTF-16.
Result<std::string> utf8_to_utf16le(std::string_view text, size_t max_bytes = kMaxEfiVariableBytes);
// UTF-16LE bytes ending in their one NUL -> UTF-8. Refuses an odd length, a missing terminator, a
// NUL before the end, an unpaired surrogate and more than max_bytes.
Result<std::string> utf16le_to_utf8(std::string_view bytes,
                                    size_t max_bytes = kMaxEfiVariableBytes);

// GUIDs as device paths and GPT store them: the first three fields little-endian, the rest in
// order ("mixed-endian", UEFI spec appendix A).
using EfiGuidBytes = std::array<uint8_t, 16>;
std::string efi_guid_text(const EfiGuidBytes& bytes);               // lowercase, with dashes
std::optional<EfiGuidBytes> parse_efi_guid(std::string_view text);  // either case

// A device path node (UEFI spec 10.3.1): type, subtype and the bytes after its 4-byte header.
struct EfiDevicePathNode {
  uint8_t type = 0;
  uint8_t subtype = 0;
  std::string data;
  bool operator==(const EfiDevicePathNode&) const = default;
};

inline constexpr uint8_t kEfiMediaDevicePath = 0x04;
inline constexpr uint8_t kEfiHardDriveSubtype = 0x01;
inline constexpr uint8_t kEfiFilePathSubtype = 0x04;
inline constexpr uint8_t kEfiEndDevicePath = 0x7f;
inline constexpr uint8_t kEfiEndEntireSubtype = 0xff;
inline constexpr uint8_t kEfiEndInstanceSubtype = 0x01;
inline constexpr size_t kMaxEfiDevicePathNodes = 64;

// The Hard Drive media node (type 4, subtype 1, 42 bytes): the partition a path starts on.
struct EfiHardDrive {
  uint32_t partition_number = 0;
  uint64_t start_lba = 0;
  uint64_t size_lba = 0;
  EfiGuidBytes signature{};    // the GPT partition GUID, mixed-endian
  uint8_t format = 2;          // 2: GPT
  uint8_t signature_type = 2;  // 2: a GUID
  bool operator==(const EfiHardDrive&) const = default;
};
inline constexpr uint8_t kEfiPartitionFormatGpt = 2;
inline constexpr uint8_t kEfiSignatureTypeGuid = 2;

EfiDevicePathNode hard_drive_node(const EfiHardDrive& drive);
Result<EfiHardDrive> parse_hard_drive_node(const EfiDevicePathNode& node);
// A File Path node from a path on the partition with backslashes ("\EFI\Linux\vmlinuz.efi").
Result<EfiDevicePathNode> file_path_node(std::string_view path);
Result<std::string> parse_file_path_node(const EfiDevicePathNode& node);
EfiDevicePathNode end_entire_node();
// "HD(1,GPT,<guid>,0x800,0x100000)/File(\EFI\...)", efibootmgr's way, for messages; unknown
// nodes as "Node(type,subtype)".
std::string describe_device_path(const std::vector<EfiDevicePathNode>& nodes);

inline constexpr uint32_t kEfiLoadOptionActive = 0x1;

// EFI_LOAD_OPTION (UEFI spec 3.1.3), what a Boot#### variable holds.
struct EfiLoadOption {
  uint32_t attributes = kEfiLoadOptionActive;
  std::string description;  // UTF-8
  // The FilePathList's nodes in order, End nodes included: the first device path (the image's)
  // runs to the first End node; the list ends with an End Entire node.
  std::vector<EfiDevicePathNode> file_path_list;
  std::string optional_data;  // raw: a Linux EFI stub reads its command line here, in UTF-16LE
  bool operator==(const EfiLoadOption&) const = default;

  // The first device path's nodes, without its End node.
  std::vector<EfiDevicePathNode> image_path() const;
};

// Strict: every length inside the variable, the description and File Path nodes UTF-16 with their
// NUL, node lengths at least 4 and inside the list, known nodes of their fixed size, at most
// kMaxEfiDevicePathNodes nodes, the list ending in an End Entire node exactly at its length.
Result<EfiLoadOption> parse_efi_load_option(std::string_view bytes);
// The bytes parse_efi_load_option reads back as option; refuses what it would refuse.
Result<std::string> build_efi_load_option(const EfiLoadOption& option);

// "Boot0001" for 1: four uppercase hex digits, as firmware names boot entries.
std::string boot_entry_name(uint16_t number);
// "Boot001F" -> 0x1f; nullopt for anything else, lowercase hex included.
std::optional<uint16_t> parse_boot_entry_name(std::string_view name);

// BootNext and BootCurrent: one little-endian u16.
std::string encode_boot_number(uint16_t number);
Result<uint16_t> decode_boot_number(std::string_view data);
// BootOrder: little-endian u16s.
std::string encode_boot_order(const std::vector<uint16_t>& order);
Result<std::vector<uint16_t>> decode_boot_order(std::string_view data);

}  // namespace kdrift
