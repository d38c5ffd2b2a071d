#include "boot/efi_vars.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "util/input_file.h"
#include "util/text.h"

namespace kdrift {
namespace {

// efivarfs file names are at most NAME_MAX: the name, a dash and the 36-character GUID.
constexpr size_t kEfiGuidTextLength = 36;
constexpr size_t kMaxEfiVariableNameLength = 255 - 1 - kEfiGuidTextLength;

uint16_t efi_le16(std::string_view bytes, size_t at) {
  const auto low = static_cast<uint8_t>(bytes[at]);
  const auto high = static_cast<uint8_t>(bytes[at + 1]);
  return static_cast<uint16_t>(low | high << 8);
}

uint32_t efi_le32(std::string_view bytes, size_t at) {
  const uint32_t low = efi_le16(bytes, at);
  const uint32_t high = efi_le16(bytes, at + 2);
  return low | high << 16;
}

uint64_t efi_le64(std::string_view bytes, size_t at) {
  const uint64_t low = efi_le32(bytes, at);
  const uint64_t high = efi_le32(bytes, at + 4);
  return low | high << 32;
}

void append_efi_le(std::string& out, uint64_t value, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i)
    out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

bool is_lower_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

bool is_guid_dash_position(size_t i) {
  return i == 8 || i == 13 || i == 18 || i == 23;
}

std::string efi_guid_problem(std::string_view guid) {
  if (guid.size() != kEfiGuidTextLength) return "a GUID is 36 characters";
  for (size_t i = 0; i < guid.size(); ++i) {
    const bool ok = is_guid_dash_position(i) ? guid[i] == '-' : is_lower_hex(guid[i]);
    if (!ok) return "a GUID is lowercase hex digits with dashes (8-4-4-4-12)";
  }
  return {};
}

// What efivarfs or a write through it said, with the remedy where there is one.
Error efivars_write_error(int code, const std::string& what) {
  if (code == EROFS) return make_error(code, what + " (efivarfs is mounted read-only)");
  return make_error(code, what);
}

// Whether the descriptor's file is marked immutable, clearing the mark: efivarfs marks every
// variable the kernel does not know to be safe to change, and refuses to open those for writing
// or to unlink them. A plain directory standing in for efivarfs may have no such flags (ENOTTY,
// EOPNOTSUPP): nothing to clear.
Result<bool> clear_immutable(int fd, const std::string& shown) {
  int flags = 0;
  if (::ioctl(fd, FS_IOC_GETFLAGS, &flags) != 0) {
    if (errno == ENOTTY || errno == EOPNOTSUPP) return false;
    return make_error(errno, "cannot read the inode flags of " + shown);
  }
  if ((flags & FS_IMMUTABLE_FL) == 0) return false;
  flags &= ~FS_IMMUTABLE_FL;
  if (::ioctl(fd, FS_IOC_SETFLAGS, &flags) != 0) {
    return make_error(errno, "cannot clear the immutable flag of " + shown);
  }
  return true;
}

void restore_immutable(int fd) {
  int flags = 0;
  if (::ioctl(fd, FS_IOC_GETFLAGS, &flags) != 0) return;
  flags |= FS_IMMUTABLE_FL;
  // The variable is written; failing to protect it again leaves it as efivarfs leaves the
  // variables it considers safe to change, which is no reason to report the write as failed.
  (void)::ioctl(fd, FS_IOC_SETFLAGS, &flags);
}

// The variable's file opened without following a symbolic link or blocking on a FIFO, checked on
// the descriptor to be a regular file.
Result<UniqueFd> open_variable_file(int directory, const std::string& file_name, int flags,
                                    const std::string& shown) {
  UniqueFd fd(::openat(directory, file_name.c_str(),
                       flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!fd) {
    const int code = errno;
    if (code == ELOOP) return make_error(code, shown + " is a symbolic link, not a variable");
    return efivars_write_error(code, "cannot open " + shown);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return make_error(errno, "cannot stat " + shown);
  if (!S_ISREG(st.st_mode)) return content_error(shown + " is not a regular file");
  return fd;
}

// efivarfs takes a variable only whole: attributes and data in one write() call.
Status write_variable_once(int fd, const std::string& bytes, const std::string& shown) {
  ssize_t written = -1;
  do {
    written = ::write(fd, bytes.data(), bytes.size());
  } while (written < 0 && errno == EINTR);
  if (written < 0) return efivars_write_error(errno, "cannot write " + shown);
  if (static_cast<size_t>(written) != bytes.size()) {
    return make_error(EIO, "cannot write " + shown + ": " + std::to_string(written) + " of " +
                               std::to_string(bytes.size()) + " bytes written");
  }
  return ok_status();
}

bool same_variable_file(int a, int b) {
  struct stat first {};
  struct stat second {};
  return ::fstat(a, &first) == 0 && ::fstat(b, &second) == 0 && first.st_dev == second.st_dev &&
         first.st_ino == second.st_ino;
}

}  // namespace

Result<std::string> efivars_directory(const SysRoot& root) {
  auto path = root.host_path(kEfivarsPath);
  if (!path) {
    return make_error(path.error().code, std::string(kEfivarsPath) + " below " + root.root());
  }
  return path;
}

std::string efi_variable_id_problem(const EfiVariableId& id) {
  if (id.name.empty()) return "an empty variable name";
  if (id.name.size() > kMaxEfiVariableNameLength) {
    return "a variable name longer than " + std::to_string(kMaxEfiVariableNameLength) + " bytes";
  }
  for (const char c : id.name) {
    if (c < 0x20 || c > 0x7e || c == '/') {
      return "the variable name " + quote_value(id.name) + " is not printable ASCII without '/'";
    }
  }
  const std::string guid = efi_guid_problem(id.guid);
  return guid.empty() ? guid : quote_value(id.guid) + ": " + guid;
}

std::optional<EfiVariableId> parse_efi_variable_file_name(std::string_view file_name) {
  if (file_name.size() < kEfiGuidTextLength + 2) return std::nullopt;
  const size_t dash = file_name.size() - kEfiGuidTextLength - 1;
  if (file_name[dash] != '-') return std::nullopt;
  EfiVariableId id{std::string(file_name.substr(0, dash)), std::string(file_name.substr(dash + 1))};
  if (!efi_variable_id_problem(id).empty()) return std::nullopt;
  return id;
}

Result<EfiVars> EfiVars::open(const std::string& directory) {
  UniqueFd fd(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) {
    const int code = errno;
    // O_DIRECTORY makes a symbolic link ENOTDIR rather than ELOOP: say which it was.
    struct stat st {};
    if ((code == ENOTDIR || code == ELOOP) && ::lstat(directory.c_str(), &st) == 0 &&
        S_ISLNK(st.st_mode)) {
      return make_error(ELOOP, directory + " is a symbolic link; name the directory itself");
    }
    return make_error(code, "cannot open the EFI variables directory " + directory);
  }
  return EfiVars(directory, std::move(fd));
}

std::string EfiVars::shown(const EfiVariableId& id) const {
  return path_ + "/" + id.file_name();
}

Result<EfiVariable> EfiVars::read(const EfiVariableId& id) const {
  if (auto problem = efi_variable_id_problem(id); !problem.empty()) {
    return make_error(EINVAL, path_ + ": " + problem);
  }
  const std::string shown_name = shown(id);
  auto bytes = read_whole_file_at(fd_.get(), id.file_name(), shown_name, 4 + kMaxEfiVariableBytes);
  if (!bytes) {
    if (bytes.error().code == ELOOP) {
      return make_error(ELOOP, shown_name + " is a symbolic link, not a variable");
    }
    return bytes.error();
  }
  if (bytes->size() < 4) {
    return content_error(shown_name + ": " + std::to_string(bytes->size()) +
                         " bytes, shorter than a variable's 4 attribute bytes");
  }
  return EfiVariable{efi_le32(*bytes, 0), bytes->substr(4)};
}

Status EfiVars::write(const EfiVariableId& id, const EfiVariable& variable) const {
  if (auto problem = efi_variable_id_problem(id); !problem.empty()) {
    return make_error(EINVAL, path_ + ": " + problem);
  }
  const std::string shown_name = shown(id);
  if (variable.data.size() > kMaxEfiVariableBytes) {
    return size_limit_error(shown_name, kMaxEfiVariableBytes);
  }
  std::string bytes;
  append_efi_le(bytes, variable.attributes, 4);
  bytes += variable.data;
  const std::string file_name = id.file_name();
  UniqueFd created(::openat(fd_.get(), file_name.c_str(),
                            O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0644));
  if (created) {
    auto written = write_variable_once(created.get(), bytes, shown_name);
    // An empty file is no variable: leave the name as it was, absent.
    if (!written) (void)::unlinkat(fd_.get(), file_name.c_str(), 0);
    return written;
  }
  if (errno != EEXIST) return efivars_write_error(errno, "cannot create " + shown_name);
  return write_existing(file_name, bytes, shown_name);
}

// efivarfs replaces a variable on write; the truncation is for a plain directory, where a shorter
// variable would otherwise keep the old one's tail.
Status EfiVars::write_existing(const std::string& file_name, const std::string& bytes,
                               const std::string& shown_name) const {
  auto existing = open_variable_file(fd_.get(), file_name, O_RDONLY, shown_name);
  if (!existing) return existing.error();
  auto was_immutable = clear_immutable(existing->get(), shown_name);
  if (!was_immutable) return was_immutable.error();
  auto output = open_variable_file(fd_.get(), file_name, O_WRONLY | O_TRUNC, shown_name);
  if (!output) return output.error();
  if (!same_variable_file(existing->get(), output->get())) {
    return make_error(EAGAIN, shown_name + " was replaced while kdrift wrote it");
  }
  auto written = write_variable_once(output->get(), bytes, shown_name);
  if (*was_immutable) restore_immutable(existing->get());
  return written;
}

Status EfiVars::remove(const EfiVariableId& id) const {
  if (auto problem = efi_variable_id_problem(id); !problem.empty()) {
    return make_error(EINVAL, path_ + ": " + problem);
  }
  const std::string shown_name = shown(id);
  const std::string file_name = id.file_name();
  auto existing = open_variable_file(fd_.get(), file_name, O_RDONLY, shown_name);
  if (!existing) return existing.error().code == ENOENT ? ok_status() : existing.error();
  auto was_immutable = clear_immutable(existing->get(), shown_name);
  if (!was_immutable) return was_immutable.error();
  if (::unlinkat(fd_.get(), file_name.c_str(), 0) != 0 && errno != ENOENT) {
    const int code = errno;
    if (*was_immutable) restore_immutable(existing->get());
    return efivars_write_error(code, "cannot delete " + shown_name);
  }
  return ok_status();
}

Result<std::vector<EfiVariableId>> EfiVars::list() const {
  UniqueDir dir(::fdopendir(::fcntl(fd_.get(), F_DUPFD_CLOEXEC, 0)));
  if (!dir) return make_error(errno, "cannot list " + path_);
  ::rewinddir(dir.get());
  std::vector<EfiVariableId> ids;
  size_t entries = 0;
  errno = 0;
  while (const dirent* entry = ::readdir(dir.get())) {
    const std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    if (++entries > kMaxEfiVariables) {
      return content_error(path_ + ": more than " + std::to_string(kMaxEfiVariables) +
                           " entries, more than any firmware holds");
    }
    if (auto id = parse_efi_variable_file_name(name)) ids.push_back(std::move(*id));
  }
  if (errno != 0) return make_error(errno, "cannot list " + path_);
  std::sort(ids.begin(), ids.end(), [](const EfiVariableId& a, const EfiVariableId& b) {
    return a.file_name() < b.file_name();
  });
  return ids;
}

Status EfiVars::check_writable() const {
  struct statvfs fs {};
  if (::fstatvfs(fd_.get(), &fs) != 0) return make_error(errno, "cannot stat " + path_);
  if ((fs.f_flag & ST_RDONLY) != 0) {
    return make_error(EROFS, path_ + ": efivarfs is mounted read-only; kdrift cannot set the " +
                                 "next boot until it is remounted read-write (mount -o " +
                                 "remount,rw " + path_ + ")");
  }
  if (::faccessat(fd_.get(), ".", W_OK, AT_EACCESS) != 0) {
    const int code = errno;
    if (code == EROFS) return make_error(code, path_ + ": efivarfs is mounted read-only");
    return make_error(code, path_ + ": efivarfs is mounted read-only for this user (no write " +
                                "permission): setting the next boot needs root");
  }
  return ok_status();
}

// ---- UTF-16LE

namespace {

// The code point of the UTF-8 sequence at text[at] and its length; length 0 when the bytes there
// are no well-formed sequence (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF).
std::pair<char32_t, size_t> decode_utf8(std::string_view text, size_t at) {
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(text[i]); };
  const uint8_t lead = byte(at);
  if (lead < 0x80) return {lead, 1};
  size_t length = 0;
  char32_t code = 0;
  char32_t minimum = 0;
  if ((lead & 0xe0) == 0xc0) {
    length = 2, code = lead & 0x1f, minimum = 0x80;
  } else if ((lead & 0xf0) == 0xe0) {
    length = 3, code = lead & 0x0f, minimum = 0x800;
  } else if ((lead & 0xf8) == 0xf0) {
    length = 4, code = lead & 0x07, minimum = 0x10000;
  } else {
    return {0, 0};
  }
  if (text.size() - at < length) return {0, 0};
  for (size_t i = 1; i < length; ++i) {
    if ((byte(at + i) & 0xc0) != 0x80) return {0, 0};
    code = code << 6 | (byte(at + i) & 0x3f);
  }
  if (code < minimum || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return {0, 0};
  return {code, length};
}

void append_utf8(std::string& out, char32_t code) {
  if (code < 0x80) {
    out.push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out.push_back(static_cast<char>(0xc0 | code >> 6));
    out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
  } else if (code < 0x10000) {
    out.push_back(static_cast<char>(0xe0 | code >> 12));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
  } else {
    out.push_back(static_cast<char>(0xf0 | code >> 18));
    out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3f)));
  }
}

// UTF-16LE code units (no terminator) -> UTF-8; refuses NUL and unpaired surrogates.
Result<std::string> utf16le_units_to_utf8(std::string_view units) {
  std::string out;
  for (size_t at = 0; at < units.size(); at += 2) {
    const char32_t unit = efi_le16(units, at);
    if (unit == 0) return content_error("UTF-16 text with a NUL inside it");
    if (unit >= 0xdc00 && unit <= 0xdfff) {
      return content_error("UTF-16 text with an unpaired low surrogate at byte " +
                           std::to_string(at));
    }
    if (unit < 0xd800 || unit > 0xdbff) {
      append_utf8(out, unit);
      continue;
    }
    const char32_t low = at + 4 <= units.size() ? efi_le16(units, at + 2) : 0;
    if (low < 0xdc00 || low > 0xdfff) {
      return content_error("UTF-16 text with an unpaired high surrogate at byte " +
                           std::to_string(at));
    }
    append_utf8(out, 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00));
    at += 2;
  }
  return out;
}

// The length in bytes of the NUL-terminated UTF-16 string at bytes[at], its NUL included; 0 when
// no NUL code unit follows before the end.
size_t utf16_string_length(std::string_view bytes, size_t at) {
  for (size_t i = at; i + 2 <= bytes.size(); i += 2) {
    if (bytes[i] == '\0' && bytes[i + 1] == '\0') return i + 2 - at;
  }
  return 0;
}

}  // namespace

Result<std::string> utf8_to_utf16le(std::string_view text, size_t max_bytes) {
  std::string out;
  for (size_t at = 0; at < text.size();) {
    const auto [code, length] = decode_utf8(text, at);
    if (length == 0) {
      return content_error(quote_value(text) + ": not UTF-8 at byte " + std::to_string(at));
    }
    if (code == 0) return content_error(quote_value(text) + ": a NUL inside the text");
    if (code < 0x10000) {
      append_efi_le(out, code, 2);
    } else {
      append_efi_le(out, 0xd800 + ((code - 0x10000) >> 10), 2);
      append_efi_le(out, 0xdc00 + ((code - 0x10000) & 0x3ff), 2);
    }
    at += length;
    if (out.size() + 2 > max_bytes) {
      return content_error(quote_value(text) + ": longer than " + std::to_string(max_bytes) +
                           " bytes of UTF-16");
    }
  }
  out.append(2, '\0');
  return out;
}

Result<std::string> utf16le_to_utf8(std::string_view bytes, size_t max_bytes) {
  if (bytes.size() > max_bytes) {
    return content_error("UTF-16 text of " + std::to_string(bytes.size()) + " bytes, more than " +
                         std::to_string(max_bytes));
  }
  if (bytes.size() % 2 != 0) {
    return content_error("UTF-16 text of an odd number of bytes (" + std::to_string(bytes.size()) +
                         ")");
  }
  if (bytes.size() < 2 || efi_le16(bytes, bytes.size() - 2) != 0) {
    return content_error("UTF-16 text without its terminating NUL");
  }
  return utf16le_units_to_utf8(bytes.substr(0, bytes.size() - 2));
}

// ---- GUIDs and device paths

std::string efi_guid_text(const EfiGuidBytes& bytes) {
  const std::string_view raw(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  char text[kEfiGuidTextLength + 1];
  std::snprintf(text, sizeof text, "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                efi_le32(raw, 0), efi_le16(raw, 4), efi_le16(raw, 6), bytes[8], bytes[9], bytes[10],
                bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]);
  return text;
}

std::optional<EfiGuidBytes> parse_efi_guid(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](char c) { return c >= 'A' && c <= 'F' ? static_cast<char>(c + 32) : c; });
  if (!efi_guid_problem(lower).empty()) return std::nullopt;
  std::string hex;
  for (const char c : lower) {
    if (c != '-') hex.push_back(c);
  }
  EfiGuidBytes in_order{};
  for (size_t i = 0; i < in_order.size(); ++i) {
    in_order[i] = static_cast<uint8_t>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  }
  // The text reads every field big-endian; the first three are stored little-endian.
  EfiGuidBytes bytes = in_order;
  std::reverse(bytes.begin(), bytes.begin() + 4);
  std::reverse(bytes.begin() + 4, bytes.begin() + 6);
  std::reverse(bytes.begin() + 6, bytes.begin() + 8);
  return bytes;
}

namespace {

constexpr size_t kEfiHardDriveDataBytes = 38;

std::string efi_hex_number(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

std::string describe_hard_drive(const EfiHardDrive& drive) {
  std::string signature;
  if (drive.format == kEfiPartitionFormatGpt && drive.signature_type == kEfiSignatureTypeGuid) {
    signature = "GPT," + efi_guid_text(drive.signature);
  } else if (drive.signature_type == 1) {
    const std::string_view raw(reinterpret_cast<const char*>(drive.signature.data()), 4);
    signature = "MBR," + efi_hex_number(efi_le32(raw, 0));
  } else {
    signature = "format " + std::to_string(drive.format) + ",signature type " +
                std::to_string(drive.signature_type);
  }
  return "HD(" + std::to_string(drive.partition_number) + "," + signature + "," +
         efi_hex_number(drive.start_lba) + "," + efi_hex_number(drive.size_lba) + ")";
}

std::string describe_device_path_node(const EfiDevicePathNode& node) {
  if (auto drive = parse_hard_drive_node(node)) return describe_hard_drive(*drive);
  if (node.type == kEfiMediaDevicePath && node.subtype == kEfiFilePathSubtype) {
    auto path = parse_file_path_node(node);
    return path ? "File(" + terminal_safe(*path) + ")" : "File(?)";
  }
  return "Node(" + efi_hex_number(node.type) + "," + efi_hex_number(node.subtype) + ")";
}

// The node's own rules, where its kind has them: what parse and build both refuse.
Status check_device_path_node(const EfiDevicePathNode& node) {
  if (node.type == kEfiMediaDevicePath && node.subtype == kEfiHardDriveSubtype) {
    auto drive = parse_hard_drive_node(node);
    if (!drive) return drive.error();
  } else if (node.type == kEfiMediaDevicePath && node.subtype == kEfiFilePathSubtype) {
    auto path = parse_file_path_node(node);
    if (!path) return path.error();
  } else if (node.type == kEfiEndDevicePath && !node.data.empty()) {
    return content_error("an End node of " + std::to_string(4 + node.data.size()) +
                         " bytes, not 4");
  }
  return ok_status();
}

bool is_end_entire(const EfiDevicePathNode& node) {
  return node.type == kEfiEndDevicePath && node.subtype == kEfiEndEntireSubtype;
}

Result<std::vector<EfiDevicePathNode>> parse_device_path_list(std::string_view list) {
  std::vector<EfiDevicePathNode> nodes;
  for (size_t at = 0; at < list.size();) {
    if (nodes.size() == kMaxEfiDevicePathNodes) {
      return content_error("a FilePathList of more than " + std::to_string(kMaxEfiDevicePathNodes) +
                           " nodes");
    }
    if (list.size() - at < 4) return content_error("a device path node header cut short");
    const size_t length = efi_le16(list, at + 2);
    if (length < 4) {
      return content_error("a device path node of length " + std::to_string(length) +
                           ", shorter than its 4-byte header");
    }
    if (length > list.size() - at) {
      return content_error("a device path node of " + std::to_string(length) +
                           " bytes running past the FilePathList's end");
    }
    EfiDevicePathNode node{static_cast<uint8_t>(list[at]), static_cast<uint8_t>(list[at + 1]),
                           std::string(list.substr(at + 4, length - 4))};
    if (auto checked = check_device_path_node(node); !checked) return checked.error();
    nodes.push_back(std::move(node));
    at += length;
  }
  if (nodes.empty() || !is_end_entire(nodes.back())) {
    return content_error("a FilePathList that does not end with an End Entire node");
  }
  return nodes;
}

Result<std::string> build_device_path_list(const std::vector<EfiDevicePathNode>& nodes) {
  if (nodes.size() > kMaxEfiDevicePathNodes) {
    return content_error("a FilePathList of more than " + std::to_string(kMaxEfiDevicePathNodes) +
                         " nodes");
  }
  if (nodes.empty() || !is_end_entire(nodes.back())) {
    return content_error("a FilePathList that does not end with an End Entire node");
  }
  std::string list;
  for (const EfiDevicePathNode& node : nodes) {
    if (auto checked = check_device_path_node(node); !checked) return checked.error();
    if (node.data.size() > 0xffff - 4) return content_error("a device path node over 64 KiB");
    list.push_back(static_cast<char>(node.type));
    list.push_back(static_cast<char>(node.subtype));
    append_efi_le(list, 4 + node.data.size(), 2);
    list += node.data;
  }
  if (list.size() > 0xffff) return content_error("a FilePathList over 64 KiB");
  return list;
}

}  // namespace

EfiDevicePathNode hard_drive_node(const EfiHardDrive& drive) {
  EfiDevicePathNode node{kEfiMediaDevicePath, kEfiHardDriveSubtype, {}};
  append_efi_le(node.data, drive.partition_number, 4);
  append_efi_le(node.data, drive.start_lba, 8);
  append_efi_le(node.data, drive.size_lba, 8);
  node.data.append(reinterpret_cast<const char*>(drive.signature.data()), drive.signature.size());
  node.data.push_back(static_cast<char>(drive.format));
  node.data.push_back(static_cast<char>(drive.signature_type));
  return node;
}

Result<EfiHardDrive> parse_hard_drive_node(const EfiDevicePathNode& node) {
  if (node.type != kEfiMediaDevicePath || node.subtype != kEfiHardDriveSubtype) {
    return content_error("not a Hard Drive node");
  }
  if (node.data.size() != kEfiHardDriveDataBytes) {
    return content_error("a Hard Drive node of " + std::to_string(4 + node.data.size()) +
                         " bytes, not 42");
  }
  EfiHardDrive drive;
  drive.partition_number = efi_le32(node.data, 0);
  drive.start_lba = efi_le64(node.data, 4);
  drive.size_lba = efi_le64(node.data, 12);
  std::copy_n(node.data.begin() + 20, drive.signature.size(), drive.signature.begin());
  drive.format = static_cast<uint8_t>(node.data[36]);
  drive.signature_type = static_cast<uint8_t>(node.data[37]);
  return drive;
}

Result<EfiDevicePathNode> file_path_node(std::string_view path) {
  if (path.empty()) return content_error("an empty file path");
  if (path.find('/') != std::string_view::npos) {
    return content_error(quote_value(path) + ": a firmware file path separates with '\\'");
  }
  auto text = utf8_to_utf16le(path, 0xffff - 4);
  if (!text) return text.error();
  return EfiDevicePathNode{kEfiMediaDevicePath, kEfiFilePathSubtype, std::move(*text)};
}

Result<std::string> parse_file_path_node(const EfiDevicePathNode& node) {
  if (node.type != kEfiMediaDevicePath || node.subtype != kEfiFilePathSubtype) {
    return content_error("not a File Path node");
  }
  auto path = utf16le_to_utf8(node.data);
  if (!path) return content_error("a File Path node holding " + path.error().context);
  return path;
}

EfiDevicePathNode end_entire_node() {
  return {kEfiEndDevicePath, kEfiEndEntireSubtype, {}};
}

std::string describe_device_path(const std::vector<EfiDevicePathNode>& nodes) {
  std::string text;
  for (const EfiDevicePathNode& node : nodes) {
    if (node.type == kEfiEndDevicePath) {
      if (node.subtype == kEfiEndInstanceSubtype) text += ",";
      continue;
    }
    if (!text.empty() && text.back() != ',') text += "/";
    text += describe_device_path_node(node);
  }
  return text;
}

std::vector<EfiDevicePathNode> EfiLoadOption::image_path() const {
  std::vector<EfiDevicePathNode> nodes;
  for (const EfiDevicePathNode& node : file_path_list) {
    if (node.type == kEfiEndDevicePath) break;
    nodes.push_back(node);
  }
  return nodes;
}

// ---- EFI_LOAD_OPTION: u32 Attributes, u16 FilePathListLength, Description (UTF-16, NUL),
// FilePathList, OptionalData.

Result<EfiLoadOption> parse_efi_load_option(std::string_view bytes) {
  if (bytes.size() > kMaxEfiVariableBytes) {
    return content_error("a load option of " + std::to_string(bytes.size()) + " bytes");
  }
  if (bytes.size() < 6) {
    return content_error("a load option of " + std::to_string(bytes.size()) +
                         " bytes, shorter than its 6-byte header");
  }
  EfiLoadOption option;
  option.attributes = efi_le32(bytes, 0);
  const size_t list_length = efi_le16(bytes, 4);
  const size_t description_length = utf16_string_length(bytes, 6);
  if (description_length == 0) {
    return content_error("a load option whose description has no NUL terminator");
  }
  auto description = utf16le_to_utf8(bytes.substr(6, description_length));
  if (!description)
    return content_error("a load option description: " + description.error().context);
  option.description = std::move(*description);
  const size_t list_start = 6 + description_length;
  if (list_length > bytes.size() - list_start) {
    return content_error("a load option whose FilePathList (" + std::to_string(list_length) +
                         " bytes) runs past its end");
  }
  auto nodes = parse_device_path_list(bytes.substr(list_start, list_length));
  if (!nodes) return content_error("a load option with " + nodes.error().context);
  option.file_path_list = std::move(*nodes);
  option.optional_data = std::string(bytes.substr(list_start + list_length));
  return option;
}

Result<std::string> build_efi_load_option(const EfiLoadOption& option) {
  auto description = utf8_to_utf16le(option.description);
  if (!description)
    return content_error("a load option description: " + description.error().context);
  auto list = build_device_path_list(option.file_path_list);
  if (!list) return content_error("a load option with " + list.error().context);
  std::string bytes;
  append_efi_le(bytes, option.attributes, 4);
  append_efi_le(bytes, list->size(), 2);
  bytes += *description;
  bytes += *list;
  bytes += option.optional_data;
  if (bytes.size() > kMaxEfiVariableBytes) {
    return content_error("a load option of " + std::to_string(bytes.size()) +
                         " bytes, more than a variable may hold");
  }
  return bytes;
}

// ---- Boot#### and the boot number variables

std::string boot_entry_name(uint16_t number) {
  char name[9];
  std::snprintf(name, sizeof name, "Boot%04X", static_cast<unsigned>(number));
  return name;
}

std::optional<uint16_t> parse_boot_entry_name(std::string_view name) {
  if (name.size() != 8 || !name.starts_with("Boot")) return std::nullopt;
  uint16_t number = 0;
  for (const char c : name.substr(4)) {
    int digit = -1;
    if (c >= '0' && c <= '9') digit = c - '0';
    if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
    if (digit < 0) return std::nullopt;
    number = static_cast<uint16_t>(number << 4 | digit);
  }
  return number;
}

std::string encode_boot_number(uint16_t number) {
  std::string data;
  append_efi_le(data, number, 2);
  return data;
}

Result<uint16_t> decode_boot_number(std::string_view data) {
  if (data.size() != 2) {
    return content_error("a boot number of " + std::to_string(data.size()) + " bytes, not 2");
  }
  return efi_le16(data, 0);
}

std::string encode_boot_order(const std::vector<uint16_t>& order) {
  std::string data;
  for (const uint16_t number : order)
    append_efi_le(data, number, 2);
  return data;
}

Result<std::vector<uint16_t>> decode_boot_order(std::string_view data) {
  if (data.size() % 2 != 0) {
    return content_error("a boot order of an odd number of bytes (" + std::to_string(data.size()) +
                         ")");
  }
  std::vector<uint16_t> order;
  for (size_t at = 0; at < data.size(); at += 2)
    order.push_back(efi_le16(data, at));
  return order;
}

}  // namespace kdrift
